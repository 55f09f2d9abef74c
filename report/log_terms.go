package report

import (
	"fmt"

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

// Default tolerances in the log's own terms: within them, an algorithm
// lets through at most 10% of the requests the log refuses and refuses at
// most 1% of those it admits.
const (
	defaultOverOfRefusedPerMille   = 100
	defaultUnderOfAdmittedPerMille = 10
)

// withinDefault tells whether r meets the default policy: within 0.1% of
// the log's decisions, letting through at most 10% of its refusals (true
// when it refuses nothing) and refusing at most 1% of its admissions, all
// in integers.
func withinDefault(r *summary.Run) bool {
	return withinClose(r) && r.LogTermsAt(defaultOverOfRefusedPerMille, defaultUnderOfAdmittedPerMille)
}

// overUnderText is a candidate's over- and under-admission rates over all
// requests, each with its share in the log's own terms where the summary
// holds them: "over 0.080% (100% of the log's refusals), under 0% (0% of
// its admissions)".
func overUnderText(r *summary.Run) string {
	over, under := "over "+numfmt.Rate(r.OverRate), "under "+numfmt.Rate(r.UnderRate)
	if r.LogRefused != nil {
		if r.OverOfRefused != nil {
			over += " (" + numfmt.Rate(*r.OverOfRefused) + " of the log's refusals)"
		} else {
			over += " (the log refuses nothing)"
		}
		if r.UnderOfAdmitted != nil {
			under += " (" + numfmt.Rate(*r.UnderOfAdmitted) + " of its admissions)"
		}
	}
	return over + ", " + under
}

// ownTerms is what the verdict adds to a sentence on a candidate's
// disagreement: the share of the log's refusals it lets through (where
// the log refuses any) and of its admissions it refuses; empty where the
// summary does not hold them.
func ownTerms(r *summary.Run) string {
	if r.LogRefused == nil {
		return ""
	}
	out := ", where the log refuses nothing"
	if r.OverOfRefused != nil {
		out = fmt.Sprintf(", letting through %s of the log's refusals", numfmt.Rate(*r.OverOfRefused))
	}
	if r.UnderOfAdmitted != nil {
		out += fmt.Sprintf(" and refusing %s of its admissions", numfmt.Rate(*r.UnderOfAdmitted))
	}
	return out
}
