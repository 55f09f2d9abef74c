package report

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"ratebench/algorithms"

	"ratebench/internal/numfmt"
	"ratebench/report/markup"
	"ratebench/summary"
)

// What the clock cannot tell. On a trace whose clock is too coarse for a
// rule, the figures are those of placements of the requests inside their
// timestamps' unit (summary.Placements): the verdict opens by saying so,
// names a rule finer than the clock, and sets the recorded clock's choice
// beside the placements' where they differ. A figure is written as its
// range over the placements where they differ ("85.41%–85.98%"), and a
// check line as its worst placement.

// rateText is a figure over r's placements: its range where they differ,
// else its value; false where no placement holds it.
func rateText(b summary.PolicyBound, r *summary.Run) (string, bool) {
	g := r.RangeOf(b.Value)
	switch {
	case !g.OK:
		return "", false
	case g.Varies():
		return numfmt.Rate(g.Min) + "–" + numfmt.Rate(g.Max), true
	}
	return numfmt.Rate(g.Median), true
}

// placedText is a table's cell of figure fig of r: its median over the
// placements and, where they differ, their range in brackets, else its
// value; "—" where there is none (a share of the log's refusals where the
// log refuses nothing).
func placedText(fig string, r *summary.Run) string {
	if g := r.RangeOf(summary.PolicyBound{Figure: fig}.Value); g.OK {
		return g.Text(numfmt.Rate, "")
	}
	if fig == summary.FigureOverOfRefused || fig == summary.FigureUnderOfAdmitted {
		return "—"
	}
	return numfmt.Rate(0)
}

// shareRange is a bar's label of a share of the log's decisions: its
// range over the placements where they differ ("56.86–65.38%"), else its
// value; "—" where the log refuses (or admits) nothing.
func shareRange(fig string, r *summary.Run) string {
	switch g := r.RangeOf(summary.PolicyBound{Figure: fig}.Value); {
	case g.Varies():
		return strings.TrimSuffix(numfmt.Rate(g.Min), "%") + "–" + numfmt.Rate(g.Max)
	case g.OK:
		return numfmt.Rate(g.Median)
	}
	return "—"
}

// worstValue is the figure of r that b bounds in its worst placement (its
// own value when it was not placed): what a check line compares.
func worstValue(b summary.PolicyBound, r *summary.Run) (float64, bool) {
	g := r.RangeOf(b.Value)
	return g.Max, g.OK
}

// clockText is the verdict's opening on a placed trace (clockLead), then
// what the recorded clock would have said (clockContrast); empty
// otherwise.
func (m *model) clockText() markup.Inline {
	lead := m.clockLead()
	if lead == nil {
		return nil
	}
	if c := m.clockContrast(); c != nil {
		return append(lead.T(" "), c...)
	}
	return lead
}

// clockLead says, on a placed trace, what the clock cannot tell and how
// the figures are drawn, and names a rule finer than the clock; empty
// otherwise. It opens the verdict.
func (m *model) clockLead() markup.Inline {
	pl := m.s.Trace.Placements
	if pl == nil {
		return nil
	}
	unit := unitName(pl.Unit())
	s := markup.Textf("The trace's clock stamps whole %s, too coarse to tell where inside its %s each request arrived: "+
		"every figure below is over %d placements of the requests at random inside their %s (each key's requests in their order; the median, with the range where they differ), "+
		"and the choice holds in every placement.", unit.many, unit.one, pl.Count, unit.many)
	for _, rule := range m.rules {
		if layers, err := algorithms.ParseRules(rule); err == nil && slices.ContainsFunc(layers, func(l algorithms.Rule) bool { return l.W <= pl.UnitNS }) {
			s = s.T(fmt.Sprintf(" The rule %s is finer than the clock (its window is no longer than a %s): its answer rests on where inside each %s the requests are placed.", rule, unit.one, unit.one))
		}
	}
	return s
}

// clockContrast says, on a placed trace, where the recorded clock would
// have given other figures: the log's refusals, and the choice with what
// the recorded choice breaks once placed; empty where it would not.
func (m *model) clockContrast() markup.Inline {
	pl := m.s.Trace.Placements
	if pl == nil {
		return nil
	}
	unit := unitName(pl.Unit())
	var sentences []string
	rec := m.s.RecordedVerdict(&m.budget) // under the budget the report is written to
	for _, v := range m.verdict.Rules {
		if log := m.s.RunOf(v.Rule, v.Count, v.Mode, "log"); log != nil {
			if r := m.s.RecordedOf(log); r != nil {
				placed := log.RangeOf(func(v *summary.Run) (float64, bool) { return float64(v.Rejected), true })
				if float64(r.Rejected) < placed.Min || float64(r.Rejected) > placed.Max {
					sentences = append(sentences, fmt.Sprintf("At %s (count %s, %s mode) the exact log refuses %s of the requests placed inside their %s; on the recorded clock it would refuse %s.",
						v.Rule, v.Count, v.Mode, countRange(placed, log.Requests), unit.many, countText(r.Rejected, log.Requests)))
				}
			}
		}
		was := rec.Of(v.Rule, v.Count, v.Mode)
		if was == nil || was.Choice == v.Choice || was.Choice == "" {
			continue
		}
		s := fmt.Sprintf("On the recorded clock, as if every request of a %s arrived at once, the choice at %s would be %s", unit.one, v.Rule, was.Choice)
		if r := m.s.RunOf(v.Rule, v.Count, v.Mode, was.Choice); r != nil && was.Choice != "log" && v.Entry(was.Choice) != nil {
			var parts []string
			for _, b := range m.shownFigures() {
				if !slices.Contains(v.Entry(was.Choice).Breaks, b.Figure) {
					continue
				}
				if t, ok := rateText(b, r); ok {
					parts = append(parts, figurePhrase(b.Figure, t))
				}
			}
			if len(parts) > 0 {
				s += fmt.Sprintf("; placed inside their %s, it %s", unit.many, joinAnd(parts))
			}
		}
		sentences = append(sentences, s+".")
	}
	if len(sentences) == 0 {
		return nil
	}
	return markup.Text(strings.Join(sentences, " "))
}

// countText is a count of requests with its share: "384 (12.80%)".
func countText(n, of int64) string {
	return numfmt.Count(n) + " (" + numfmt.PercentOf(n, of) + ")"
}

// countRange is a count over the placements: its range where they differ.
func countRange(g summary.Range, of int64) string {
	if g.Varies() {
		return numfmt.Count(int64(g.Min)) + "–" + numfmt.Count(int64(g.Max)) + " (" + numfmt.PercentOf(int64(g.Min), of) + "–" + numfmt.PercentOf(int64(g.Max), of) + ")"
	}
	return countText(int64(g.Median), of)
}

// clockUnit names a clock's unit in words, one and several: "second" and
// "seconds" (minute, hour, millisecond), else "unit of 5m0s" and "units of
// 5m0s".
type clockUnit struct{ one, many string }

func unitName(d time.Duration) clockUnit {
	switch d {
	case time.Second:
		return clockUnit{"second", "seconds"}
	case time.Minute:
		return clockUnit{"minute", "minutes"}
	case time.Hour:
		return clockUnit{"hour", "hours"}
	case time.Millisecond:
		return clockUnit{"millisecond", "milliseconds"}
	}
	return clockUnit{"unit of " + d.String(), "units of " + d.String()}
}
