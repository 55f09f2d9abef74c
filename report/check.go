package report

import (
	"fmt"
	"slices"
	"strings"

	"ratebench/internal/numfmt"
	"ratebench/summary"
)

// A CI gate (ratebench check, compare -check) holds one algorithm's runs to
// a budget: for every rule, count policy and mode of the algorithm's runs,
// each figure the budget bounds is one Check. With no budget, the figures
// are those of the default policy (summary.DefaultBounds): the share of all
// requests decided otherwise (within 0.1%), the share of the log's
// refusals let through (at most 10%) and the share of its admissions
// refused (at most 1%).

// Check is one figure of one run held to its bound.
type Check struct {
	Rule, Count, Mode string
	// Figure names the figure as summary.json does: disagree_rate,
	// over_rate, under_rate, over_of_refused or under_of_admitted.
	Figure string
	// Value is the run's figure, Bound its bound, both as percentages.
	Value, Bound string
	// Holds tells whether the figure is within its bound.
	Holds bool
}

// String is the check's line: "✓ 100/1m, count accepted, independent:
// over_of_refused 0% ≤ 10%", ✗ and > where it breaks.
func (c Check) String() string {
	mark, rel := "✓", "≤"
	if !c.Holds {
		mark, rel = "✗", ">"
	}
	return fmt.Sprintf("%s %s, count %s, %s: %s %s %s %s", mark, c.Rule, c.Count, c.Mode, c.Figure, c.Value, rel, c.Bound)
}

// checkValue renders r's figure that b bounds as a percentage, "—" with
// the reason where it is over nothing or the summary does not hold it.
func checkValue(b summary.PolicyBound, r *summary.Run) string {
	if v, ok := worstValue(b, r); ok {
		return numfmt.Rate(v)
	}
	switch {
	case b.Figure == summary.FigureOverOfRefused && r.LogRefused != nil:
		return "— (the log refuses nothing)"
	case b.Figure == summary.FigureUnderOfAdmitted && r.LogAdmitted != nil:
		return "— (the log admits nothing)"
	case b.Figure == summary.FigureOverOfRefused, b.Figure == summary.FigureUnderOfAdmitted:
		return "—"
	}
	return numfmt.Rate(0) // a rate over no request
}

// Checks holds every run of algorithm alg in s to budget (the default
// policy's tolerances when budget bounds nothing): one Check per run and
// bounded figure, in the summary's order of runs. An algorithm with no run
// in s is an error naming those it holds.
func Checks(s *summary.Summary, alg string, budget *summary.Budget) ([]Check, error) {
	bounds := summary.PolicyOf(budget).Bounds
	var out []Check
	var present []string
	for i := range s.Runs {
		r := &s.Runs[i]
		if !slices.Contains(present, r.Algorithm) {
			present = append(present, r.Algorithm)
		}
		if r.Algorithm != alg {
			continue
		}
		for _, b := range bounds {
			out = append(out, Check{Rule: r.Rule, Count: r.Count, Mode: r.Mode, Figure: b.Figure,
				Value: checkValue(b, r), Bound: numfmt.ShortPercent(b.Max), Holds: b.Holds(r)})
		}
	}
	if out == nil {
		return nil, fmt.Errorf("algorithm %q has no run in the summary; it holds %s", alg, strings.Join(present, ", "))
	}
	return out, nil
}

// Choices are the verdict's lines for check: per rule, count policy and
// mode the verdict decides on, what it chooses under budget (the default
// tolerances when it bounds nothing): "verdict 5/30s, count accepted,
// independent: choose counter", or why there is no choice.
func Choices(s *summary.Summary, budget *summary.Budget) []string {
	v := summary.VerdictOf(s, budget)
	var out []string
	for _, r := range v.Rules {
		what := "choose " + algName(r.Choice)
		switch r.Outcome {
		case summary.OutcomeNone:
			what = "no algorithm meets the policy"
		case summary.OutcomeNoRequests:
			what = "no request was decided"
		case summary.OutcomeLogOnly:
			what = "only the exact log was run"
		}
		out = append(out, fmt.Sprintf("verdict %s, count %s, %s: %s", r.Rule, r.Count, r.Mode, what))
	}
	return out
}
