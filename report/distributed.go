package report

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"ratebench/algorithms"
	"ratebench/internal/escape"
	"ratebench/internal/numfmt"
	"ratebench/report/markup"
	"ratebench/report/plotkit"
	"ratebench/summary"
)

// deployments writes the section of the simulated distributed deployments
// (-nodes): a table of every grid point, and per rule the over-admission
// against the sync interval (one line per number of nodes, at the smallest
// skew) and against the clock skew (at the smallest sync interval), one
// panel per algorithm.
func (m *model) deployments(d *markup.Document, addFig func(*plotkit.Figure, string) error) error {
	rs := m.s.Distributed
	if len(rs) == 0 {
		return nil
	}
	d.Add(markup.Heading{Level: 2, ID: "distributed", Text: markup.Text("Distributed deployments")})
	route := rs[0].Route
	d.Add(markup.Para{Text: markup.Textf("Each window algorithm runs on N nodes behind a load balancer (route %s), each node keeping local counts and "+
		"exchanging them with a shared store every sync interval (0: a central store, every decision sees everything), its "+
		"clock offset by up to the skew. Decisions are compared with the exact log on true time over all nodes: over is let "+
		"through, under refused; net excess is admitted minus what the exact log admits, over requests; burst is the worst "+
		"admitted cost in any true window, over L.", route)})
	t := markup.Table{
		Head:  []string{"rule", "algorithm", "nodes", "sync", "skew", "over rate", "under rate", "net excess", "burst ÷ L"},
		Right: []bool{false, false, true, true, true, true, true, true, true},
	}
	for _, r := range rs {
		net := 0.0
		if r.Requests > 0 {
			net = float64(r.Admitted-r.ReferenceAdmitted) / float64(r.Requests)
		}
		t.Rows = append(t.Rows, []markup.Inline{markup.Text(r.Rule), markup.Inline{}.C(r.Algorithm), markup.Text(fmt.Sprint(r.Nodes)), markup.Text(durText(r.SyncNS)),
			markup.Text(durText(r.SkewNS)), markup.Text(numfmt.Rate(r.OverRate)), markup.Text(numfmt.Rate(r.UnderRate)), markup.Text(numfmt.Rate(net)), markup.Text(num(r.BurstRatio))})
	}
	d.Add(t)
	var rules []string
	for _, r := range rs {
		if !slices.Contains(rules, r.Rule) {
			rules = append(rules, r.Rule)
		}
	}
	for i, rule := range rules {
		var of []summary.DistributedResult
		for _, r := range rs {
			if r.Rule == rule {
				of = append(of, r)
			}
		}
		for _, axis := range []string{"sync", "skew"} {
			if err := addFig(m.deploymentFig(fmt.Sprintf("distributed-%s_%d", axis, i+1), rule, of, axis)); err != nil {
				return err
			}
		}
	}
	return nil
}

// deploymentFig plots over-admission against the sync interval or the
// skew, holding the other at its smallest value.
func (m *model) deploymentFig(name, rule string, rs []summary.DistributedResult, axis string) (*plotkit.Figure, string) {
	x := func(r summary.DistributedResult) int64 { return r.SyncNS }
	other := func(r summary.DistributedResult) int64 { return r.SkewNS }
	xlabel, what := "sync interval", "Over-admission against the sync interval"
	if axis == "skew" {
		x, other = other, x
		xlabel, what = "clock skew", "Over-admission against the clock skew"
	}
	var xs, nodes []int64
	var algs []string
	hold := int64(math.MaxInt64)
	for _, r := range rs {
		hold = min(hold, other(r))
	}
	for _, r := range rs {
		if other(r) != hold {
			continue
		}
		if !slices.Contains(xs, x(r)) {
			xs = append(xs, x(r))
		}
		if !slices.Contains(nodes, int64(r.Nodes)) {
			nodes = append(nodes, int64(r.Nodes))
		}
		if !slices.Contains(algs, r.Algorithm) {
			algs = append(algs, r.Algorithm)
		}
	}
	if len(xs) < 2 {
		return nil, ""
	}
	slices.Sort(xs)
	slices.Sort(nodes)
	ticks := make([]plot.Tick, len(xs))
	for i, v := range xs {
		ticks[i] = plot.Tick{Value: float64(i), Label: durText(v)}
	}
	var row []*plot.Plot
	var legend []plotkit.LegendEntry
	for _, a := range algs {
		p := plotkit.NewPanel(a, xlabel, "over-admission (% of requests)")
		p.X.Tick.Marker = plot.ConstantTicks(ticks)
		p.X.Min, p.X.Max = -0.3, float64(len(xs)-1)+0.3
		ymax := 0.0
		for ni, n := range nodes {
			var xys plotter.XYs
			for _, r := range rs {
				if r.Algorithm == a && int64(r.Nodes) == n && other(r) == hold {
					i := slices.Index(xs, x(r))
					y := 100 * plotkit.Finite(r.OverRate)
					xys = append(xys, plotter.XY{X: float64(i), Y: y})
					ymax = math.Max(ymax, y)
				}
			}
			slices.SortFunc(xys, func(a, b plotter.XY) int { return int(a.X - b.X) })
			st := plotkit.StyleFor(fmt.Sprint("N", n), ni)
			p.Add(plotkit.NewLinePoints(xys, st))
			if len(row) == 0 {
				legend = append(legend, plotkit.LegendEntry{Name: fmt.Sprintf("N=%d", n), Thumbs: []plot.Thumbnailer{plotkit.NewLinePoints(nil, st)}})
			}
		}
		if ymax == 0 {
			p.Add(plotkit.Note{Text: "all zero"})
			ymax = 1
		}
		p.Y.Min, p.Y.Max = 0, ymax*1.08
		row = append(row, p)
	}
	held := "skew " + durText(hold)
	if axis == "skew" {
		held = "sync " + durText(hold)
	}
	return &plotkit.Figure{
		Name:  name,
		Title: what + "\n" + escape.Visible("rule "+rule+", "+held),
		Alt:   what + ", rule " + rule + ", " + held,
		Caption: markup.Textf("%s (rule %s, %s): the share of requests a deployment of N nodes lets through that the exact log on true time refuses, one line per N.",
			what, rule, held),
		Panels: [][]*plot.Plot{row},
		Legend: legend,
		W:      vg.Length(max(4, 3.4*float64(len(row)))) * vg.Inch, H: 3.9 * vg.Inch,
	}, ""
}

// durText writes a duration as a window is written ("0" for none).
func durText(ns int64) string {
	if ns == 0 {
		return "0"
	}
	return algorithms.FormatWindow(ns)
}
