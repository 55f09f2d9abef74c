package summary

import (
	"fmt"
	"strings"
	"time"
)

// The times a trace read from a file is expected to have: Unix times from
// 1990 to 2100. Times outside, or a trace shorter than a window of its
// rules, most often mean timestamps read in the wrong unit.
var (
	plausibleFrom = time.Date(1990, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()
	plausibleTo   = time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()
)

// unitNS are the units -ts-unit names, largest first.
var unitNS = []struct {
	name string
	ns   int64
}{{"s", 1e9}, {"ms", 1e6}, {"us", 1e3}, {"ns", 1}}

// Warnings returns what looks wrong with the times of the summary's trace
// (TraceWarnings), for its rules.
func (s *Summary) Warnings() []string { return TraceWarnings(s.Trace, s.Config.Rules) }

// TraceWarnings returns what looks wrong with the times of a trace, and
// what to try, for the rules given (as "L/W" or layered "L/W+L/W"):
//
//   - its times fall before 1990 or after 2100, not what Unix times of
//     today's traffic are;
//   - it spans less than the longest window of the rules, so that window
//     never fills;
//   - its timestamps are whole multiples of a unit coarser than a rule's
//     W/L or than a hundredth of its window (resolutionWarning).
//
// When the timestamps were read in a unit (TraceInfo.TSUnit, not a Parquet
// column's own) and another would put them between 1990 and 2100, the
// warning names it: "try -ts-unit s". A generated trace never warns: its
// times are the generator's by construction.
func TraceWarnings(t TraceInfo, rules []string) []string {
	if t.Format == "generated" || t.Requests == 0 {
		return nil
	}
	alt, altStart, altEnd := otherUnit(t)
	var w []string
	var where string
	switch {
	case t.StartNS < plausibleFrom && t.EndNS >= plausibleTo:
		where = "fall outside 1990 to 2100"
	case t.StartNS < plausibleFrom:
		where = "fall before 1990"
	case t.EndNS >= plausibleTo:
		where = "fall after 2100"
	}
	if where != "" {
		msg := fmt.Sprintf("times from %s to %s %s", fmtTime(t.StartNS), fmtTime(t.EndNS), where)
		switch {
		case alt != "":
			msg += fmt.Sprintf(": read as %s (%s); as %s they would be %s to %s: try -ts-unit %s",
				t.TSUnit, t.TSUnitFrom, alt, fmtTime(altStart), fmtTime(altEnd), alt)
		case t.TSUnit != "" && t.TSUnitFrom != "file" && t.EndNS < plausibleTo:
			msg += fmt.Sprintf(": read as %s (%s); fine for offsets from 0 (a synthetic trace), but Unix times need their unit: try -ts-unit s, ms, us or ns",
				t.TSUnit, t.TSUnitFrom)
		case t.TSUnit != "" && t.TSUnitFrom != "file":
			msg += fmt.Sprintf(": read as %s (%s), and no other unit puts them between 1990 and 2100: check the timestamps", t.TSUnit, t.TSUnitFrom)
		default:
			msg += ": the trace gives them as dates; check that they are right"
		}
		w = append(w, msg)
	}
	if rule, ws, window := longestWindow(rules); window > 0 && t.EndNS-t.StartNS < window {
		msg := fmt.Sprintf("the trace spans %s, less than the %s window of rule %s, which never fills",
			fmtSpan(t.EndNS-t.StartNS), ws, rule)
		if alt != "" && altEnd-altStart >= window {
			msg += fmt.Sprintf(": read as %s (%s); as %s it would span %s: try -ts-unit %s", t.TSUnit, t.TSUnitFrom, alt, fmtSpan(altEnd-altStart), alt)
		} else {
			msg += ": try a shorter window (-rule)"
		}
		w = append(w, msg)
	}
	if msg := resolutionWarning(t, rules); msg != "" {
		w = append(w, msg)
	}
	return w
}

// otherUnit returns the unit other than t's own that puts its times
// between 1990 and 2100, and the times in it; "" if none does or the
// times were not read in a unit of -ts-unit's.
func otherUnit(t TraceInfo) (name string, start, end int64) {
	if t.TSUnitFrom == "file" || (t.StartNS >= plausibleFrom && t.EndNS < plausibleTo) {
		return "", 0, 0
	}
	cur := int64(0)
	for _, u := range unitNS {
		if u.name == t.TSUnit {
			cur = u.ns
		}
	}
	if cur == 0 {
		return "", 0, 0
	}
	rawStart, rawEnd := t.StartNS/cur, t.EndNS/cur
	for _, u := range unitNS {
		if u.ns == cur || rawEnd > (1<<63-1)/u.ns {
			continue
		}
		if s, e := rawStart*u.ns, rawEnd*u.ns; s >= plausibleFrom && e < plausibleTo {
			return u.name, s, e
		}
	}
	return "", 0, 0
}

// longestWindow returns the rule (a layered rule: its layer) with the
// longest window, and the window as the rule writes it and in ns; 0 if
// none parses.
func longestWindow(rules []string) (rule, ws string, window int64) {
	for _, r := range rules {
		for _, layer := range strings.Split(r, "+") {
			_, w, ok := strings.Cut(layer, "/")
			if !ok {
				continue
			}
			if d, err := time.ParseDuration(w); err == nil && int64(d) > window {
				rule, ws, window = layer, w, int64(d)
			}
		}
	}
	return rule, ws, window
}

func fmtTime(ns int64) string { return time.Unix(0, ns).UTC().Format(time.RFC3339Nano) }

// fmtSpan writes a span exactly below a second, to the millisecond above.
func fmtSpan(ns int64) string {
	d := time.Duration(ns)
	if d >= time.Second {
		d = d.Round(time.Millisecond)
	}
	return d.String()
}
