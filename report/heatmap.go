package report

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"ratebench/internal/numfmt"
	"ratebench/report/markup"
	"ratebench/report/plotkit"
	"ratebench/summary"
)

// heatmapFig is the first screen's chart with several rules: per
// algorithm (a row) and rule (a column), on each rule's decision basis
// (its first: count accepted, independent mode, where run), the share of
// the log's refusals let through, of its admissions refused, and the
// memory per key, each a panel of coloured cells that print their value.
func (m *model) heatmapFig() (*plotkit.Figure, string) {
	var algs []string
	for _, a := range m.s.Config.Algorithms {
		if a != "log" {
			algs = append(algs, a)
		}
	}
	if len(algs) == 0 || len(m.rules) == 0 {
		return nil, ""
	}
	nr, na := len(m.rules), len(algs)
	over, under, mem := grid(na, nr), grid(na, nr), grid(na, nr)
	overT, underT, memT := labels(na, nr), labels(na, nr), labels(na, nr)
	memHi := 0.0
	count, mode := "", ""
	for j, rule := range m.rules {
		bases, _ := m.decisionBases(rule)
		if len(bases) == 0 {
			continue
		}
		g := bases[0]
		count, mode = g.count, g.mode
		for i, a := range algs {
			var r *summary.Run
			for _, x := range g.runs {
				if x.Algorithm == a {
					r = x
				}
			}
			if r == nil {
				continue
			}
			if r.OverOfRefused != nil {
				over[i][j], overT[i][j] = *r.OverOfRefused, numfmt.Percent(*r.OverOfRefused)
			} else if r.LogRefused != nil {
				overT[i][j] = "—" // the log refuses nothing here
			}
			if r.UnderOfAdmitted != nil {
				under[i][j], underT[i][j] = *r.UnderOfAdmitted, numfmt.Percent(*r.UnderOfAdmitted)
			}
			mem[i][j], memT[i][j] = float64(r.Memory.PeakPerKey), bytesPerKey(r.Memory.PeakPerKey)
			memHi = math.Max(memHi, mem[i][j])
		}
	}
	panel := func(title string, vals [][]float64, text [][]string, hot color.RGBA, hi float64) *plot.Plot {
		p := plotkit.NewPanel(title, "rule", "")
		p.Add(&heatCells{vals: vals, text: text, hot: hot, hi: hi})
		plotkit.CategoryAxis(&p.Y, algs)
		ticks := make([]plot.Tick, nr)
		for j, r := range m.rules {
			ticks[j] = plot.Tick{Value: float64(j), Label: r}
		}
		p.X.Tick.Marker = plot.ConstantTicks(ticks)
		p.X.Min, p.X.Max = -0.5, float64(nr)-0.5
		return p
	}
	// Memory per key is one figure per algorithm where every rule gives
	// it the same: then it goes with the algorithm's name, else in a
	// panel of its own.
	rowNames := make([]string, na)
	sameMem := true
	for i, a := range algs {
		rowNames[i] = a
		for j := range mem[i] {
			sameMem = sameMem && mem[i][j] == mem[i][0]
		}
	}
	if sameMem {
		for i := range rowNames {
			rowNames[i] += " · " + memT[i][0]
		}
	}
	algs = rowNames
	panels := []*plot.Plot{
		panel("let through (of the log's refusals)", over, overT, plotkit.OverColor, 1),
		panel("refused (of the log's admissions)", under, underT, plotkit.UnderColor, 1),
	}
	what := "the most one key held is beside each algorithm's name"
	if !sameMem {
		panels = append(panels, panel("memory per key", mem, memT, memoryColor, memHi))
		what = "the last panel is the most one key held"
	}
	var rows [][]*plot.Plot
	if nr <= 4 && len(panels) == 2 { // side by side while the cells stay readable
		rows = [][]*plot.Plot{panels}
	} else {
		for _, p := range panels {
			rows = append(rows, []*plot.Plot{p})
		}
	}
	h := vg.Length(len(rows)) * (vg.Length(1.1)*vg.Inch + vg.Length(na)*0.3*vg.Inch)
	return &plotkit.Figure{
		Name:    "answer",
		Title:   "What each algorithm gives up at each rule, in the log's own terms\ncount " + count + ", mode " + mode,
		Alt:     "per algorithm and rule, the share of the log's refusals let through, of its admissions refused, and memory per key",
		Caption: markup.Textf("Per algorithm (a row) and rule (a column), on each rule's %s-mode runs under count %s: the share of the requests the exact log refuses that the algorithm lets through, and of those it admits that the algorithm refuses (the darker, the more: full colour at 100%%); %s. A dash: the log refuses nothing at that rule, so there is nothing to let through.", mode, count, what),
		Panels:  rows,
		W:       figWidth, H: max(h+0.6*vg.Inch, 3*vg.Inch),
	}, ""
}

func grid(n, m int) [][]float64 {
	out := make([][]float64, n)
	for i := range out {
		out[i] = make([]float64, m)
	}
	return out
}

func labels(n, m int) [][]string {
	out := make([][]string, n)
	for i := range out {
		out[i] = make([]string, m)
	}
	return out
}

// heatCells draws a grid of cells, row i (the first on top, as
// CategoryAxis) and column j at x = j, each shaded from white (0) to hot
// (hi) and printing its text; a cell without text is left blank.
type heatCells struct {
	vals [][]float64
	text [][]string
	hot  color.RGBA
	hi   float64
}

func (h *heatCells) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	n := len(h.vals)
	sty := plotkit.TextStyle(7.5)
	sty.XAlign, sty.YAlign = draw.XCenter, draw.YCenter
	for i, row := range h.vals {
		y := float64(n - 1 - i)
		for j, v := range row {
			if h.text[i][j] == "" {
				continue
			}
			f := 0.0
			if h.hi > 0 {
				f = math.Min(1, math.Max(0, plotkit.Finite(v)/h.hi))
			}
			if f > 0 {
				f = 0.12 + 0.88*f // a share above 0 is never white
			}
			shade := color.RGBA{mix(h.hot.R, f), mix(h.hot.G, f), mix(h.hot.B, f), 0xff}
			x0, x1 := trX(float64(j)-0.48), trX(float64(j)+0.48)
			y0, y1 := trY(y-0.46), trY(y+0.46)
			c.FillPolygon(shade, []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}})
			sty.Color = color.Black
			if f > 0.6 {
				sty.Color = color.White
			}
			c.FillText(sty, vg.Point{X: trX(float64(j)), Y: trY(y)}, h.text[i][j])
		}
	}
}

// mix is the channel c of a colour at strength f over white.
func mix(c uint8, f float64) uint8 { return uint8(math.Round(255 - f*(255-float64(c)))) }
