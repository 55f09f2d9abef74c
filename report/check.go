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
// are those of the default policy (withinDefault): the share of all
// requests decided otherwise (within 0.1%), the share of the log's
// refusals let through (at most 10%) and the share of its admissions
// refused (at most 1%).

// Check is one figure of one run held to its bound.
type Check struct {
	Rule, Count, Mode string
	// Figure names the figure as summary.json does: over_rate,
	// under_rate, over_of_refused, under_of_admitted, or disagree (its
	// share of the requests).
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

// figureBound is one bound a budget (or the default policy) puts on a run.
type figureBound struct {
	figure, bound string
	value         func(r *summary.Run) string
	holds         func(r *summary.Run) bool
}

// budgetBounds are the bounds b sets, in the order of its flags. A bound
// on the share of the log's refusals holds when the log refuses nothing;
// a run without the log's counts (no log run beside it) meets no bound in
// the log's terms.
func budgetBounds(b *summary.Budget) []figureBound {
	var out []figureBound
	if b == nil {
		return out
	}
	if m := b.MaxOver; m != nil {
		out = append(out, figureBound{"over_rate", numfmt.Percent(*m),
			func(r *summary.Run) string { return numfmt.Rate(r.OverRate) },
			func(r *summary.Run) bool { return r.OverRate <= *m }})
	}
	if m := b.MaxUnder; m != nil {
		out = append(out, figureBound{"under_rate", numfmt.Percent(*m),
			func(r *summary.Run) string { return numfmt.Rate(r.UnderRate) },
			func(r *summary.Run) bool { return r.UnderRate <= *m }})
	}
	if m := b.MaxOverOfRefused; m != nil {
		out = append(out, figureBound{"over_of_refused", numfmt.Percent(*m), overOfRefusedValue,
			func(r *summary.Run) bool {
				return r.LogRefused != nil && (r.OverOfRefused == nil || *r.OverOfRefused <= *m)
			}})
	}
	if m := b.MaxUnderOfAdmitted; m != nil {
		out = append(out, figureBound{"under_of_admitted", numfmt.Percent(*m), underOfAdmittedValue,
			func(r *summary.Run) bool {
				return r.LogAdmitted != nil && (r.UnderOfAdmitted == nil || *r.UnderOfAdmitted <= *m)
			}})
	}
	return out
}

// defaultBounds are the default policy's tolerances, one bound each; all
// hold exactly when withinDefault does.
func defaultBounds() []figureBound {
	return []figureBound{
		{"disagree", numfmt.PercentOf(closePerMille, 1000),
			func(r *summary.Run) string { return numfmt.PercentOf(r.Disagree, r.Requests) },
			withinClose},
		{"over_of_refused", numfmt.PercentOf(defaultOverOfRefusedPerMille, 1000), overOfRefusedValue,
			func(r *summary.Run) bool { return r.LogTermsAt(defaultOverOfRefusedPerMille, 1000) }},
		{"under_of_admitted", numfmt.PercentOf(defaultUnderOfAdmittedPerMille, 1000), underOfAdmittedValue,
			func(r *summary.Run) bool { return r.LogTermsAt(1000, defaultUnderOfAdmittedPerMille) }},
	}
}

func overOfRefusedValue(r *summary.Run) string {
	if r.LogRefused != nil && r.OverOfRefused == nil {
		return "— (the log refuses nothing)"
	}
	return shareText(r.OverOfRefused)
}

func underOfAdmittedValue(r *summary.Run) string {
	if r.LogAdmitted != nil && r.UnderOfAdmitted == nil {
		return "— (the log admits nothing)"
	}
	return shareText(r.UnderOfAdmitted)
}

// Checks holds every run of algorithm alg in s to budget (the default
// policy's tolerances when budget bounds nothing): one Check per run and
// bounded figure, in the summary's order of runs. An algorithm with no run
// in s is an error naming those it holds.
func Checks(s *summary.Summary, alg string, budget *summary.Budget) ([]Check, error) {
	bounds := defaultBounds()
	if budget.IsSet() {
		bounds = budgetBounds(budget)
	}
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
			out = append(out, Check{Rule: r.Rule, Count: r.Count, Mode: r.Mode, Figure: b.figure,
				Value: b.value(r), Bound: b.bound, Holds: b.holds(r)})
		}
	}
	if out == nil {
		return nil, fmt.Errorf("algorithm %q has no run in the summary; it holds %s", alg, strings.Join(present, ", "))
	}
	return out, nil
}
