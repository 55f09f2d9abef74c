package report

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"ratebench/internal/numfmt"
	"ratebench/report/markup"
	"ratebench/report/plotkit"
)

// memoryFig: the analytic state all keys hold together over the trace's
// time (Timeline.Memory, the largest window of each bin), one line per
// algorithm: whether memory follows the active keys, and how far apart the
// algorithms are.
func (m *model) memoryFig(g *group) (*plotkit.Figure, string) {
	start := float64(m.s.Trace.StartNS)
	var spanNS float64
	width := int64(0)
	for _, r := range g.runs {
		if tl := r.Timeline; tl.WidthNS > 0 {
			spanNS = math.Max(spanNS, float64(len(tl.Memory))*float64(tl.WidthNS))
			width = max(width, tl.WidthNS)
		}
	}
	unit, unitName := timeUnit(spanNS)
	var peak int64
	for _, r := range g.runs {
		peak = max(peak, r.Memory.PeakTotal)
	}
	if peak == 0 || width == 0 {
		return nil, ""
	}
	scale, scaleName := 1.0, "bytes"
	switch {
	case peak >= 10<<30:
		scale, scaleName = 1<<30, "GiB"
	case peak >= 10<<20:
		scale, scaleName = 1<<20, "MiB"
	case peak >= 10<<10:
		scale, scaleName = 1<<10, "KiB"
	}
	p := plotkit.NewPanel("", fmt.Sprintf("time since the trace's first request (%s; a point per %s)", unitName, numfmt.Duration(width)),
		"state of all keys ("+scaleName+")")
	var algs []string
	var data [][]plotter.XYs
	xmin, xmax := math.Inf(1), math.Inf(-1)
	for _, r := range g.runs {
		tl := r.Timeline
		if tl.WidthNS <= 0 || len(tl.Memory) == 0 {
			continue
		}
		xys := make(plotter.XYs, len(tl.Memory))
		for j, v := range tl.Memory {
			x := plotkit.Finite((float64(tl.First+int64(j)+1)*float64(tl.WidthNS) - start) / unit) // the bin's end
			xys[j] = plotter.XY{X: x, Y: plotkit.Finite(float64(v) / scale)}
			xmin, xmax = math.Min(xmin, x), math.Max(xmax, x)
		}
		algs = append(algs, r.Algorithm)
		data = append(data, []plotter.XYs{xys})
	}
	if len(algs) == 0 {
		return nil, ""
	}
	if !(xmax > xmin) {
		xmin, xmax = xmin-1, xmax+1
	}
	p.X.Min, p.X.Max = xmin, xmax
	p.Y.Min, p.Y.Max = 0, float64(peak)/scale*1.08
	legend := m.addMerged([]*plot.Plot{p}, mergeSame(algs, data), false)
	return &plotkit.Figure{
		Name:  g.file("memory"),
		Title: m.figTitle("State of all keys over time", g),
		Alt:   "analytic state of all keys over the trace's time per algorithm, " + g.title(),
		Caption: markup.Text("The analytic state all keys hold, per bin the largest over its windows of the rule, each key counted at the most it held in the window " +
			"(the log: its entries in the window; the others: their size per key for each key with a request in the window or whose state is not back to its initial value at its start). " +
			"Its largest value is the peak total of the memory table: at least what all keys held together at any one instant, and exactly that for fixed and the counters."),
		Panels: [][]*plot.Plot{{p}},
		Legend: legend,
		W:      figWidth, H: 3.8 * vg.Inch,
	}, ""
}
