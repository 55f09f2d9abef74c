package report

import (
	"strings"
	"testing"

	"ratebench/report/markup"
	"ratebench/summary"
)

// TestFrontierJoinsCoincidentPoints: two algorithms at the same memory and
// disagreement get one label naming both, at their point, rather than two
// labels pushed apart.
func TestFrontierJoinsCoincidentPoints(t *testing.T) {
	s := readSummary(t, "small.summary.json")
	m := newModel(s, Options{})
	g := m.groups[0]
	var gcra, token int = -1, -1
	for i, r := range g.runs {
		switch r.Algorithm {
		case "gcra":
			gcra = i
		case "token":
			token = i
		}
	}
	if gcra < 0 || token < 0 {
		t.Fatal("the test summary has no gcra and token runs")
	}
	tk := *g.runs[token]
	tk.Memory = g.runs[gcra].Memory
	tk.DisagreeRate = g.runs[gcra].DisagreeRate
	g.runs[token] = &tk
	f, _ := m.frontierFig(g)
	if f == nil {
		t.Fatal("no frontier plot")
	}
	svg, err := f.Render("svg")
	if err != nil {
		t.Fatal(err)
	}
	text := string(svg)
	joined := strings.Contains(text, ">gcra = token</text>") || strings.Contains(text, ">token = gcra</text>")
	if !joined {
		t.Errorf("no single label names gcra and token at their common point")
	}
	if strings.Count(text, ">gcra</text>") > 1 {
		t.Errorf("gcra labelled apart from token as well as in the legend")
	}
}

// The frontier's caption speaks of the buckets:N family only where the
// plot holds one.
func TestFrontierCaptionNamesBucketsOnlyWhenRun(t *testing.T) {
	for _, c := range []struct {
		s    *summary.Summary
		want bool
	}{
		{verdictSummary("log", 48, 0, 0, "gcra", 8, 10, 10, "counter", 24, 5, 5), false},
		{verdictSummary("log", 48, 0, 0, "gcra", 8, 10, 10, "buckets:4", 48, 1, 1), true},
	} {
		m := newModel(c.s, Options{})
		f, _ := m.frontierFig(m.groups[0])
		if f == nil {
			t.Fatal("no frontier plot")
		}
		if got := strings.Contains(markup.Plain(f.Caption), "buckets:N"); got != c.want {
			t.Errorf("%v: caption %q", c.s.Config.Algorithms, markup.Plain(f.Caption))
		}
	}
}
