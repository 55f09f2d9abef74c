package main

import (
	"fmt"
	"io"

	"ratebench/summary"
	"ratebench/traces"
)

// timeUnit returns the unit r read its timestamps in and how it was chosen,
// as a summary records them ("" when none applies).
func timeUnit(r traces.Reader) (unit, from string) {
	u := traces.TimeUnitOf(r)
	if u.Unit == 0 {
		return "", ""
	}
	return traces.UnitName(u.Unit), u.From
}

// unitText says in words how the timestamps were read, "" when no unit
// applies: "s (auto-detected from their magnitude; -ts-unit to override)".
func unitText(unit, from string) string {
	switch from {
	case "":
		return ""
	case "auto":
		return unit + " (auto-detected from the first timestamp; -ts-unit to override)"
	case "file":
		return unit + " (the Parquet column's TIMESTAMP unit)"
	}
	return unit + " (-ts-unit)"
}

// printTraceNotes prints on w how the timestamps of the trace were read and
// the warnings on its times, for the rules.
func printTraceNotes(w io.Writer, t summary.TraceInfo, rules []string) {
	if s := unitText(t.TSUnit, t.TSUnitFrom); s != "" {
		fmt.Fprintf(w, "timestamps in %s\n", s)
	}
	for _, msg := range summary.TraceWarnings(t, rules) {
		fmt.Fprintf(w, "warning: %s\n", msg)
	}
}
