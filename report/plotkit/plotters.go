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
