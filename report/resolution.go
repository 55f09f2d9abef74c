package report

import (
	"ratebench/internal/numfmt"
	"ratebench/report/markup"
	"ratebench/summary"
)

// resolutionItems are the trace section's lines on the resolution of its
// times: the unit every time is a multiple of and the share of requests
// at their key's previous time, and whether the requests were spread
// inside their unit (compare -spread); none for a summary that does not
// measure it.
func resolutionItems(t summary.TraceInfo) []markup.Inline {
	if t.ResolutionNS <= 0 {
		return nil
	}
	items := []markup.Inline{markup.Textf("Resolution: every time a multiple of %s; %s of the requests at their key's previous time",
		t.Resolution(), numfmt.PercentOf(t.SameTime, t.Requests))}
	if t.Spread != nil {
		items = append(items, markup.Textf("Spread: each request placed at random inside its %s before the replay (-spread -spread-seed %d)", t.Resolution(), t.Spread.Seed))
	}
	return items
}
