package report

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"ratebench/report/markup"
	"ratebench/report/plotkit"
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

// crowdedSummary is one rule's runs of the log and 29 products: one
// decides 38% of the requests otherwise than the log, one none, the 27
// others between 0.05% and 1%, at memories from 8 to 300 B per key.
func crowdedSummary() *summary.Summary {
	runs := []any{"log", 88, 0, 0, "p-outlier", 24, 38000, 0, "p-exact", 288, 0, 0}
	for i := range 27 {
		share := 0.05 * math.Pow(20, float64(i)/26) // 0.05% to 1%
		runs = append(runs, fmt.Sprintf("p%02d", i), 8+11*i, int(math.Round(share*1000)), 0)
	}
	return verdictSummary(runs...)
}

// The trade-off plot stays readable with an outlier and 30 points: the
// others spread over the height (a log scale) rather than on one line at
// the bottom, the exact ones on a line of their own below them, every
// marker a colour and shape of its own, and the legend in the order of
// closeness to the log.
func TestFrontierReadableWithOutlierAndCrowd(t *testing.T) {
	m := newModel(crowdedSummary(), Options{})
	g := m.groups[0]
	f, _ := m.frontierFig(g)
	if f == nil {
		t.Fatal("no frontier plot")
	}
	if _, err := f.Render("svg"); err != nil {
		t.Fatal(err)
	}
	p := f.Panels[0][0]
	yAt, _ := m.frontierY(g)
	height := p.Y.Max - p.Y.Min
	lo, hi, exact := math.Inf(1), math.Inf(-1), math.Inf(1)
	for _, r := range g.runs {
		y := (yAt(r) - p.Y.Min) / height
		if y < -1e-9 || y > 1+1e-9 {
			t.Errorf("%s drawn outside the axis (at %.2f of its height)", r.Algorithm, y)
		}
		switch {
		case r.DisagreeRate == 0:
			exact = math.Min(exact, y)
		case r.Algorithm != "p-outlier":
			lo, hi = math.Min(lo, y), math.Max(hi, y)
		}
	}
	if hi-lo < 0.35 {
		t.Errorf("the 27 products under 1%% take %.0f%% of the axis's height, want 35%% or more", 100*(hi-lo))
	}
	if !(exact < lo-0.05) {
		t.Errorf("the exact ones at %.2f of the height, the closest inexact at %.2f: want them apart, below", exact, lo)
	}
	for i, a := range g.runs {
		for _, b := range g.runs[:i] {
			if plotkit.SamePair(m.style(a.Algorithm), m.style(b.Algorithm)) {
				t.Errorf("%s and %s are drawn alike", a.Algorithm, b.Algorithm)
			}
		}
	}
	var names []string
	for _, e := range f.Legend {
		names = append(names, strings.Split(e.Name, " · ")[0])
	}
	want := []string{"log", "p-exact", "p00", "p01", "p02"}
	if len(names) != len(g.runs) || !slices.Equal(names[:len(want)], want) || names[len(names)-1] != "p-outlier" {
		t.Errorf("legend %v, want the closest to the log first: %v … p-outlier", names, want)
	}
}
