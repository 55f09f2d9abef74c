package traces

import (
	"fmt"
	"strings"
	"time"
)

// Options tunes how a trace is read. The zero value means the defaults, so
// that fields can be added without breaking callers.
type Options struct {
	// TSUnit is the unit of integer timestamps that carry no unit of their
	// own: integer ts in CSV and JSON lines, and a plain (not TIMESTAMP) INT64
	// ts column in Parquet. Zero means time.Nanosecond. Decimal seconds,
	// RFC 3339 times and Parquet TIMESTAMP columns ignore it.
	TSUnit time.Duration
}

// tsUnit returns the integer timestamp multiplier in nanoseconds, or an
// error for a negative unit.
func (o Options) tsUnit() (int64, error) {
	switch {
	case o.TSUnit == 0:
		return 1, nil
	case o.TSUnit < 0:
		return 0, fmt.Errorf("traces: invalid TSUnit %v: must be positive", o.TSUnit)
	}
	return int64(o.TSUnit), nil
}

// ParseTSUnit parses the value of a -ts-unit flag: "ns", "us" (or "µs"),
// "ms" or "s"; "" means nanoseconds.
func ParseTSUnit(s string) (time.Duration, error) {
	switch strings.TrimSpace(s) {
	case "", "ns":
		return time.Nanosecond, nil
	case "us", "µs", "μs":
		return time.Microsecond, nil
	case "ms":
		return time.Millisecond, nil
	case "s":
		return time.Second, nil
	}
	return 0, fmt.Errorf("unknown timestamp unit %q (want ns, us, ms or s)", s)
}
