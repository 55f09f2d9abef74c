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
	"image/color"
	"image/png"
	"io"

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
		inner = fastPNG{vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(PNGDPI))}
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
// lines are cut to a bounded length, a title's line also to the figure's
// width; on a canvas of the largest height,
// the legend entries that do not fit are left out, counted in a last one.
func (f *Figure) arrange(dc draw.Canvas) *arrangement {
	l := &arrangement{fig: f, Title: clipLines(f.Title, maxTitleRunes)}
	pad := vg.Points(6)
	l.titleSty = TextStyle(12)
	l.titleSty.XAlign = draw.XCenter
	l.titleSty.YAlign = draw.YTop
	body := draw.Crop(dc, pad, -pad, pad, -pad)
	l.Title = fitWidth(l.titleSty, l.Title, dc.Size().X-2*pad)
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

// fastPNG writes its canvas as a PNG deflated for speed (png.BestSpeed):
// the default level took a seventh more of a whole report's time, for
// files 4% smaller.
type fastPNG struct{ *vgimg.Canvas }

func (c fastPNG) WriteTo(w io.Writer) (int64, error) {
	cw := &countWriter{w: w}
	err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(cw, c.Image())
	return cw.n, err
}

// countWriter counts the bytes written through it.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
