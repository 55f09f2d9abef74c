// Package plotkit is the plotting plumbing of ratebench's pages, over
// gonum/plot: a Figure (a title, panels and a legend outside them) drawn
// to SVG or PNG at a size its content needs within bounds, its geometry
// checked before anything is drawn; one style per algorithm, the same in
// every plot; ticks that label round values; and the plotters the pages
// need beyond gonum's (bars per category, reference lines, point labels,
// notes).
package plotkit

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"image/color"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"ratebench/internal/escape"
	"ratebench/report/markup"
)

// PNGDPI is the resolution of the PNG copies of the plots.
const PNGDPI = 144

// Every plot's text is in Liberation Sans, a sans-serif font that gonum
// embeds in the program, so that a PNG draws alike on every machine (an
// SVG names it, for the browser's font or its sans-serif fallback).
func init() {
	plot.DefaultFont = font.Font{Typeface: "Liberation", Variant: "Sans"}
	plotter.DefaultFont = plot.DefaultFont
}

// Figure is one plot file: a title over one or more panels (rows × cols
// of gonum plots) and a legend on the right, outside the panels so that it
// never hides data.
type Figure struct {
	Name    string // file name without extension
	Title   string // may hold a newline
	Alt     string // one-line description for Markdown
	Caption markup.Inline
	Panels  [][]*plot.Plot
	Legend  []LegendEntry
	W, H    vg.Length
}

type LegendEntry struct {
	Name   string
	Thumbs []plot.Thumbnailer
}

// Render draws the figure as "svg" or "png", at the size its content
// needs within bounds (see size). gonum/plot panics on some inputs (a log
// axis over non-positive values, for one); render turns a panic into an
// error, so a strange summary never crashes the report.
func (f *Figure) Render(format string) (out []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, &Unplottable{f.Name, fmt.Sprint(r)}
		}
	}()
	if format != "svg" && format != "png" {
		return nil, fmt.Errorf("plot %s: unknown format %q", f.Name, format)
	}
	w, h, err := f.Size()
	if err != nil {
		return nil, err
	}
	var inner vg.CanvasWriterTo
	if format == "svg" {
		inner = vgsvg.New(w, h)
	} else {
		inner = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(PNGDPI))}
	}
	c := &finiteCanvas{CanvasWriterTo: inner}
	dc := draw.New(c)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())

	l := f.arrange(dc)
	if l.Title != "" {
		dc.FillText(l.titleSty, l.titleAt, l.Title)
	}
	if l.Legend != nil {
		l.Legend.Draw(l.legendC)
	}
	for j, row := range f.Panels {
		for i, p := range row {
			if p != nil {
				p.Draw(l.Panels[j][i])
			}
		}
	}
	if c.dropped > 0 {
		return nil, &Unplottable{f.Name, fmt.Sprintf("%d of its shapes have coordinates that are not numbers", c.dropped)}
	}
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, err
	}
	if format == "svg" { // a browser without Liberation Sans takes another sans-serif
		return bytes.ReplaceAll(buf.Bytes(), []byte("font-family:Liberation Sans;"), []byte("font-family:'Liberation Sans',Arial,Helvetica,sans-serif;")), nil
	}
	return buf.Bytes(), nil
}

// arrangement is where a figure's parts go on a canvas: the title on top,
// the legend on the right, the panels in the rest (body).
type arrangement struct {
	fig          *Figure
	Title        string
	titleSty     text.Style
	titleAt      vg.Point
	Legend       *plot.Legend // nil for none
	legendC      draw.Canvas
	legendHeight vg.Length
	body         draw.Canvas
	Panels       [][]draw.Canvas
}

// arrange places the figure's parts on dc. Legend entries and the title's
// lines are cut to a bounded length; on a canvas of the largest height,
// the legend entries that do not fit are left out, counted in a last one.
func (f *Figure) arrange(dc draw.Canvas) *arrangement {
	l := &arrangement{fig: f, Title: clipLines(f.Title, maxTitleRunes)}
	pad := vg.Points(6)
	l.titleSty = TextStyle(12)
	l.titleSty.XAlign = draw.XCenter
	l.titleSty.YAlign = draw.YTop
	body := draw.Crop(dc, pad, -pad, pad, -pad)
	if l.Title != "" {
		l.titleAt = vg.Point{X: dc.Center().X, Y: dc.Max.Y - pad}
		body = draw.Crop(body, 0, 0, 0, -(l.titleSty.Height(l.Title) + pad))
	}

	if len(f.Legend) > 0 {
		names := make([]string, len(f.Legend))
		for i, e := range f.Legend {
			names[i] = clip(escape.Visible(e.Name), maxLegendRunes)
		}
		leg := newLegend(f.Legend, names, len(f.Legend))
		room := body.Size().Y - pad
		if dc.Size().Y >= MaxFigureSide {
			for n := len(f.Legend) - 1; n > 0 && legendHeight(leg) > room; n-- {
				leg = newLegend(f.Legend, names, n)
			}
		}
		l.Legend, l.legendHeight = leg, legendHeight(leg)
		lw := leg.Rectangle(body).Size().X + pad
		l.legendC = draw.Crop(body, body.Size().X-lw, 0, 0, -pad)
		body = draw.Crop(body, 0, -(lw + 2*pad), 0, 0)
	}
	l.body = body

	rows, cols := len(f.Panels), len(f.Panels[0])
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Points(14), PadY: vg.Points(12)}
	l.Panels = plot.Align(f.Panels, tiles, body)
	return l
}

// newLegend is the legend of the first n of entries (named names), and,
// when that leaves some out, a last line that counts them.
func newLegend(entries []LegendEntry, names []string, n int) *plot.Legend {
	leg := new(plot.NewLegend())
	leg.TextStyle = TextStyle(10)
	leg.Top, leg.Left = true, true
	leg.ThumbnailWidth = vg.Points(18)
	leg.Padding = vg.Points(2)
	for i, e := range entries[:n] {
		leg.Add(names[i], e.Thumbs...)
	}
	if n < len(entries) {
		leg.Add(fmt.Sprintf("… and %d more (in the tables)", len(entries)-n))
	}
	return leg
}

func legendHeight(leg *plot.Legend) vg.Length {
	return leg.Rectangle(draw.Canvas{}).Size().Y
}

func TextStyle(size vg.Length) text.Style {
	return text.Style{
		Color:   color.Black,
		Font:    font.From(plot.DefaultFont, size),
		Handler: plot.DefaultTextHandler,
	}
}

// NewPanel returns a plot with labelled axes and a grid.
func NewPanel(title, xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = 11
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	p.X.Label.TextStyle.Font.Size = 10.5
	p.Y.Label.TextStyle.Font.Size = 10.5
	p.X.Tick.Label.Font.Size = 9
	p.Y.Tick.Label.Font.Size = 9
	p.X.Tick.Marker = LinearTicks{}
	p.Y.Tick.Marker = LinearTicks{}
	g := plotter.NewGrid()
	g.Vertical.Color = color.Gray{Y: 225}
	g.Horizontal.Color = color.Gray{Y: 225}
	p.Add(g)
	return p
}

// ---- colours and styles ----

// Palette is Tableau 10, one colour per candidate algorithm; the log is
// black.
var Palette = []color.RGBA{
	{0x4e, 0x79, 0xa7, 0xff}, {0xf2, 0x8e, 0x2b, 0xff}, {0xe1, 0x57, 0x59, 0xff}, {0x76, 0xb7, 0xb2, 0xff},
	{0x59, 0xa1, 0x4f, 0xff}, {0xed, 0xc9, 0x48, 0xff}, {0xb0, 0x7a, 0xa1, 0xff}, {0xff, 0x9d, 0xa7, 0xff},
	{0x9c, 0x75, 0x5f, 0xff}, {0xba, 0xb0, 0xac, 0xff},
}

var (
	OverColor  = color.RGBA{0xd6, 0x27, 0x28, 0xff} // let through: red
	UnderColor = color.RGBA{0x1f, 0x77, 0xb4, 0xff} // refused: blue
)

var Shapes = []draw.GlyphDrawer{
	draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.PyramidGlyph{},
	draw.CrossGlyph{}, draw.PlusGlyph{}, draw.BoxGlyph{}, draw.RingGlyph{},
}

// Style is how one algorithm is drawn in every plot.
type Style struct {
	Color  color.Color
	Dashes []vg.Length
	Shape  draw.GlyphDrawer
}

func (st Style) Line() draw.LineStyle {
	return draw.LineStyle{Color: st.Color, Width: vg.Points(1.5), Dashes: st.Dashes}
}

func (st Style) Glyph() draw.GlyphStyle {
	return draw.GlyphStyle{Color: st.Color, Radius: vg.Points(3), Shape: st.Shape}
}

// KnownAlgorithms fixes the style of the known algorithms, in this order, so
// that an algorithm has the same colour in every plot of every report
// whatever else was run: the default candidates first, then the others.
var KnownAlgorithms = []string{"counter", "counter-lt", "counter-floor", "fixed", "token", "gcra", "buckets:4", "leaky", "xrate", "buckets:2"}

// StyleOf is how alg is drawn in every plot: a fixed style for the known
// algorithms and, for any other (buckets:16, token:B=3), a style drawn
// from a hash of its name, dashed so as not to be mistaken for a known
// one, and the same in every report.
func StyleOf(alg string) Style {
	if i := slices.Index(KnownAlgorithms, alg); i >= 0 {
		return StyleFor(alg, i)
	}
	h := fnv.New32a()
	h.Write([]byte(alg))
	return StyleFor(alg, len(Palette)+int(h.Sum32()%uint32(2*len(Palette))))
}

// StyleFor gives the i-th candidate (0-based, the log excluded) its style.
func StyleFor(alg string, i int) Style {
	if alg == "log" {
		return Style{Color: color.Black, Shape: draw.BoxGlyph{}}
	}
	st := Style{Color: Palette[i%len(Palette)], Shape: Shapes[i%len(Shapes)]}
	switch (i / len(Palette)) % 3 {
	case 1:
		st.Dashes = []vg.Length{vg.Points(5), vg.Points(2)}
	case 2:
		st.Dashes = []vg.Length{vg.Points(1.5), vg.Points(1.5)}
	}
	return st
}

// ---- values ----

// Finite replaces NaN and ±Inf (which gonum/plot rejects) with 0.
func Finite(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}

// LineOf returns a line through xys; the caller guarantees finite values.
func LineOf(xys plotter.XYs, st Style) *plotter.Line {
	l := &plotter.Line{XYs: xys, LineStyle: st.Line()}
	return l
}

// LinePoints is a line that also marks its points.
type LinePoints struct {
	*plotter.Line
	*plotter.Scatter
}

func NewLinePoints(xys plotter.XYs, st Style) LinePoints {
	return LinePoints{LineOf(xys, st), &plotter.Scatter{XYs: xys, GlyphStyle: st.Glyph()}}
}

func (lp LinePoints) Plot(c draw.Canvas, p *plot.Plot) {
	lp.Line.Plot(c, p)
	lp.Scatter.Plot(c, p)
}

func (lp LinePoints) Thumbnail(c *draw.Canvas) {
	lp.Line.Thumbnail(c)
	lp.Scatter.Thumbnail(c)
}

// ---- ticks ----

// LogTicks labels 1, 2 and 5 times the powers of ten in a narrow range,
// the powers of ten only in a wide one, with unlabelled minor ticks
// between. Unlike plot.LogTicks it labels at least two ticks however
// narrow the range.
type LogTicks struct{}

func (t LogTicks) Ticks(min, max float64) []plot.Tick {
	if !(min > 0) || !(max > min) || math.IsInf(max, 0) {
		return nil
	}
	lo, hi := math.Floor(math.Log10(min)), math.Ceil(math.Log10(max))
	decades := math.Log10(max / min)
	var ticks []plot.Tick
	labelled := 0
	for e := lo; e <= hi; e++ {
		base := math.Pow(10, e)
		for m := 1; m < 10; m++ {
			v := base * float64(m)
			if v < min*(1-1e-9) || v > max*(1+1e-9) {
				continue
			}
			major := m == 1 || (decades <= 2.5 && (m == 2 || m == 5))
			tk := plot.Tick{Value: v}
			if major {
				tk.Label = FormatTick(v)
				labelled++
			}
			ticks = append(ticks, tk)
		}
	}
	if labelled < 2 {
		for i := range ticks {
			ticks[i].Label = FormatTick(ticks[i].Value)
		}
		if len(ticks) < 2 {
			ticks = append(ticks[:0], plot.Tick{Value: min, Label: FormatTick(min)}, plot.Tick{Value: max, Label: FormatTick(max)})
		}
	}
	return ticks
}

// FormatTick writes a tick value with at most three significant digits.
func FormatTick(v float64) string {
	if v == 0 {
		return "0"
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// LogRange returns a range for a log axis that holds the positive values
// in vs, padded by factor on each side; ok is false when there is none.
func LogRange(vs []float64, factor float64) (lo, hi float64, ok bool) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, v := range vs {
		if v > 0 && !math.IsInf(v, 0) {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	if math.IsInf(lo, 1) {
		return 0, 0, false
	}
	if hi/lo < 3 {
		mid := math.Sqrt(lo * hi)
		lo, hi = math.Min(lo, mid/2), math.Max(hi, mid*2)
	}
	return lo / factor, hi * factor, true
}

// SetLog makes an axis show [lo, hi] on a log scale. gonum's LogScale
// misplaces the axis label (it centres it at the linear midpoint of the
// range), so the axis stays linear and holds log10 of the values: whoever
// plots on it passes log10(v), and the ticks are labelled with v.
func SetLog(a *plot.Axis, lo, hi float64) {
	a.Min, a.Max = math.Log10(lo), math.Log10(hi)
	a.Tick.Marker = log10Ticks{}
}

type log10Ticks struct{}

func (log10Ticks) Ticks(min, max float64) []plot.Tick {
	ts := LogTicks{}.Ticks(math.Pow(10, min), math.Pow(10, max))
	for i := range ts {
		ts[i].Value = math.Log10(ts[i].Value)
	}
	return ts
}

// LinearTicks label 3 to 8 ticks (mostly 4 to 7) at a round step (1, 2, 2.5 or 5 times a
// power of ten; gonum's default gives about three), with at most three
// significant digits and no trailing zeros ("25", not "25.00"), and an
// unlabelled tick halfway between two labelled ones.
type LinearTicks struct{}

func (LinearTicks) Ticks(min, max float64) []plot.Tick {
	span := max - min
	if !(span > 0) || math.IsInf(span, 0) || math.IsNaN(span) {
		return plot.DefaultTicks{}.Ticks(min, max)
	}
	mag := math.Pow(10, math.Floor(math.Log10(span/6)))
	step := 10 * mag
	for _, f := range []float64{1, 2, 2.5, 5, 10} {
		if span/(f*mag) <= 7 {
			step = f * mag
			break
		}
	}
	var ts []plot.Tick
	first := math.Ceil(min/step - 1e-9)
	// At most a few dozen ticks, however far from 0 the range (where k+1
	// may round back to k).
	for i, k := 0, first; k*step <= max+step*1e-9 && i < 64; i, k = i+1, k+1 {
		v := k * step
		if math.Abs(v) < step*1e-9 {
			v = 0
		}
		ts = append(ts, plot.Tick{Value: v, Label: fmtAxis(v)})
		if h := v + step/2; h <= max {
			ts = append(ts, plot.Tick{Value: h})
		}
	}
	if h := first*step - step/2; h >= min {
		ts = append(ts, plot.Tick{Value: h})
	}
	return ts
}

func fmtAxis(v float64) string {
	if math.Abs(v) < 1e-12 {
		return "0"
	}
	if v == math.Trunc(v) && math.Abs(v) < 1e9 {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// ---- custom plotters ----

// HBars draws one horizontal bar per category (category i at y = n-1-i, so
// the first is on top), shifted by offset and width in category units.
// Zero values are marked "0" so that an absent bar is not taken for a
// missing one.
type HBars struct {
	Vals   []float64
	Offset float64
	Width  float64
	Color  color.Color
	Log    bool // the x axis holds log10 (see setLog)
}

func (b *HBars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	n := len(b.Vals)
	base := math.Max(0, p.X.Min)
	if b.Log {
		base = p.X.Min
	}
	zero := TextStyle(8)
	zero.Color = color.Gray{Y: 90}
	zero.YAlign = draw.YCenter
	for i, v := range b.Vals {
		y := float64(n-1-i) + b.Offset
		y0, y1 := trY(y-b.Width/2), trY(y+b.Width/2)
		if !(v > 0) || math.IsInf(v, 0) {
			zero.XAlign = draw.XLeft
			c.FillText(zero, vg.Point{X: trX(base) + vg.Points(2), Y: trY(y)}, "0")
			continue
		}
		if b.Log {
			v = math.Log10(v)
		}
		if v <= base {
			continue
		}
		x0, x1 := trX(base), trX(math.Min(v, p.X.Max))
		pts := []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}}
		c.FillPolygon(b.Color, c.ClipPolygonXY(pts))
	}
}

func (b *HBars) Thumbnail(c *draw.Canvas) {
	pts := []vg.Point{c.Min, {X: c.Max.X, Y: c.Min.Y}, c.Max, {X: c.Min.X, Y: c.Max.Y}}
	c.FillPolygon(b.Color, pts)
}

// CategoryAxis labels the y axis with the names, the first on top.
func CategoryAxis(a *plot.Axis, names []string) {
	n := len(names)
	ticks := make([]plot.Tick, n)
	for i, name := range names {
		ticks[n-1-i] = plot.Tick{Value: float64(n - 1 - i), Label: clip(escape.Visible(name), maxLabelRunes)}
	}
	a.Tick.Marker = plot.ConstantTicks(ticks)
	a.Min, a.Max = -0.6, float64(n)-0.4
}

// RefLine is a vertical reference line at x, or a horizontal one at y.
type RefLine struct {
	X, Y   float64
	Vert   bool
	Style  draw.LineStyle
	Label  string
	LabelR bool
}

func (r *RefLine) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	sty := TextStyle(8.5)
	sty.Color = r.Style.Color
	if r.Vert {
		if r.X < p.X.Min || r.X > p.X.Max {
			return
		}
		x := trX(r.X)
		c.StrokeLine2(r.Style, x, c.Min.Y, x, c.Max.Y)
		if r.Label != "" {
			sty.XAlign = draw.XLeft
			sty.YAlign = draw.YTop
			c.FillText(sty, vg.Point{X: x + vg.Points(3), Y: c.Max.Y - vg.Points(2)}, r.Label)
		}
		return
	}
	if r.Y < p.Y.Min || r.Y > p.Y.Max {
		return
	}
	y := trY(r.Y)
	c.StrokeLine2(r.Style, c.Min.X, y, c.Max.X, y)
	if r.Label != "" {
		sty.XAlign = draw.XRight
		sty.YAlign = draw.YBottom
		c.FillText(sty, vg.Point{X: c.Max.X - vg.Points(2), Y: y + vg.Points(2)}, r.Label)
	}
}

func (r *RefLine) Thumbnail(c *draw.Canvas) {
	y := (c.Min.Y + c.Max.Y) / 2
	c.StrokeLine2(r.Style, c.Min.X, y, c.Max.X, y)
}

// Note writes a line of text in the middle of a panel, e.g. to say that
// it has no data.
type Note struct{ Text string }

func (n Note) Plot(c draw.Canvas, p *plot.Plot) {
	sty := TextStyle(10)
	sty.Color = color.Gray{Y: 80}
	sty.XAlign = draw.XCenter
	sty.YAlign = draw.YCenter
	c.FillText(sty, c.Center(), n.Text)
}

// PointLabels writes a label beside each point, choosing for each the
// first of several places around it that overlaps no label placed before
// and no point; a label with no such place is left out (the legend names
// every point).
type PointLabels struct {
	Xs, Ys []float64
	Texts  []string
}

func (l *PointLabels) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	sty := TextStyle(8.5)
	r := vg.Points(3.5)
	var taken []vg.Rectangle
	pts := make([]vg.Point, len(l.Xs))
	for i := range l.Xs {
		pts[i] = vg.Point{X: trX(l.Xs[i]), Y: trY(l.Ys[i])}
		taken = append(taken, vg.Rectangle{Min: vg.Point{X: pts[i].X - r, Y: pts[i].Y - r}, Max: vg.Point{X: pts[i].X + r, Y: pts[i].Y + r}})
	}
	gap := vg.Points(5)
	for i, txt := range l.Texts {
		txt = clip(escape.Visible(txt), maxLabelRunes)
		w, h := sty.Width(txt), sty.Height(txt)
		pt := pts[i]
		cands := []vg.Point{
			{X: pt.X + gap, Y: pt.Y - h/2},     // right
			{X: pt.X - gap - w, Y: pt.Y - h/2}, // left
			{X: pt.X - w/2, Y: pt.Y + gap},     // above
			{X: pt.X - w/2, Y: pt.Y - gap - h}, // below
			{X: pt.X + gap, Y: pt.Y + gap},     // above right
			{X: pt.X + gap, Y: pt.Y - gap - h}, // below right
			{X: pt.X - gap - w, Y: pt.Y + gap}, // above left
			{X: pt.X - gap - w, Y: pt.Y - gap - h},
		}
		for k := vg.Length(1); k <= 3; k++ { // stacked further above and below
			cands = append(cands,
				vg.Point{X: pt.X + gap, Y: pt.Y + gap + k*h}, vg.Point{X: pt.X + gap, Y: pt.Y - gap - (k+1)*h},
				vg.Point{X: pt.X - gap - w, Y: pt.Y + gap + k*h}, vg.Point{X: pt.X - gap - w, Y: pt.Y - gap - (k+1)*h})
		}
		best := -1
		for k, at := range cands {
			rect := vg.Rectangle{Min: at, Max: vg.Point{X: at.X + w, Y: at.Y + h}}
			if rect.Min.X < c.Min.X || rect.Max.X > c.Max.X || rect.Min.Y < c.Min.Y || rect.Max.Y > c.Max.Y {
				continue
			}
			if !overlapsAny(rect, taken) {
				best = k
				break
			}
		}
		if best < 0 {
			// Every place overlaps a label or a point: no label rather
			// than one over another; the legend names the point.
			continue
		}
		at := cands[best]
		taken = append(taken, vg.Rectangle{Min: at, Max: vg.Point{X: at.X + w, Y: at.Y + h}})
		desc := sty.FontExtents().Descent
		c.FillText(sty, vg.Point{X: at.X, Y: at.Y + desc}, txt)
	}
}

func overlapsAny(r vg.Rectangle, rs []vg.Rectangle) bool {
	for _, o := range rs {
		if r.Min.X < o.Max.X && o.Min.X < r.Max.X && r.Min.Y < o.Max.Y && o.Min.Y < r.Max.Y {
			return true
		}
	}
	return false
}
