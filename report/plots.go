package report

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"ratebench/internal/escape"
	"ratebench/internal/numfmt"
	"ratebench/report/markup"
	"ratebench/report/plotkit"
	"ratebench/summary"
)

// Each function here builds one figure of a group, or returns why there is
// none (a sentence for the report). Every value passed to gonum/plot goes
// through finite or is checked to be positive where an axis is
// logarithmic.

const figWidth = 7.5 * vg.Inch

func (m *model) figTitle(what string, g *group) string {
	return what + "\n" + escape.Visible(g.title())
}

// divergenceFig: over- and under-admission rates side by side per
// candidate.
func (m *model) divergenceFig(g *group) (*plotkit.Figure, string) {
	cands := g.candidates()
	if len(cands) == 0 {
		return nil, "Only the exact log was run here: there is no candidate to compare with it."
	}
	names := make([]string, len(cands))
	over := make([]float64, len(cands))
	under := make([]float64, len(cands))
	var all []float64
	for i, r := range cands {
		names[i] = r.Algorithm
		over[i] = 100 * plotkit.Finite(r.OverRate)
		under[i] = 100 * plotkit.Finite(r.UnderRate)
		all = append(all, over[i], under[i])
	}
	p := plotkit.NewPanel("", "share of all requests (%)", "")
	overBars := &plotkit.HBars{Vals: over, Offset: 0.19, Width: 0.36, Color: plotkit.OverColor}
	underBars := &plotkit.HBars{Vals: under, Offset: -0.19, Width: 0.36, Color: plotkit.UnderColor}
	p.Add(overBars, underBars)
	plotkit.CategoryAxis(&p.Y, names)
	caption := markup.Textf("Over- and under-admission rates of each candidate against the exact log (%s requests); the log itself is 0 by definition.", numfmt.Count(g.requests()))
	lo, hi, ok := plotkit.LogRange(all, 1)
	switch {
	case !ok:
		p.X.Min, p.X.Max = 0, 1
		p.Add(plotkit.Note{Text: "no candidate disagreed with the log"})
	case hi/lo > 100:
		lo = math.Pow(10, math.Floor(math.Log10(lo)))
		plotkit.SetLog(&p.X, lo, hi*1.5)
		overBars.Log, underBars.Log = true, true
		p.X.Label.Text = "share of all requests (%, log scale)"
		caption = caption.T(" The rates span more than two decades, so the scale is logarithmic; a rate of zero is marked 0.")
	default:
		p.X.Min, p.X.Max = 0, hi*1.12
	}
	h := vg.Length(1.4)*vg.Inch + vg.Length(len(cands))*0.42*vg.Inch
	return &plotkit.Figure{
		Name:    g.file("divergence"),
		Title:   m.figTitle("Over- and under-admissions per algorithm", g),
		Alt:     "over- and under-admission rates per algorithm, " + g.title(),
		Caption: caption,
		Panels:  [][]*plot.Plot{{p}},
		Legend: []plotkit.LegendEntry{
			{Name: "over: admitted, the log refused", Thumbs: []plot.Thumbnailer{&plotkit.HBars{Color: plotkit.OverColor}}},
			{Name: "under: refused, the log admitted", Thumbs: []plot.Thumbnailer{&plotkit.HBars{Color: plotkit.UnderColor}}},
		},
		W: figWidth, H: max(h, 3*vg.Inch),
	}, ""
}

// burstFig: the worst admitted burst ÷ L per algorithm, with the log's 1.
func (m *model) burstFig(g *group) (*plotkit.Figure, string) {
	var names []string
	var vals []float64
	for _, r := range g.runs {
		if r.Burst == nil {
			continue
		}
		names = append(names, r.Algorithm)
		vals = append(vals, plotkit.Finite(r.Burst.Ratio))
	}
	measured := false
	for _, r := range g.candidates() {
		measured = measured || r.Burst != nil
	}
	if !measured {
		return nil, "Burst is not measured in shadow mode, where a candidate records the log's admissions rather than its own."
	}
	p := plotkit.NewPanel("", "worst admitted cost in any window span (t−W, t] ÷ L", "")
	bars := &plotkit.HBars{Vals: vals, Width: 0.6, Color: color.RGBA{0x4e, 0x79, 0xa7, 0xff}}
	ref := &plotkit.RefLine{X: 1, Vert: true, Style: draw.LineStyle{Color: color.Black, Width: vg.Points(1.2), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}}
	p.Add(bars, ref, valueLabels(vals))
	plotkit.CategoryAxis(&p.Y, names)
	hi := 1.2
	for _, v := range vals {
		hi = math.Max(hi, v*1.15)
	}
	p.X.Min, p.X.Max = 0, hi
	h := vg.Length(1.3)*vg.Inch + vg.Length(len(names))*0.32*vg.Inch
	return &plotkit.Figure{
		Name:  g.file("burst"),
		Title: m.figTitle("Worst burst per algorithm", g),
		Alt:   "worst admitted burst divided by L per algorithm, " + g.title(),
		Caption: markup.Textf("The largest cost any algorithm admitted for one key within a window span, divided by the limit L = %s. "+
			"The exact log never exceeds 1; a fixed window reaches up to 2, a token bucket up to (B+L)/L.", g.limitText()),
		Panels: [][]*plot.Plot{{p}},
		Legend: []plotkit.LegendEntry{
			{Name: "worst burst ÷ L", Thumbs: []plot.Thumbnailer{bars}},
			{Name: "L (the exact log's bound)", Thumbs: []plot.Thumbnailer{ref}},
		},
		W: figWidth, H: max(h, 2.8*vg.Inch),
	}, ""
}

// merged is one line per panel for one algorithm, or for several whose
// lines are identical in every panel (token and gcra often are): they are
// drawn once, named "token = gcra".
type merged struct {
	name string
	alg  string        // the first algorithm, whose style is used
	data []plotter.XYs // per panel; nil where it has nothing to show
}

// mergeSame groups the algorithms whose data are equal in every panel,
// in the order of algs.
func mergeSame(algs []string, data [][]plotter.XYs) []merged {
	var out []merged
	for i, a := range algs {
		found := false
		for k := range out {
			if sameXYs(out[k].data, data[i]) {
				out[k].name += " = " + a
				found = true
				break
			}
		}
		if !found {
			out = append(out, merged{name: a, alg: a, data: data[i]})
		}
	}
	return out
}

func sameXYs(a, b []plotter.XYs) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if len(a[i]) != len(b[i]) {
			return false
		}
		for j := range a[i] {
			if a[i][j] != b[i][j] {
				return false
			}
		}
	}
	return true
}

// addMerged draws the lines into the panels (one per data slot) and
// returns the legend of those drawn.
func (m *model) addMerged(panels []*plot.Plot, ms []merged, points bool) []plotkit.LegendEntry {
	var legend []plotkit.LegendEntry
	for _, mg := range ms {
		st := m.style(mg.alg)
		drawn := false
		for k, xys := range mg.data {
			if len(xys) == 0 {
				continue
			}
			if points {
				panels[k].Add(plotkit.NewLinePoints(xys, st))
			} else {
				panels[k].Add(plotkit.LineOf(xys, st))
			}
			drawn = true
		}
		if drawn {
			var th plot.Thumbnailer = plotkit.LineOf(nil, st)
			if points {
				th = plotkit.NewLinePoints(nil, st)
			}
			legend = append(legend, plotkit.LegendEntry{Name: mg.name, Thumbs: []plot.Thumbnailer{th}})
		}
	}
	return legend
}

// phaseFig: where in the fixed window (e/W) the disagreements fall.
func (m *model) phaseFig(g *group) (*plotkit.Figure, string) {
	cands := g.candidates()
	if len(cands) == 0 {
		return nil, ""
	}
	sides := []string{"over", "under"}
	algs := make([]string, len(cands))
	data := make([][]plotter.XYs, len(cands))
	ymax := make([]float64, len(sides))
	for i, r := range cands {
		algs[i] = r.Algorithm
		data[i] = make([]plotter.XYs, len(sides))
		for k, bins := range [][]int64{r.Phase.Over, r.Phase.Under} {
			n := len(bins)
			total := int64(0)
			for _, v := range bins {
				total += v
			}
			if n == 0 || total == 0 {
				continue
			}
			xys := make(plotter.XYs, n)
			for j, v := range bins {
				xys[j].X = (float64(j) + 0.5) / float64(n)
				xys[j].Y = plotkit.Finite(float64(v))
				ymax[k] = math.Max(ymax[k], xys[j].Y)
			}
			data[i][k] = xys
		}
	}
	if ymax[0] == 0 && ymax[1] == 0 {
		return nil, "No candidate disagreed with the log, so there is no phase to show."
	}
	panels := make([]*plot.Plot, len(sides))
	for k, side := range sides {
		p := plotkit.NewPanel(side+"-admissions", "position in the fixed window, e/W", side+"-admissions (requests)")
		p.X.Min, p.X.Max = 0, 1
		if ymax[k] == 0 {
			p.Add(plotkit.Note{Text: "no " + side + "-admissions"})
			ymax[k] = 1
		}
		p.Y.Min, p.Y.Max = 0, ymax[k]*1.08
		panels[k] = p
	}
	legend := m.addMerged(panels, mergeSame(algs, data), true)
	return &plotkit.Figure{
		Name:  g.file("phase"),
		Title: m.figTitle("Where in the window the candidates disagree", g),
		Alt:   "over- and under-admissions by position in the fixed window, " + g.title(),
		Caption: markup.Text("Disagreements by how far into the fixed window (e/W, 20 bins) they happen. " +
			"A sliding window counter is expected to over-admit late in a window and to under-admit after traffic early in the previous one."),
		Panels: [][]*plot.Plot{{panels[0]}, {panels[1]}},
		Legend: legend,
		W:      figWidth, H: 6 * vg.Inch,
	}, ""
}

// legendFor lists the runs whose algorithm is in show, in run order, as
// points.
func (m *model) legendFor(runs []*summary.Run, show map[string]bool) []plotkit.LegendEntry {
	var out []plotkit.LegendEntry
	for _, r := range runs {
		if show[r.Algorithm] {
			out = append(out, plotkit.LegendEntry{Name: r.Algorithm, Thumbs: []plot.Thumbnailer{&plotter.Scatter{GlyphStyle: m.style(r.Algorithm).Glyph()}}})
		}
	}
	return out
}

// bucketsN returns N for "buckets:N".
func bucketsN(alg string) (int, bool) {
	s, ok := strings.CutPrefix(alg, "buckets:")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil && n >= 1
}

// frontierFig: memory per key against disagreement, one point per
// algorithm, the buckets:N family joined from the counter to the log. The
// disagreement's axis is logarithmic where one value stands far above
// the rest (frontierY); the legend lists the algorithms closest to the
// log first, so that it reads as a ranking however many points crowd
// the plot.
func (m *model) frontierFig(g *group) (*plotkit.Figure, string) {
	if len(g.candidates()) == 0 {
		return nil, ""
	}
	type pt struct {
		x, y  float64
		names []string
	}
	var pts []*pt
	at := map[[2]float64]*pt{}
	var xs []float64
	yAt, logY := m.frontierY(g)
	ylabel := "requests decided differently from the log (%)"
	if logY != nil {
		ylabel = "requests decided differently from the log (%, log scale)"
	}
	p := plotkit.NewPanel("", "state per key, peak (bytes, log scale)", ylabel)
	for _, r := range g.runs {
		x := math.Max(1, plotkit.Finite(float64(r.Memory.PeakPerKey)))
		y := yAt(r)
		xs = append(xs, x)
		x = math.Log10(x) // the axis holds log10 (setLog)
		k := [2]float64{x, y}
		if q := at[k]; q != nil {
			q.names = append(q.names, r.Algorithm)
		} else {
			q = &pt{x, y, []string{r.Algorithm}}
			at[k] = q
			pts = append(pts, q)
		}
		sc := &plotter.Scatter{XYs: plotter.XYs{{X: x, Y: y}}, GlyphStyle: m.style(r.Algorithm).Glyph()}
		sc.GlyphStyle.Radius = vg.Points(3.5)
		p.Add(sc)
	}

	// The buckets:N family, from the counter (buckets:1) to the log.
	type member struct {
		n   int
		run *summary.Run
	}
	var fam []member
	var counter, log *summary.Run
	for _, r := range g.runs {
		if n, ok := bucketsN(r.Algorithm); ok {
			fam = append(fam, member{n, r})
		}
		switch r.Algorithm {
		case "counter":
			counter = r
		case "log":
			log = r
		}
	}
	var legend []plotkit.LegendEntry
	if len(fam) > 0 {
		sort.SliceStable(fam, func(i, j int) bool { return fam[i].n < fam[j].n })
		var chain []*summary.Run
		if counter != nil && fam[0].n > 1 {
			chain = append(chain, counter)
		}
		for _, f := range fam {
			chain = append(chain, f.run)
		}
		if log != nil {
			chain = append(chain, log)
		}
		if len(chain) >= 2 {
			xys := make(plotter.XYs, len(chain))
			for i, r := range chain {
				xys[i].X = math.Log10(math.Max(1, plotkit.Finite(float64(r.Memory.PeakPerKey))))
				xys[i].Y = yAt(r)
			}
			fl := &plotter.Line{XYs: xys, LineStyle: draw.LineStyle{Color: color.Gray{Y: 110}, Width: vg.Points(1.2), Dashes: []vg.Length{vg.Points(5), vg.Points(3)}}}
			p.Add(fl)
			legend = append(legend, plotkit.LegendEntry{Name: "buckets:N, counter → log", Thumbs: []plot.Thumbnailer{fl}})
		}
	}
	lbl := &plotkit.PointLabels{}
	ymax := 0.0
	for _, q := range pts {
		lbl.Xs = append(lbl.Xs, q.x)
		lbl.Ys = append(lbl.Ys, q.y)
		lbl.Texts = append(lbl.Texts, strings.Join(q.names, " = ")) // points at one place: one label
		ymax = math.Max(ymax, q.y)
	}
	p.Add(lbl)
	lo, hi, _ := plotkit.LogRange(xs, 1.6)
	plotkit.SetLog(&p.X, lo, hi)
	if logY != nil {
		logY.SetY(p)
	} else {
		if ymax == 0 {
			ymax = 1
		}
		p.Y.Min, p.Y.Max = -ymax*0.04, ymax*1.12
	}
	var ranked []plotkit.LegendEntry // closest to the log first, with the share each decides otherwise
	for _, r := range closestFirst(g.runs) {
		name := r.Algorithm + " · " + numfmt.Rate(r.DisagreeRate)
		if r.Algorithm == "log" {
			name = "log · exact"
		}
		ranked = append(ranked, plotkit.LegendEntry{Name: name, Thumbs: []plot.Thumbnailer{&plotter.Scatter{GlyphStyle: m.style(r.Algorithm).Glyph()}}})
	}
	legend = append(ranked, legend...)
	caption := "Each point is an algorithm: its analytic state per key (peak over keys) against the share of requests it decided differently from the exact log. Down and to the left is better; the legend lists the algorithms closest to the log first, with the share each decides otherwise."
	if logY != nil {
		caption += " One share stands far above the others, so the scale of the shares is logarithmic, with 0 (exact) on a line of its own below the dashed break."
	}
	if slices.ContainsFunc(g.runs, func(r *summary.Run) bool { return strings.HasPrefix(r.Algorithm, "buckets:") }) {
		caption += " The buckets:N family trades memory for precision between the counter and the log."
	}
	return &plotkit.Figure{
		Name:    g.file("frontier"),
		Title:   m.figTitle("Trade-off: memory per key against disagreement", g),
		Alt:     "memory per key against disagreement rate per algorithm, " + g.title(),
		Caption: markup.Text(caption),
		Panels:  [][]*plot.Plot{{p}},
		Legend:  legend,
		W:       figWidth, H: 4.8 * vg.Inch,
	}, ""
}

// frontierY places a run of g on the trade-off plot's vertical axis, the
// share of requests it decided differently (%): linearly, or, where the
// largest share is over frontierOutlier times the median of those above
// 0 (an outlier would flatten the others on one line), on a logarithmic
// scale with 0 below a break (the scale returned, nil when linear).
func (m *model) frontierY(g *group) (func(*summary.Run) float64, *plotkit.ZeroLog) {
	share := func(r *summary.Run) float64 { return 100 * plotkit.Finite(r.DisagreeRate) }
	var pos []float64
	for _, r := range g.runs {
		if v := share(r); v > 0 {
			pos = append(pos, v)
		}
	}
	if len(pos) < 2 {
		return share, nil
	}
	slices.Sort(pos)
	if pos[len(pos)-1] <= frontierOutlier*pos[len(pos)/2] {
		return share, nil
	}
	z, _ := plotkit.NewZeroLog(pos, 1.3)
	return func(r *summary.Run) float64 { return z.At(share(r)) }, &z
}

// frontierOutlier is how many times the median share the largest is for
// the trade-off plot to draw the shares on a logarithmic scale.
const frontierOutlier = 3

// rateErrorFig: the CDF of the signed estimate error, as a fraction of L.
func (m *model) rateErrorFig(g *group) (*plotkit.Figure, string) {
	type series struct {
		run   *summary.Run
		xys   plotter.XYs
		below float64 // share of samples below the histogram's range
	}
	var ss []series
	xmin, xmax := math.Inf(1), math.Inf(-1)
	for _, r := range g.runs {
		re := r.RateError
		if re == nil {
			continue
		}
		h := re.Histogram
		if !(h.Width > 0) || math.IsInf(h.Width, 0) || math.IsNaN(h.Lo) || math.IsInf(h.Lo, 0) {
			continue
		}
		bins := slices.Clone(h.Counts)
		sort.SliceStable(bins, func(i, j int) bool { return bins[i][0] < bins[j][0] })
		total := max(h.Below, 0) + max(h.Above, 0)
		for _, b := range bins {
			total += max(b[1], 0)
		}
		if total <= 0 {
			continue
		}
		var xys plotter.XYs
		cum := max(h.Below, 0)
		prev := int64(math.MinInt64)
		for _, b := range bins {
			if b[1] <= 0 {
				continue
			}
			lo := h.Lo + float64(b[0])*h.Width
			if b[0] != prev+1 { // else the previous bin's end is this one's start
				xys = append(xys, plotter.XY{X: lo, Y: float64(cum) / float64(total)})
			}
			prev = b[0]
			cum += b[1]
			xys = append(xys, plotter.XY{X: lo + h.Width, Y: float64(cum) / float64(total)})
		}
		// The histogram covers [Lo, -Lo): errors beyond it sit at its edges.
		if h.Below > 0 || len(xys) == 0 {
			xmin = math.Min(xmin, h.Lo)
		}
		if h.Above > 0 || len(xys) == 0 {
			xmax = math.Max(xmax, -h.Lo)
		}
		if len(xys) > 0 {
			xmin = math.Min(xmin, xys[0].X)
			xmax = math.Max(xmax, xys[len(xys)-1].X)
		}
		ss = append(ss, series{r, xys, float64(h.Below) / float64(total)})
	}
	if len(ss) == 0 {
		if strings.Contains(g.rule, "+") {
			return nil, "A layered rule has no rate error: its candidates decide on several estimates against several limits, not on one estimate of one window."
		}
		return nil, "Rate error is measured only where a window algorithm shares the log's history: in shadow mode, or under count all."
	}
	if !(xmax > xmin) || math.IsInf(xmax-xmin, 0) {
		xmin, xmax = -0.05, 0.05
	}
	pad := math.Max((xmax-xmin)*0.05, 0.02)
	xmin, xmax = plotkit.Finite(xmin-pad), plotkit.Finite(xmax+pad)
	p := plotkit.NewPanel("", "estimate − exact count, as a fraction of L (negative: the candidate under-counts)", "share of requests with error ≤ x")
	p.Add(&plotkit.RefLine{X: 0, Vert: true, Style: draw.LineStyle{Color: color.Gray{Y: 120}, Width: vg.Points(0.8)}})
	algs := make([]string, len(ss))
	data := make([][]plotter.XYs, len(ss))
	for i, s := range ss {
		// Below the histogram's range at the left edge, all at the right.
		xys := plotter.XYs{{X: xmin, Y: s.below}}
		xys = append(xys, s.xys...)
		xys = append(xys, plotter.XY{X: xmax, Y: 1})
		for j := range xys {
			xys[j].X, xys[j].Y = plotkit.Finite(xys[j].X), plotkit.Finite(xys[j].Y)
		}
		algs[i] = s.run.Algorithm
		data[i] = []plotter.XYs{xys}
	}
	legend := m.addMerged([]*plot.Plot{p}, mergeSame(algs, data), false)
	p.X.Min, p.X.Max = xmin, xmax
	p.Y.Min, p.Y.Max = 0, 1.02
	return &plotkit.Figure{
		Name:  g.file("rate-error"),
		Title: m.figTitle("Rate error: cumulative distribution", g),
		Alt:   "cumulative distribution of the signed rate error per algorithm, " + g.title(),
		Caption: markup.Textf("At each request, the algorithm's estimate of the cost in (t−W, t] minus the exact count, divided by L = %s, read from the summary's histogram (bins of L/1000). "+
			"A curve that rises steeply at 0 is a precise estimator; mass left of 0 is under-counting (it leads to over-admission), right of 0 over-counting (under-admission).", g.limitText()),
		Panels: [][]*plot.Plot{{p}},
		Legend: legend,
		W:      figWidth, H: 4.6 * vg.Inch,
	}, ""
}

// timelineFig: over- and under-admissions over the trace's time.
func (m *model) timelineFig(g *group) (*plotkit.Figure, string) {
	cands := g.candidates()
	if len(cands) == 0 {
		return nil, ""
	}
	start := float64(m.s.Trace.StartNS)
	// The time axis unit: the trace's span decides.
	var spanNS float64
	width := int64(0)
	maxBins := 0
	for _, r := range cands {
		tl := r.Timeline
		if tl.WidthNS > 0 {
			spanNS = math.Max(spanNS, float64(len(tl.Requests))*float64(tl.WidthNS))
			width = max(width, tl.WidthNS)
			maxBins = max(maxBins, len(tl.Over), len(tl.Under))
		}
	}
	unit, unitName := timeUnit(spanNS)
	algs := make([]string, len(cands))
	data := make([][]plotter.XYs, len(cands))
	ymax := []float64{0, 0}
	xmin, xmax := math.Inf(1), math.Inf(-1)
	for i, r := range cands {
		algs[i] = r.Algorithm
		data[i] = make([]plotter.XYs, 2)
		tl := r.Timeline
		if tl.WidthNS <= 0 {
			continue
		}
		at := func(j int) float64 {
			return plotkit.Finite((float64(tl.First+int64(j))*float64(tl.WidthNS) + float64(tl.WidthNS)/2 - start) / unit)
		}
		for k, bins := range [][]int64{tl.Over, tl.Under} {
			if len(bins) == 0 {
				continue
			}
			xmin, xmax = math.Min(xmin, at(0)), math.Max(xmax, at(len(bins)-1))
			total := int64(0)
			for _, v := range bins {
				total += v
			}
			if total == 0 {
				continue
			}
			xys := make(plotter.XYs, len(bins))
			for j, v := range bins {
				xys[j] = plotter.XY{X: at(j), Y: plotkit.Finite(float64(v))}
				ymax[k] = math.Max(ymax[k], xys[j].Y)
			}
			data[i][k] = xys
		}
	}
	if ymax[0] == 0 && ymax[1] == 0 {
		return nil, "No candidate disagreed with the log, so there is no timeline to show."
	}
	if !(xmax > xmin) {
		xmin, xmax = xmin-1, xmax+1
	}
	panels := make([]*plot.Plot, 2)
	for k, side := range []string{"over", "under"} {
		p := plotkit.NewPanel(side+"-admissions", "", side+"-admissions per bin")
		if ymax[k] == 0 {
			p.Add(plotkit.Note{Text: "no " + side + "-admissions"})
			ymax[k] = 1
		}
		p.Y.Min, p.Y.Max = 0, ymax[k]*1.08
		p.X.Min, p.X.Max = math.Min(0, xmin), xmax
		panels[k] = p
	}
	panels[1].X.Label.Text = fmt.Sprintf("time since the trace's first request (%s; bins of %s)", unitName, numfmt.Duration(width))
	legend := m.addMerged(panels, mergeSame(algs, data), maxBins <= 60)
	return &plotkit.Figure{
		Name:    g.file("timeline"),
		Title:   m.figTitle("Disagreements over time", g),
		Alt:     "over- and under-admissions over the trace's time, " + g.title(),
		Caption: markup.Textf("Over- and under-admissions per bin of %s over the trace's time: whether the candidates disagree all along or in episodes.", numfmt.Duration(width)),
		Panels:  [][]*plot.Plot{{panels[0]}, {panels[1]}},
		Legend:  legend,
		W:       figWidth, H: 6 * vg.Inch,
	}, ""
}

// timeUnit returns the unit of a time axis spanning spanNS: seconds,
// minutes past 3 minutes, hours past 3 hours.
func timeUnit(spanNS float64) (float64, string) {
	switch {
	case spanNS >= 3*3600e9:
		return 3600e9, "hours"
	case spanNS >= 3*60e9:
		return 60e9, "minutes"
	}
	return 1e9, "seconds"
}
