package traces

import (
	"time"
)

// The unit of timestamps that carry none of their own (an integer ts in CSV
// and JSON lines, a plain INT64 ts column in Parquet).
//
// Options.TSUnit gives it; zero means auto: the trace's first timestamp
// decides, by its magnitude, for the whole trace:
//
//	6.3e8  to 4.1e9   seconds       (Unix times 1990 to 2100 in s)
//	6.3e11 to 4.1e12  milliseconds  (the same dates in ms)
//	6.3e14 to 4.1e15  microseconds  (in µs)
//	anything else     nanoseconds   (the same dates in ns, 6.3e17 to 4.1e18,
//	                                and small values: offsets from 0, as
//	                                synthetic traces have)
//
// Decimal seconds are seconds whatever the unit, so a first timestamp in
// decimal seconds makes the unit seconds (JavaScript writes a float that
// happens to be whole without a fraction: 1700000001 after 1700000000.5).
// An RFC 3339 time carries its own unit; as the first timestamp it leaves
// the unit nanoseconds, not reported (see TimeUnitOf). A value outside the
// ranges above is read as nanoseconds, and the date checks of the summary
// (times before 1990 or after 2100) then say so.

// Bounds of auto-detection: Unix times from 1990-01-01 to 2100-01-01, in
// seconds.
const (
	autoFrom = 631152000  // 1990-01-01T00:00:00Z
	autoTo   = 4102444800 // 2100-01-01T00:00:00Z
)

// autoUnit returns the unit, in nanoseconds, of a trace whose first integer
// timestamp is v: the one that puts it between 1990 and 2100, else ns.
func autoUnit(v int64) int64 {
	for _, u := range []int64{1e9, 1e6, 1e3} {
		if v >= autoFrom*(1e9/u) && v < autoTo*(1e9/u) {
			return u
		}
	}
	return 1
}

// How a reader's unit was decided.
const (
	unitExplicit uint8 = iota // Options.TSUnit
	unitAuto                  // from the magnitude of the first integer ts, or seconds for decimal seconds
	unitAutoDate              // auto, but the first ts was an RFC 3339 time: nanoseconds, not reported
	unitFile                  // the file's own (a Parquet TIMESTAMP column)
)

// tsClock is a reader's unit of timestamps without one of their own: unit
// is 0 while auto has not decided it yet.
type tsClock struct {
	unit int64
	how  uint8
}

func newTSClock(unit int64) tsClock {
	if unit == 0 {
		return tsClock{how: unitAuto}
	}
	return tsClock{unit: unit, how: unitExplicit}
}

// decide sets an undecided unit from the first timestamp's text s, if s is
// one (a malformed ts decides nothing).
func (c *tsClock) decide(s []byte) {
	if v, ok, overflow := parseUint(s); ok {
		c.unit = 1
		if !overflow {
			c.unit = autoUnit(v)
		}
		return
	}
	if isDecimal(s) {
		c.unit = 1e9
		return
	}
	if _, msg := parseTS(s, 1); msg == "" {
		c.unit, c.how = 1, unitAutoDate
	}
}

// first decides an undecided unit from the text timestamp s and returns
// it, or 1 for a malformed s, which decides nothing and whose parse fails.
// Readers call it while unit is 0, then parse s in the unit it returns
// (parseTS).
func (c *tsClock) first(s []byte) int64 {
	if c.decide(s); c.unit == 0 {
		return 1
	}
	return c.unit
}

// overflowHint follows the message of an integer ts that overflows int64
// nanoseconds in the unit: which unit it was read in and what to try; ""
// for nanoseconds, and for a Parquet column's unit, which its message
// names.
func (c tsClock) overflowHint() string {
	if c.unit <= 1 {
		return ""
	}
	name := UnitName(time.Duration(c.unit))
	switch c.how {
	case unitExplicit:
		return " as " + name + " (-ts-unit " + name + "): try a smaller unit"
	case unitAuto:
		return " as " + name + " (the unit of the trace's first timestamp): give the unit with -ts-unit"
	}
	return ""
}

// TimeUnit says how a reader takes the timestamps that carry no unit of
// their own.
type TimeUnit struct {
	// Unit is the unit of integer timestamps, 0 when none applies: a
	// format whose times all carry their own (access logs), an auto unit
	// not decided yet (no timestamp read) or decided by an RFC 3339 time.
	Unit time.Duration
	// From says how Unit was chosen: "explicit" (Options.TSUnit), "auto"
	// (from the first timestamp, see Options.TSUnit) or "file" (the unit
	// of a Parquet TIMESTAMP column).
	From string
}

// UnitName returns the name -ts-unit gives d: "ns", "us", "ms" or "s", or
// d's own string for any other duration.
func UnitName(d time.Duration) string {
	switch d {
	case time.Nanosecond:
		return "ns"
	case time.Microsecond:
		return "us"
	case time.Millisecond:
		return "ms"
	case time.Second:
		return "s"
	}
	return d.String()
}

func (c tsClock) timeUnit() TimeUnit {
	if c.unit == 0 || c.how == unitAutoDate {
		return TimeUnit{}
	}
	from := [...]string{unitExplicit: "explicit", unitAuto: "auto", unitFile: "file"}[c.how]
	return TimeUnit{Unit: time.Duration(c.unit), From: from}
}

// TimeUnitOf returns how the reader r (returned by Open, a New*Reader of
// this package, or Reorder of one) takes timestamps without a unit of
// their own, as far as it has read: an auto unit is known once the first
// timestamp is read.
func TimeUnitOf(r Reader) TimeUnit {
	switch r := r.(type) {
	case *CSVReader:
		return r.clock.timeUnit()
	case *JSONLReader:
		return r.clock.timeUnit()
	case *ParquetReader:
		return r.clock.timeUnit()
	case *RegexReader:
		return r.clock.timeUnit()
	case *DatasetReader:
		if len(r.readers) > 0 { // every part is written alike
			return TimeUnitOf(r.readers[0])
		}
	case *reorderReader:
		return TimeUnitOf(r.in)
	}
	return TimeUnit{}
}
