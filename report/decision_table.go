package report

import (
	"slices"

	"ratebench/internal/numfmt"
	"ratebench/report/markup"
	"ratebench/summary"
)

// The decision table ranks a basis's algorithms by memory per key. Its
// columns the choice rests on come first, so that they are in view
// however narrow the page, where the rest scroll: the rank, the
// algorithm, whether it is within the policy, its memory, then the
// figures the policy bounds, in its order; then the other figures, the
// worst burst and the keys affected.

// figureColumn is a column of one figure of a run's.
type figureColumn struct {
	figure, head string
	cell         func(*summary.Run) string
}

// figureColumns are the figure columns in their order without a policy.
var figureColumns = []figureColumn{
	{summary.FigureDisagreeRate, "disagree", func(r *summary.Run) string { return placedText(summary.FigureDisagreeRate, r) }},
	{summary.FigureOverOfRefused, "over ÷ log's refusals", func(r *summary.Run) string { return placedText(summary.FigureOverOfRefused, r) }},
	{summary.FigureUnderOfAdmitted, "under ÷ log's admissions", func(r *summary.Run) string { return placedText(summary.FigureUnderOfAdmitted, r) }},
	{summary.FigureOverRate, "over", func(r *summary.Run) string { return placedText(summary.FigureOverRate, r) }},
	{summary.FigureUnderRate, "under", func(r *summary.Run) string { return placedText(summary.FigureUnderRate, r) }},
}

// decisionColumns are the figure columns, those the verdict's policy
// bounds first.
func (m *model) decisionColumns() []figureColumn {
	var out []figureColumn
	for _, b := range m.verdict.Policy.Bounds {
		if i := slices.IndexFunc(figureColumns, func(c figureColumn) bool { return c.figure == b.Figure }); i >= 0 &&
			!slices.ContainsFunc(out, func(c figureColumn) bool { return c.figure == b.Figure }) {
			out = append(out, figureColumns[i])
		}
	}
	for _, c := range figureColumns {
		if !slices.ContainsFunc(out, func(o figureColumn) bool { return o.figure == c.figure }) {
			out = append(out, c)
		}
	}
	return out
}

// decisionTable is the table of g's runs, ranked (summary.Ranked).
func (m *model) decisionTable(g *group) markup.Table {
	v := m.ruleVerdict(g)
	cols := m.decisionColumns()
	tb := markup.Table{Head: []string{"rank", "algorithm", m.meetsHead(), "bytes/key (peak)"}, Right: []bool{true, false, false, true}}
	for _, c := range cols {
		tb.Head, tb.Right = append(tb.Head, c.head), append(tb.Right, true)
	}
	tb.Head, tb.Right = append(tb.Head, "worst burst ÷ L", "keys affected"), append(tb.Right, true, true)
	for i, r := range summary.Ranked(g.runs) {
		burst := r.RangeOf(summary.BurstRatio).Text(num, "—")
		keys := r.RangeOf(func(v *summary.Run) (float64, bool) { return float64(v.KeysDisagree), true }).Text(func(x float64) string { return numfmt.Count(int64(x)) }, "—")
		row := []markup.Inline{markup.Textf("%d", i+1), markup.Inline{}.C(r.Algorithm), meetsCell(v, r.Algorithm), markup.Text(bytesPerKey(r.Memory.PeakPerKey))}
		for _, c := range cols {
			row = append(row, markup.Text(c.cell(r)))
		}
		tb.Rows = append(tb.Rows, append(row, markup.Text(burst), markup.Textf("%s of %s", keys, numfmt.Count(r.Keys))))
	}
	return tb
}
