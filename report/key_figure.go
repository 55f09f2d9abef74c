package report

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"ratebench/internal/escape"
	"ratebench/report/plotkit"
)

// KeyView is one key's requests over a span of time and what the log and
// each algorithm decided on them, for KeyFigure (ratebench explain).
type KeyView struct {
	Key, Rule   string
	Count, Mode string
	L, W        int64 // the rule (of layered rules, the primary)
	// Origin is the time that the axis shows as 0 (the key's first
	// request); From and To bound the span shown.
	Origin, From, To int64
	Algorithms       []string
	Requests         []KeyRequest
}

// KeyRequest is one request of the key: the log's decision and the cost
// it held in (t-W, t] before it, each algorithm's decision and estimate
// (NaN where it has none).
type KeyRequest struct {
	T, Cost  int64
	Log      bool
	Exact    int64
	Admit    []bool
	Estimate []float64
}

// KeyFigure draws v as "svg" or "png": on top, what each request would
// bring the window's cost to (the log's exact count and the window
// algorithms' estimates, plus the request's cost) against the limit L;
// below, one lane per algorithm, the log's first, with each request
// admitted (a dot) or refused (a cross), the disagreements with the log
// ringed (red: admitted where the log refused; blue: refused where it
// admitted), and the fixed windows' edges dotted.
func KeyFigure(v *KeyView, format string) ([]byte, error) {
	f := keyFigure(v)
	return f.Render(format)
}

func keyFigure(v *KeyView) *plotkit.Figure {
	ax := newKeyAxis(v)
	styles := plotkit.Styles(append([]string{"log"}, v.Algorithms...))[1:]
	top, legend := keyCostPanel(v, ax, styles)
	names := append([]string{"log"}, v.Algorithms...)
	lanes, decisions := keyLanes(v, ax, styles, names)
	legend = append(legend, decisions...)
	if edge := keyWindowEdges(v, ax, top, lanes); edge != nil {
		legend = append(legend, *edge)
	}
	for _, p := range []*plot.Plot{top, lanes} {
		p.X.Min, p.X.Max = ax.min, ax.max
	}
	title := fmt.Sprintf("Key %s, rule %s (count %s, mode %s)", escape.Visible(keyText(v.Key)), escape.Visible(v.Rule), escape.Visible(v.Count), escape.Visible(v.Mode))
	return &plotkit.Figure{
		Name:   "explain",
		Title:  title + "\nits requests and each algorithm's decisions",
		Panels: [][]*plot.Plot{{top}, {lanes}},
		Legend: legend,
		W:      figWidth,
		H:      3*vg.Inch + vg.Length(len(names))*0.45*vg.Inch,
	}
}

// keyAxis is the time axis of a key's figure: x maps a time to the axis
// (in unitName since the origin), min and max bound it, padded by 2%.
type keyAxis struct {
	x        func(t int64) float64
	unitName string
	span     float64
	min, max float64
}

func newKeyAxis(v *KeyView) keyAxis {
	span := float64(v.To - v.From)
	unit, unitName := timeUnit(span)
	x := func(t int64) float64 { return plotkit.Finite(float64(t-v.Origin) / unit) }
	xmin, xmax := x(v.From), x(v.To)
	if !(xmax > xmin) {
		xmin, xmax = xmin-1, xmax+1
	}
	pad := (xmax - xmin) * 0.02
	return keyAxis{x: x, unitName: unitName, span: span, min: xmin - pad, max: xmax + pad}
}

// keyCostPanel is the top panel: what each request would bring the
// window's cost to, the log's exact count and each window algorithm's
// estimate, against L; and its legend.
func keyCostPanel(v *KeyView, ax keyAxis, styles []plotkit.Style) (*plot.Plot, []plotkit.LegendEntry) {
	x := ax.x
	top := plotkit.NewPanel("", "", "cost in (t−W, t] with the request")
	ymax := float64(v.L) + 1
	exact := plotter.XYs{}
	est := make([]plotter.XYs, len(v.Algorithms))
	for _, q := range v.Requests {
		exact = append(exact, plotter.XY{X: x(q.T), Y: float64(q.Exact + q.Cost)})
		ymax = math.Max(ymax, float64(q.Exact+q.Cost))
		for i, e := range q.Estimate {
			if !math.IsNaN(e) && !math.IsInf(e, 0) {
				est[i] = append(est[i], plotter.XY{X: x(q.T), Y: e + float64(q.Cost)})
				ymax = math.Max(ymax, e+float64(q.Cost))
			}
		}
	}
	limit := &plotkit.RefLine{Y: float64(v.L), Style: draw.LineStyle{Color: color.Gray{Y: 90}, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}},
		Label: fmt.Sprintf("L = %d", v.L)}
	top.Add(limit)
	var legend []plotkit.LegendEntry
	logPts := &plotter.Scatter{XYs: exact, GlyphStyle: draw.GlyphStyle{Color: plotkit.StyleOf("log").Color, Radius: vg.Points(3.2), Shape: draw.BoxGlyph{}}}
	top.Add(logPts)
	legend = append(legend, plotkit.LegendEntry{Name: "log (exact)", Thumbs: []plot.Thumbnailer{logPts}})
	for i, xys := range est {
		s := &plotter.Scatter{XYs: xys, GlyphStyle: draw.GlyphStyle{Color: styles[i].Color, Radius: vg.Points(2.6), Shape: draw.CircleGlyph{}}}
		name := v.Algorithms[i]
		if len(xys) > 0 {
			top.Add(s)
		} else {
			name += " (no estimate)"
		}
		legend = append(legend, plotkit.LegendEntry{Name: name, Thumbs: []plot.Thumbnailer{s}})
	}
	top.Y.Min, top.Y.Max = 0, math.Ceil(ymax*1.1)
	return top, legend
}

// keyLanes is the lower panel: one lane per algorithm (names, the log's
// first) with each request admitted (a dot) or refused (a cross), the
// disagreements with the log ringed; and the legend of those marks.
func keyLanes(v *KeyView, ax keyAxis, styles []plotkit.Style, names []string) (*plot.Plot, []plotkit.LegendEntry) {
	lanes := plotkit.NewPanel("", fmt.Sprintf("time since the key's first request (%s)", ax.unitName), "")
	plotkit.CategoryAxis(&lanes.Y, names)
	lanes.Y.Tick.Label.Font.Size = 10
	laneY := func(i int) float64 { return float64(len(names) - 1 - i) }
	ring := func(c color.Color) draw.GlyphStyle {
		return draw.GlyphStyle{Color: c, Radius: vg.Points(6), Shape: thickRing{}}
	}
	overRing := &plotter.Scatter{GlyphStyle: ring(plotkit.OverColor)}
	underRing := &plotter.Scatter{GlyphStyle: ring(plotkit.UnderColor)}
	for lane := range names {
		st := plotkit.StyleOf("log")
		if lane > 0 {
			st = styles[lane-1]
		}
		adm := &plotter.Scatter{GlyphStyle: draw.GlyphStyle{Color: st.Color, Radius: vg.Points(3), Shape: draw.CircleGlyph{}}}
		ref := &plotter.Scatter{GlyphStyle: draw.GlyphStyle{Color: st.Color, Radius: vg.Points(3.2), Shape: draw.CrossGlyph{}}}
		for _, q := range v.Requests {
			a := q.Log
			if lane > 0 {
				a = q.Admit[lane-1]
			}
			pt := plotter.XY{X: ax.x(q.T), Y: laneY(lane)}
			if a {
				adm.XYs = append(adm.XYs, pt)
			} else {
				ref.XYs = append(ref.XYs, pt)
			}
			switch {
			case lane > 0 && a && !q.Log:
				overRing.XYs = append(overRing.XYs, pt)
			case lane > 0 && !a && q.Log:
				underRing.XYs = append(underRing.XYs, pt)
			}
		}
		lanes.Add(adm, ref)
	}
	lanes.Add(overRing, underRing)
	black := draw.GlyphStyle{Color: color.Black, Radius: vg.Points(3)}
	admThumb, refThumb := black, black
	admThumb.Shape, refThumb.Shape = draw.CircleGlyph{}, draw.CrossGlyph{}
	return lanes, []plotkit.LegendEntry{
		{Name: "admitted", Thumbs: []plot.Thumbnailer{&plotter.Scatter{GlyphStyle: admThumb}}},
		{Name: "refused", Thumbs: []plot.Thumbnailer{&plotter.Scatter{GlyphStyle: refThumb}}},
		{Name: "over: admitted, the log refused", Thumbs: []plot.Thumbnailer{overRing}},
		{Name: "under: refused, the log admitted", Thumbs: []plot.Thumbnailer{underRing}},
	}
}

// keyWindowEdges dots the fixed windows' edges (aligned to t = 0), where
// counter and fixed roll over, on both panels when there are few enough to
// see, and returns their legend entry (nil for none drawn).
func keyWindowEdges(v *KeyView, ax keyAxis, panels ...*plot.Plot) *plotkit.LegendEntry {
	if v.W <= 0 || ax.span/float64(v.W) > 40 {
		return nil
	}
	edge := draw.LineStyle{Color: color.Gray{Y: 150}, Width: vg.Points(0.8), Dashes: []vg.Length{vg.Points(1.5), vg.Points(2)}}
	first := (v.From/v.W + 1) * v.W
	if v.From%v.W == 0 {
		first = v.From
	}
	drawn := false
	for t := first; t <= v.To; t += v.W {
		for _, p := range panels {
			p.Add(&plotkit.RefLine{X: ax.x(t), Vert: true, Style: edge})
			drawn = true
		}
		if t > math.MaxInt64-v.W { // the next edge would wrap around
			break
		}
	}
	if !drawn {
		return nil
	}
	return &plotkit.LegendEntry{Name: "fixed window edge", Thumbs: []plot.Thumbnailer{&plotkit.RefLine{Style: edge}}}
}

// thickRing is a ring glyph drawn with a line heavy enough to be seen
// around another mark.
type thickRing struct{}

func (thickRing) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	c.SetLineStyle(draw.LineStyle{Color: sty.Color, Width: vg.Points(1.6)})
	var p vg.Path
	p.Move(vg.Point{X: pt.X + sty.Radius, Y: pt.Y})
	p.Arc(pt, sty.Radius, 0, 2*math.Pi)
	p.Close()
	c.Stroke(p)
}
