package report

import (
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"ratebench/internal/numfmt"
	"ratebench/report/markup"
	"ratebench/report/plotkit"
	"ratebench/summary"
)

// heatmapFig is the first screen's chart with several rules: per
// algorithm (a row, the exact log's first) and rule (a column), on each
// rule's decision basis (its first: count accepted, independent mode,
// where run), the share of all requests the algorithm decides otherwise
// than the exact log, the verdict's first figure. The cells are coloured
// on a logarithmic scale (heatScale), a step of colour a factor of ten,
// so that 0.0065% and 0.287% differ at a glance; 0, exact, has a colour
// of its own. The verdict's choice at each rule is outlined. Memory per
// key goes with the algorithm's name where every rule gives it the same,
// else under each cell's share.
func (m *model) heatmapFig() (*plotkit.Figure, string) {
	var algs []string
	for _, a := range m.s.Config.Algorithms {
		if !slices.Contains(algs, a) {
			algs = append(algs, a)
		}
	}
	if i := slices.Index(algs, "log"); i > 0 { // the reference on top
		algs = append(append([]string{"log"}, algs[:i]...), algs[i+1:]...)
	}
	if len(algs) == 0 || len(m.rules) == 0 {
		return nil, ""
	}
	nr, na := len(m.rules), len(algs)
	cells := make([][]heatCell, na)
	for i := range cells {
		cells[i] = make([]heatCell, nr)
	}
	var shares []float64
	count, mode := "", ""
	for j, rule := range m.rules {
		bases, _ := m.decisionBases(rule)
		if len(bases) == 0 {
			continue
		}
		g := bases[0]
		count, mode = g.count, g.mode
		v := m.ruleVerdict(g)
		for i, a := range algs {
			r := g.runOf(a)
			if r == nil {
				continue
			}
			c := &cells[i][j]
			c.run, c.share, c.text = true, plotkit.Finite(r.DisagreeRate), numfmt.Rate(r.DisagreeRate)
			if a == "log" {
				c.text = "exact"
			}
			c.mem, c.chosen = r.Memory.PeakPerKey, v != nil && v.Outcome == summary.OutcomeChoice && v.Choice == a
			shares = append(shares, c.share)
		}
	}
	scale := newHeatScale(shares)
	// Memory per key is one figure per algorithm where every rule gives
	// it the same: then it goes with the algorithm's name, else under
	// each cell's share.
	rowNames := make([]string, na)
	sameMem := true
	for i, a := range algs {
		rowNames[i] = a
		first := int64(-1)
		for _, c := range cells[i] {
			if !c.run {
				continue
			}
			if first >= 0 && c.mem != first {
				sameMem = false
			}
			if first < 0 {
				first = c.mem
			}
		}
		if first >= 0 {
			rowNames[i] += " · " + bytesPerKey(first)
		}
	}
	if !sameMem {
		rowNames = algs
		for i := range cells {
			for j := range cells[i] {
				if c := &cells[i][j]; c.run {
					c.text += "\n" + bytesPerKey(c.mem)
				}
			}
		}
	}
	p := plotkit.NewPanel("", "rule", "")
	p.Add(&heatCells{cells: cells, scale: scale})
	plotkit.CategoryAxis(&p.Y, rowNames)
	ticks := make([]plot.Tick, nr)
	for j, r := range m.rules {
		ticks[j] = plot.Tick{Value: float64(j), Label: r}
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.X.Min, p.X.Max = -0.5, float64(nr)-0.5
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Tick.Label.Font.Size = 10
	}

	memWhere := "the most one key held is beside each algorithm's name"
	rowH := 0.34 * vg.Inch
	if !sameMem {
		memWhere = "under each share, the most one key held"
		rowH = 0.46 * vg.Inch
	}
	h := 1.2*vg.Inch + vg.Length(na)*rowH
	return &plotkit.Figure{
		Name:  "answer",
		Title: "Requests each algorithm decides otherwise than the exact log, at each rule\ncount " + count + ", mode " + mode,
		Alt:   "per algorithm and rule, the share of all requests decided otherwise than the exact log, on a logarithmic colour scale, the verdict's choice outlined",
		Caption: markup.Textf("Per algorithm (a row) and rule (a column), on each rule's %s-mode runs under count %s: the share of all requests the algorithm decides otherwise than the exact log, "+
			"the verdict's first figure. The colour is on a logarithmic scale, a step of colour for each factor of ten (the key on the right); 0, decided exactly as the log, has a colour of its own. "+
			"The verdict's choice at each rule is outlined; %s.", mode, count, memWhere),
		Panels: [][]*plot.Plot{{p}},
		Legend: scale.legend(),
		W:      figWidth, H: max(h, 3*vg.Inch),
	}, ""
}

// heatCell is one cell of the heat map: an algorithm's run at a rule.
type heatCell struct {
	run    bool // false: the algorithm was not run at that rule (a blank cell)
	share  float64
	text   string
	mem    int64
	chosen bool
}

// heatScale colours a share on a logarithmic scale: from lo (the decade
// at or below the smallest share above 0) to hi (the decade at or above
// the largest), along a ramp from pale yellow to dark red; 0 in a green
// of its own, off the ramp.
type heatScale struct {
	lo, hi float64 // powers of ten; lo == 0 when no share is above 0
}

// heatRamp is the ramp of heatScale, ColorBrewer's YlOrRd, evenly spaced
// over log10 from lo to hi.
var heatRamp = []color.RGBA{{0xff, 0xff, 0xb2, 0xff}, {0xfe, 0xcc, 0x5c, 0xff}, {0xfd, 0x8d, 0x3c, 0xff}, {0xf0, 0x3b, 0x20, 0xff}, {0xbd, 0x00, 0x26, 0xff}}

// heatZero is the colour of a share of 0.
var heatZero = color.RGBA{0xb8, 0xe0, 0xc4, 0xff}

func newHeatScale(shares []float64) heatScale {
	lo, hi := math.Inf(1), 0.0
	for _, v := range shares {
		if v > 0 {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	if hi == 0 {
		return heatScale{}
	}
	s := heatScale{lo: math.Pow(10, math.Floor(math.Log10(lo))), hi: math.Pow(10, math.Ceil(math.Log10(hi)))}
	if s.hi <= s.lo {
		s.hi = s.lo * 10
	}
	return s
}

// at is where v lies on the ramp, 0 to 1; -1 for a share of 0.
func (s heatScale) at(v float64) float64 {
	if !(v > 0) || s.lo == 0 {
		return -1
	}
	t := (math.Log10(v) - math.Log10(s.lo)) / (math.Log10(s.hi) - math.Log10(s.lo))
	return math.Min(1, math.Max(0, t))
}

// color is the colour of the share v.
func (s heatScale) color(v float64) color.RGBA {
	t := s.at(v)
	if t < 0 {
		return heatZero
	}
	f := t * float64(len(heatRamp)-1)
	i := min(int(f), len(heatRamp)-2)
	f -= float64(i)
	a, b := heatRamp[i], heatRamp[i+1]
	mixc := func(x, y uint8) uint8 { return uint8(math.Round(float64(x) + f*(float64(y)-float64(x)))) }
	return color.RGBA{mixc(a.R, b.R), mixc(a.G, b.G), mixc(a.B, b.B), 0xff}
}

// dark tells whether text on v's colour is to be white.
func (s heatScale) dark(v float64) bool { return s.at(v) > 0.7 }

// legend is the scale's key: 0, then each power of ten from lo to hi,
// and the outline of the verdict's choice.
func (s heatScale) legend() []plotkit.LegendEntry {
	out := []plotkit.LegendEntry{{Name: "0: exact", Thumbs: []plot.Thumbnailer{swatch{fill: heatZero}}}}
	if s.lo > 0 {
		for v := s.lo; v <= s.hi*(1+1e-9); v *= 10 {
			out = append(out, plotkit.LegendEntry{Name: numfmt.ShortPercent(v), Thumbs: []plot.Thumbnailer{swatch{fill: s.color(v)}}})
		}
	}
	return append(out, plotkit.LegendEntry{Name: "the verdict's choice", Thumbs: []plot.Thumbnailer{swatch{fill: color.White, outline: true}}})
}

// swatch is a legend's square of a colour, or of the choice's outline.
type swatch struct {
	fill    color.Color
	outline bool
}

func (w swatch) Thumbnail(c *draw.Canvas) {
	pts := []vg.Point{c.Min, {X: c.Max.X, Y: c.Min.Y}, c.Max, {X: c.Min.X, Y: c.Max.Y}}
	c.FillPolygon(w.fill, pts)
	line := draw.LineStyle{Color: color.Gray{Y: 200}, Width: vg.Points(0.5)}
	if w.outline {
		line = choiceOutline
	}
	c.StrokeLines(line, append(pts, pts[0]))
}

// choiceOutline outlines the verdict's choice.
var choiceOutline = draw.LineStyle{Color: color.Black, Width: vg.Points(2.2)}

// heatCells draws the heat map's cells, row i (the first on top, as
// CategoryAxis) and column j at x = j, each in its share's colour and
// printing its text; a cell of no run is left blank.
type heatCells struct {
	cells [][]heatCell
	scale heatScale
}

func (h *heatCells) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	n := len(h.cells)
	sty := plotkit.TextStyle(9)
	sty.XAlign, sty.YAlign = draw.XCenter, draw.YCenter
	for i, row := range h.cells {
		y := float64(n - 1 - i)
		for j, cell := range row {
			if !cell.run {
				continue
			}
			x0, x1 := trX(float64(j)-0.47), trX(float64(j)+0.47)
			y0, y1 := trY(y-0.45), trY(y+0.45)
			box := []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}}
			c.FillPolygon(h.scale.color(cell.share), box)
			if cell.chosen {
				c.StrokeLines(choiceOutline, append(box, box[0]))
			}
			sty.Color = color.Black
			if h.scale.dark(cell.share) {
				sty.Color = color.White
			}
			c.FillText(sty, vg.Point{X: trX(float64(j)), Y: trY(y)}, cell.text)
		}
	}
}
