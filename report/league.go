package report

import (
	"cmp"
	"fmt"
	"slices"

	"ratebench/internal/numfmt"
	"ratebench/report/markup"
	"ratebench/summary"
)

// The league table of the deployed products: where a rule's decision
// rests on runs of two products or more, the first screen ranks them by
// how close they decide to the exact log on this trace (the fewest
// requests decided differently, then the least memory, then the
// verdict's own tie-break, summary.TieOrder: between products, the name),
// in the verdict's own figures: the share of the log's refusals let
// through, of its admissions refused, and memory per key.

// leagueMin is the number of products a decision basis holds for its
// league table to be shown.
const leagueMin = 2

// league returns the products of g, closest to the exact log first.
func league(g *group) []*summary.Run {
	var out []*summary.Run
	for _, r := range closestFirst(g.runs) {
		if r.Product != nil {
			out = append(out, r)
		}
	}
	return out
}

// closestFirst orders runs of one group by how many requests they decide
// otherwise than the log, the fewest first, then by memory, then as the
// verdict breaks ties (summary.TieOrder).
func closestFirst(runs []*summary.Run) []*summary.Run {
	out := slices.Clone(runs)
	slices.SortStableFunc(out, func(a, b *summary.Run) int {
		return cmp.Or(cmp.Compare(a.Disagree, b.Disagree), cmp.Compare(a.Memory.PeakPerKey, b.Memory.PeakPerKey), summary.TieOrder(a, b))
	})
	return out
}

// leagueOf is the league of a rule's decision basis: its products,
// closest to the exact log first.
type leagueOf struct {
	g      *group
	ranked []*summary.Run
}

// leagues returns the league of every rule's decision basis that holds
// at least leagueMin products; the first screen writes each one's line
// above its picture and its table below.
func (m *model) leagues() []leagueOf {
	var out []leagueOf
	for _, rule := range m.rules {
		bases, _ := m.decisionBases(rule)
		if len(bases) == 0 {
			continue
		}
		if ranked := league(bases[0]); len(ranked) >= leagueMin {
			out = append(out, leagueOf{bases[0], ranked})
		}
	}
	return out
}

// leagueLine says which product decides closest to the exact log, with
// the figures the verdict weighs it on, and which others decide alike.
func (m *model) leagueLine(g *group, ranked []*summary.Run) markup.Inline {
	best := ranked[0]
	s := markup.Inline{}.B("Products, closest to the exact log first").
		T(fmt.Sprintf(" (rule %s, count %s, %s mode): of the %d products replayed, ", g.rule, g.count, g.mode, len(ranked))).C(best.Algorithm)
	var tied []string
	for _, r := range ranked[1:] {
		if r.Disagree == best.Disagree {
			tied = append(tied, r.Algorithm)
		}
	}
	if best.Disagree == 0 && best.Requests > 0 {
		s = s.T(" (" + memText(best) + ") decides every request as the exact log does")
		if len(tied) == 0 {
			return s.T(".")
		}
		return s.T("; so do " + joinAnd(tied) + ".")
	}
	s = s.T(" decides the fewest requests otherwise than the exact log (" + m.figuresText(best) + ")")
	switch len(tied) {
	case 0:
		return s.T(".")
	case 1:
		return s.T(fmt.Sprintf("; %s decides exactly as many otherwise.", tied[0]))
	}
	return s.T(fmt.Sprintf("; %s decide exactly as many otherwise.", joinAnd(tied)))
}

// leagueTable is the table of the products of g, in league order.
func (m *model) leagueTable(g *group, ranked []*summary.Run) markup.Table {
	v := m.ruleVerdict(g)
	t := markup.Table{
		Head:  []string{"rank", "product", "twin", "disagree", "over ÷ log's refusals", "under ÷ log's admissions", "bytes/key", m.meetsHead()},
		Right: []bool{true, false, false, true, true, true, true, false},
	}
	for i, r := range ranked {
		twin := markup.Text("—")
		if r.Product.Twin != "" {
			twin = markup.Inline{}.C(r.Product.Twin)
		}
		t.Rows = append(t.Rows, []markup.Inline{
			markup.Textf("%d", i+1), markup.Inline{}.C(r.Algorithm), twin, markup.Text(numfmt.Rate(r.DisagreeRate)),
			markup.Text(shareText(r.OverOfRefused)), markup.Text(shareText(r.UnderOfAdmitted)), markup.Text(bytesPerKey(r.Memory.PeakPerKey)), meetsCell(v, r.Algorithm),
		})
	}
	return t
}
