package report

import (
	"ratebench/internal/numfmt"
	"ratebench/summary"
)

// shareText renders one of a run's errors in the log's own terms
// (summary.Run.OverOfRefused, UnderOfAdmitted) as a percentage; "—" where
// it is absent: the log refuses (or admits) nothing, or the summary does
// not hold it.
func shareText(p *float64) string {
	if p == nil {
		return "—"
	}
	return numfmt.Rate(*p)
}

// logRefusedText is the number of requests the log refuses beside r, "—"
// where the summary does not hold it.
func logRefusedText(r *summary.Run) string {
	if r.LogRefused == nil {
		return "—"
	}
	return numfmt.Count(*r.LogRefused)
}
