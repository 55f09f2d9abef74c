package plotkit

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"ratebench/internal/escape"
)

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

// PointLabels writes a label beside each point, touching it: for each the
// first of eight places around its own point (right, left, above, below,
// then the corners) that overlaps no label placed before and no point. A
// label with no such place is left out rather than drawn away from its
// point or over another (the legend names every point). Points at the same
// place are to be given one label naming them all.
type PointLabels struct {
	Xs, Ys []float64
	Texts  []string
}

// LabelPlace is where a label is drawn: Rect is its box, next to Anchor,
// the position of its own point.
type LabelPlace struct {
	Index  int // of the point and its text
	Anchor vg.Point
	Rect   vg.Rectangle
}

// labelGap is the distance from a point to the nearest edge of its label.
const labelGap = vg.Length(5)

// LayoutLabels places the labels of sizes sizes at the points pts within
// bounds, each at the first place next to its own point that overlaps no
// other label and no point (a square of radius r around each); a label
// with no such place is not in the result.
func LayoutLabels(pts []vg.Point, sizes []vg.Point, r vg.Length, bounds vg.Rectangle) []LabelPlace {
	var taken []vg.Rectangle
	for _, pt := range pts {
		taken = append(taken, vg.Rectangle{Min: vg.Point{X: pt.X - r, Y: pt.Y - r}, Max: vg.Point{X: pt.X + r, Y: pt.Y + r}})
	}
	var out []LabelPlace
	for i, pt := range pts {
		w, h := sizes[i].X, sizes[i].Y
		gap := labelGap
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
		for _, at := range cands {
			rect := vg.Rectangle{Min: at, Max: vg.Point{X: at.X + w, Y: at.Y + h}}
			if rect.Min.X < bounds.Min.X || rect.Max.X > bounds.Max.X || rect.Min.Y < bounds.Min.Y || rect.Max.Y > bounds.Max.Y {
				continue
			}
			if overlapsAny(rect, taken) {
				continue
			}
			taken = append(taken, rect)
			out = append(out, LabelPlace{Index: i, Anchor: pt, Rect: rect})
			break
		}
	}
	return out
}

func (l *PointLabels) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	sty := TextStyle(8.5)
	pts := make([]vg.Point, len(l.Xs))
	sizes := make([]vg.Point, len(l.Xs))
	texts := make([]string, len(l.Xs))
	for i := range l.Xs {
		pts[i] = vg.Point{X: trX(l.Xs[i]), Y: trY(l.Ys[i])}
		texts[i] = clip(escape.Visible(l.Texts[i]), maxLabelRunes)
		sizes[i] = vg.Point{X: sty.Width(texts[i]), Y: sty.Height(texts[i])}
	}
	desc := sty.FontExtents().Descent
	for _, pl := range LayoutLabels(pts, sizes, vg.Points(3.5), c.Rectangle) {
		c.FillText(sty, vg.Point{X: pl.Rect.Min.X, Y: pl.Rect.Min.Y + desc}, texts[pl.Index])
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
