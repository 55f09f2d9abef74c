package report

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"ratebench/algorithms"
	"ratebench/internal/escape"
	"ratebench/internal/numfmt"
	"ratebench/report/markup"
	"ratebench/report/plotkit"
	"ratebench/summary"
)

// File is a file a report writes: its name in the results folder and its
// bytes.
type File struct {
	Name string
	Data []byte
}

// searchPlot is the file name of the search's plot.
const searchPlot = "disagreement.svg"

// blockName is how a mitigation timeout reads in the search's tables.
func blockName(b string) string {
	switch b {
	case "":
		return "none"
	case "window":
		return "till the window's end"
	}
	return b
}

// CloudflareSearchPlots draws the search: the disagreement rate of every
// point against its mean gap, and against the share of its requests from
// sources that come near the threshold, with the published figures marked.
func CloudflareSearchPlots(s *summary.CloudflareSearch) ([]File, error) {
	f, err := cloudflareSearchFigure(s)
	if err != nil {
		return nil, err
	}
	svg, err := f.Render("svg")
	if err != nil {
		return nil, err
	}
	return []File{{searchPlot, svg}}, nil
}

func cloudflareSearchFigure(s *summary.CloudflareSearch) (*plotkit.Figure, error) {
	var blocks []string
	for _, p := range s.Points {
		if !slices.Contains(blocks, p.Block) {
			blocks = append(blocks, p.Block)
		}
	}
	var rates []float64
	for _, p := range s.Points {
		rates = append(rates, 100*p.DisagreeRate)
	}
	lo, hi, ok := plotkit.LogRange(append(rates, 100*cfDisagreeRate), 1)
	if !ok {
		lo, hi = 100*cfDisagreeRate/10, 100*cfDisagreeRate*10
	}
	floor := math.Pow(10, math.Floor(math.Log10(lo/3)))
	y := func(r float64) float64 { return math.Log10(math.Max(100*r, floor)) }

	gap := plotkit.NewPanel("", "mean gap, approximate vs real rate (%)", "")
	near := plotkit.NewPanel("", "requests from sources averaging at least L/2 per window (%, log scale)", "")
	plotkit.SetLog(&gap.Y, floor, hi*2)
	plotkit.SetLog(&near.Y, floor, hi*2)
	var nears []float64
	for _, p := range s.Points {
		nears = append(nears, 100*p.NearShare)
	}
	nlo, nhi, nok := plotkit.LogRange(nears, 1)
	if !nok {
		nlo, nhi = 0.001, 1
	}
	nfloor := math.Pow(10, math.Floor(math.Log10(nlo/3)))
	plotkit.SetLog(&near.X, nfloor, math.Max(nhi*2, 1))
	gap.X.Min, gap.X.Max = 0, 100*cfMeanGap
	for _, p := range s.Points {
		gap.X.Max = math.Max(gap.X.Max, 100*p.MeanGap)
	}
	gap.X.Max *= 1.25
	capP := plotkit.NewPanel("", "fastest rate allowed ÷ threshold (max × rate × W ÷ L)", "requests decided differently (%, log scale)")
	plotkit.SetLog(&capP.Y, floor, hi*2)
	capOf := reachOf
	var legend []plotkit.LegendEntry
	for i, b := range blocks {
		var g, n, c plotter.XYs
		for _, p := range s.Points {
			if p.Block != b {
				continue
			}
			g = append(g, plotter.XY{X: 100 * p.MeanGap, Y: y(p.DisagreeRate)})
			n = append(n, plotter.XY{X: math.Log10(math.Max(100*p.NearShare, nfloor)), Y: y(p.DisagreeRate)})
			c = append(c, plotter.XY{X: capOf(&p), Y: y(p.DisagreeRate)})
		}
		sty := draw.GlyphStyle{Color: plotkit.Palette[i%len(plotkit.Palette)], Radius: vg.Points(3), Shape: plotkit.Shapes[i%len(plotkit.Shapes)]}
		gap.Add(&plotter.Scatter{XYs: g, GlyphStyle: sty})
		near.Add(&plotter.Scatter{XYs: n, GlyphStyle: sty})
		capP.Add(&plotter.Scatter{XYs: c, GlyphStyle: sty})
		legend = append(legend, plotkit.LegendEntry{Name: "timeout " + blockName(b), Thumbs: []plot.Thumbnailer{&plotter.Scatter{GlyphStyle: sty}}})
	}
	pub := draw.GlyphStyle{Color: color.Black, Radius: vg.Points(7), Shape: thickRing{}}
	gap.Add(&plotter.Scatter{XYs: plotter.XYs{{X: 100 * cfMeanGap, Y: math.Log10(100 * cfDisagreeRate)}}, GlyphStyle: pub})
	line := &plotter.Line{XYs: plotter.XYs{{X: near.X.Min, Y: math.Log10(100 * cfDisagreeRate)}, {X: near.X.Max, Y: math.Log10(100 * cfDisagreeRate)}},
		LineStyle: draw.LineStyle{Color: color.Black, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}}
	near.Add(line)
	capMax := 1.0
	for i := range s.Points {
		capMax = math.Max(capMax, capOf(&s.Points[i]))
	}
	capMax = math.Min(capMax, 100) * 1.1
	capLine := *line
	capLine.XYs = plotter.XYs{{X: 0, Y: line.XYs[0].Y}, {X: capMax, Y: line.XYs[0].Y}}
	capP.Add(&capLine)
	capP.X.Min, capP.X.Max = 0, capMax
	legend = append(legend,
		plotkit.LegendEntry{Name: "Cloudflare (6%, 0.003%)", Thumbs: []plot.Thumbnailer{&plotter.Scatter{GlyphStyle: pub}}},
		plotkit.LegendEntry{Name: "Cloudflare's 0.003%", Thumbs: []plot.Thumbnailer{line}})
	f := &plotkit.Figure{
		Name:   strings.TrimSuffix(searchPlot, ".svg"),
		Title:  fmt.Sprintf("Log and counter behind the same mitigation timeout, count all: %d points", len(s.Points)),
		Panels: [][]*plot.Plot{{capP, gap, near}},
		Legend: legend,
		W:      figWidth * 2, H: 4.2 * vg.Inch,
	}
	return f, nil
}

// CloudflareSearchREADME writes the search's section: the closest point
// to the published figures, the argument, and every point's figures.
// Headings start at level h ("#" for a page of its own, "##" inside the
// experiment's page); plotDir is the plot's folder relative to the page.
func CloudflareSearchREADME(w io.Writer, s *summary.CloudflareSearch, plotDir string) error {
	return cloudflareSearch(w, s, "#", plotDir)
}

func cloudflareSearch(w io.Writer, s *summary.CloudflareSearch, h, plotDir string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s When is the counter this accurate?\n\n", h)
	fmt.Fprintf(&b, "Cloudflare's counter counts every request and, once a source crosses the threshold, blocks it for a mitigation "+
		"timeout. The search below puts the exact log and the counter behind the same timeout, so that what differs is the "+
		"estimate alone (a log without the timeout would count the timeout's own refusals as the counter's errors), and "+
		"replays populations whose rates sit mostly far below the threshold:\n\n")
	fmt.Fprintf(&b, "%s\n", markup.MarkdownCodeBlock(s.Command))
	fmt.Fprintf(&b, "Every point replays %s requests from %s sources under count all: the full-scale experiment's traffic per source "+
		"from 1/%g of its sources, over the same span. The mean gap carries over to the full scale as it is; counts of sources "+
		"and requests scale by %g in expectation. The requests decided differently come from the few sources of the "+
		"population's tail: a point's rate of them is a draw of those few sources, and a point whose tail held none, or one, reads low.",
		numfmt.Count(s.Requests), numfmt.Count(int64(s.Sources)), s.Scale, s.Scale)
	if s.Scale > 1 {
		fmt.Fprintf(&b, " Rerun a point with -requests and -sources ×%g, the full scale, to see how far it moves", s.Scale)
		if runs, _ := fullRuns(s); len(runs) > 0 {
			fmt.Fprintf(&b, ": the closest points are, below")
		}
		b.WriteString(".")
	}
	b.WriteString("\n\n")
	if i := closest(s); i >= 0 {
		p := &s.Points[i]
		fmt.Fprintf(&b, "%s# The closest point\n\n", h)
		rerun := pointCommand(p)
		fmt.Fprintf(&b, "%s, rule %s, mean rate %g/s per source, alpha %g, rates capped at %g× the mean, timeout %s (%s):\n\n",
			escape.Markdown(p.Algorithm), escape.Markdown(p.Rule), p.Rate, p.Alpha, p.Max, escape.Markdown(blockName(p.Block)),
			markup.MarkdownCode(escape.ShellCommand(rerun...), false))
		var c *summary.SearchPoint // the closest point rerun with more sources, if it was
		if s.Check != nil && len(s.Check.Points) == 1 && s.Check.Points[0].SameSetting(p) {
			c = &s.Check.Points[0]
		}
		head, rule := fmt.Sprintf("| figure | Cloudflare | this point | at 270,000 sources (×%g) |", s.Scale), "|---|---|---|---|"
		cell := func(f func(q *summary.SearchPoint, scale float64) string) string {
			if c == nil {
				return ""
			}
			return " " + f(c, s.Check.Scale) + " |"
		}
		if c != nil {
			head += fmt.Sprintf(" rerun: %s requests, %s sources | at 270,000 sources (×%g) |", numfmt.Count(s.Check.Requests), numfmt.Count(int64(s.Check.Sources)), s.Check.Scale)
			rule += "---|---|"
		}
		fmt.Fprintf(&b, "%s\n%s\n", head, rule)
		fmt.Fprintf(&b, "| requests decided differently | %s | %s | %s |%s%s\n", numfmt.Percent(cfDisagreeRate), numfmt.Percent(p.DisagreeRate), numfmt.Percent(p.DisagreeRate),
			cell(func(q *summary.SearchPoint, _ float64) string { return numfmt.Percent(q.DisagreeRate) }), cell(func(q *summary.SearchPoint, _ float64) string { return numfmt.Percent(q.DisagreeRate) }))
		fmt.Fprintf(&b, "| refused, the log admitted (false positives) | 0 | %s, %s | ≈%s requests, ≈%s sources |%s%s\n",
			plural(p.Under, "request", "requests"), plural(p.KeysUnder, "source", "sources"), scaled(p.Under, s.Scale), scaled(p.KeysUnder, s.Scale),
			cell(func(q *summary.SearchPoint, _ float64) string {
				return plural(q.Under, "request", "requests") + ", " + plural(q.KeysUnder, "source", "sources")
			}),
			cell(func(q *summary.SearchPoint, k float64) string {
				return "≈" + scaled(q.Under, k) + " requests, ≈" + scaled(q.KeysUnder, k) + " sources"
			}))
		fmt.Fprintf(&b, "| sources let through | %d, slightly above | %s (worst burst %.3g× L) | ≈%s |%s%s\n", cfSourcesOver, numfmt.Count(p.KeysOver), p.BurstRatio, scaled(p.KeysOver, s.Scale),
			cell(func(q *summary.SearchPoint, _ float64) string {
				return fmt.Sprintf("%s (worst burst %.3g× L)", numfmt.Count(q.KeysOver), q.BurstRatio)
			}),
			cell(func(q *summary.SearchPoint, k float64) string { return "≈" + scaled(q.KeysOver, k) }))
		fmt.Fprintf(&b, "| mean gap, approximate vs real rate | %s | %s | %s |%s%s\n\n", numfmt.Percent(cfMeanGap), numfmt.Percent(p.MeanGap), numfmt.Percent(p.MeanGap),
			cell(func(q *summary.SearchPoint, _ float64) string { return numfmt.Percent(q.MeanGap) }), cell(func(q *summary.SearchPoint, _ float64) string { return numfmt.Percent(q.MeanGap) }))
		if c != nil {
			fmt.Fprintf(&b, "The rerun holds %g times the sources of a point: its figures are the closer to what the full scale would give. "+
				"Where it and the point differ, the point's few sources near the threshold were a lucky (or unlucky) draw.\n\n", s.Scale/s.Check.Scale)
		}
		b.WriteString(fullScale(s, h))
	}
	fmt.Fprintf(&b, "![disagreement rate over the searched space](%s)\n\n", plotDir+searchPlot)
	fmt.Fprintf(&b, "Every point's requests decided differently (a point with none sits on the bottom edge) against, left, how far the "+
		"population's rates reach (the cap on a source's mean rate, as a share of the threshold's rate); middle, its mean gap, the "+
		"published pair ringed; right, the share of its requests from sources whose mean count per window is at least L/2. "+
		"The dashed line is the published 0.003%%.\n\n")
	arg, err := searchArgument(s, h)
	if err != nil {
		return err
	}
	b.WriteString(arg)
	fmt.Fprintf(&b, "%s# Every point\n\n", h)
	fmt.Fprintf(&b, "Load: a source's mean count per window ÷ L, averaged over requests. Near L: the share of requests from sources whose mean "+
		"count per window is at least L/2. Counts are of this point's sources, not scaled.\n\n")
	fmt.Fprintf(&b, "| counter | rule | rate /s | alpha | max | timeout | load | near L | decided differently | let through | refused | sources let through | sources refused | worst burst ÷ L | mean gap |\n")
	fmt.Fprintf(&b, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, p := range s.Points {
		fmt.Fprintf(&b, "| %s | %s | %g | %g | %g | %s | %.3g | %s | %s | %s | %s | %s | %s | %.3g | %s |\n",
			p.Algorithm, p.Rule, p.Rate, p.Alpha, p.Max, blockName(p.Block), p.Load, numfmt.Percent(p.NearShare), numfmt.Percent(p.DisagreeRate),
			numfmt.Count(p.Over), numfmt.Count(p.Under), numfmt.Count(p.KeysOver), numfmt.Count(p.KeysUnder), p.BurstRatio, numfmt.Percent(p.MeanGap))
	}
	_, err = io.WriteString(w, b.String())
	return err
}

// pointCommand is the command that replays the point p alone (at the
// search's default population; add -requests and -sources for another).
func pointCommand(p *summary.SearchPoint) []string {
	c := []string{"ratebench", "cloudflare", "-rule", p.Rule, "-rate", fmt.Sprintf("%g", p.Rate), "-alpha", fmt.Sprintf("%g", p.Alpha),
		"-max", fmt.Sprintf("%g", p.Max), "-block", blockFlag(p.Block)}
	if p.Algorithm != "counter" {
		c = append(c, "-search", "alg="+p.Algorithm)
	}
	return c
}

func blockFlag(b string) string {
	if b == "" {
		return "0"
	}
	return b
}

// scaled formats n × scale, rounded.
func scaled(n int64, scale float64) string {
	return numfmt.Count(int64(math.Round(float64(n) * scale)))
}

func distinctRates(s *summary.CloudflareSearch) []float64 {
	var out []float64
	for _, p := range s.Points {
		found := false
		for _, r := range out {
			found = found || r == p.Rate
		}
		if !found {
			out = append(out, p.Rate)
		}
	}
	return out
}

// reachOf is how far a point's population reaches: the cap on a source's
// mean rate as a share of the threshold's rate L/W (0 for a rule it cannot
// read).
func reachOf(p *summary.SearchPoint) float64 {
	w, l, ok := ruleParts(p.Rule)
	if !ok {
		return 0
	}
	return p.Max * p.Rate * w / l
}

// ruleParts returns the window in seconds and the limit of a rule "L/W".
func ruleParts(rule string) (w, l float64, ok bool) {
	r, err := algorithms.ParseRule(rule)
	if err != nil {
		return 0, 0, false
	}
	return float64(r.W) / 1e9, float64(r.L), true
}
