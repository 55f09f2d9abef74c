package report

import (
	"slices"
	"testing"

	"ratebench/summary"
)

// The decision table's columns the choice rests on come first: the rank,
// the algorithm, whether within the policy, the memory, then the figures
// the policy bounds, in its order; every figure column once.
func TestDecisionTableKeyColumnsFirst(t *testing.T) {
	over, under := 0.01, 0.02
	for _, c := range []struct {
		name   string
		budget *summary.Budget
		want   []string
	}{
		{"default tolerances", nil, []string{"rank", "algorithm", "within the default tolerances", "bytes/key (peak)", "disagree", "over ÷ log's refusals", "under ÷ log's admissions", "over", "under", "worst burst ÷ L", "keys affected"}},
		{"over and under", &summary.Budget{MaxOver: &over, MaxUnder: &under}, []string{"rank", "algorithm", "meets budget", "bytes/key (peak)", "over", "under", "disagree", "over ÷ log's refusals", "under ÷ log's admissions", "worst burst ÷ L", "keys affected"}},
		{"under of admitted", &summary.Budget{MaxUnderOfAdmitted: &under}, []string{"rank", "algorithm", "meets budget", "bytes/key (peak)", "under ÷ log's admissions", "disagree", "over ÷ log's refusals", "over", "under", "worst burst ÷ L", "keys affected"}},
	} {
		m := newModel(verdictSummary(verdictBase...), Options{Budget: c.budget})
		tb := m.decisionTable(m.groups[0])
		if !slices.Equal(tb.Head, c.want) {
			t.Errorf("%s: columns %v\nwant %v", c.name, tb.Head, c.want)
		}
		for _, row := range tb.Rows {
			if len(row) != len(tb.Head) {
				t.Errorf("%s: a row of %d cells under %d columns", c.name, len(row), len(tb.Head))
			}
		}
	}
}
