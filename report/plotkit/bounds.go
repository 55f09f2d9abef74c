package plotkit

import (
	"errors"
	"fmt"
	"image"
	"math"
	"strings"
	"unicode/utf8"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// A figure is sized from its content within bounds, and its geometry is
// checked before anything is drawn: gonum's rasterizer loops forever on a
// plot area that is not a number (a legend wider than the figure leaves
// the panels a negative width, which becomes NaN). What cannot be drawn
// legibly within the bounds is refused with an *unplottable error, which
// the report turns into a note in place of the plot.
const (
	// MaxFigureSide bounds a figure's width and height: 27 inches, 3,888
	// pixels in the PNG.
	MaxFigureSide = 27 * vg.Inch
	// minDataWidth and minDataHeight are the smallest data area of a
	// panel that is still read.
	minDataWidth  = 0.5 * vg.Inch
	minDataHeight = 0.3 * vg.Inch
	// maxLegendRunes bounds a legend entry (which may name several
	// algorithms), maxLabelRunes a label on an axis or beside a point: a
	// longer one is cut, with an ellipsis.
	maxLegendRunes = 80
	maxLabelRunes  = 48
	// maxTitleRunes bounds a line of a figure's title.
	maxTitleRunes = 160
)

// Unplottable is why a figure was not drawn.
type Unplottable struct {
	Name, Why string
}

func (e *Unplottable) Error() string { return fmt.Sprintf("plot %s: %s", e.Name, e.Why) }

// IsUnplottable tells whether err says a figure could not be drawn (and
// not that a file could not be written).
func IsUnplottable(err error) bool {
	var u *Unplottable
	return errors.As(err, &u)
}

// clip cuts s to at most n runes, the last an ellipsis.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// clipLines is clip on each line of s.
func clipLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = clip(l, n)
	}
	return strings.Join(lines, "\n")
}

// fitWidth cuts each line of s wider than width, written in sty, to the
// longest start of it that fits with an ellipsis after it.
func fitWidth(sty text.Style, s string, width vg.Length) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if sty.Width(l) <= width {
			continue
		}
		r := []rune(l)
		lo, hi := 0, len(r) // the longest start that fits is of lo to hi runes
		for lo < hi {
			mid := (lo + hi + 1) / 2
			if sty.Width(string(r[:mid])+"…") <= width {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		lines[i] = strings.TrimRight(string(r[:lo]), " ") + "…"
	}
	return strings.Join(lines, "\n")
}

// finiteLength tells whether l is a number and not infinite.
func finiteLength(l vg.Length) bool { return finiteFloat(float64(l)) }

func finiteFloat(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// checkAxes makes every panel's axes drawable: a range of numbers (an
// error for NaN), and a range of one value widened as gonum widens it
// (by 1 each way) or, where 1 is lost in the value's rounding, by a
// millionth of the value.
func (f *Figure) checkAxes() error {
	for _, row := range f.Panels {
		for _, p := range row {
			if p == nil {
				continue
			}
			for _, a := range []*plot.Axis{&p.X, &p.Y} {
				if math.IsNaN(a.Min) || math.IsNaN(a.Max) {
					return &Unplottable{f.Name, fmt.Sprintf("an axis runs from %g to %g", a.Min, a.Max)}
				}
				// An infinite end (an axis without data) is 0, as gonum
				// draws it.
				if math.IsInf(a.Min, 0) {
					a.Min = 0
				}
				if math.IsInf(a.Max, 0) {
					a.Max = 0
				}
				if a.Min > a.Max {
					a.Min, a.Max = a.Max, a.Min
				}
				if a.Max-a.Min <= math.Max(math.Abs(a.Min), math.Abs(a.Max))*1e-12 {
					d := math.Max(1, math.Max(math.Abs(a.Min), math.Abs(a.Max))*1e-6)
					a.Min, a.Max = a.Min-d, a.Max+d
				}
			}
		}
	}
	return nil
}

// fits tells whether the arrangement l leaves every panel a data area to
// read; wide and tall say which way it falls short.
func (l *arrangement) fits() (ok, narrow, low bool) {
	if !finiteLength(l.body.Size().X) || l.body.Size().X < minDataWidth {
		narrow = true
	}
	if !finiteLength(l.body.Size().Y) || l.body.Size().Y < minDataHeight {
		low = true
	}
	if l.Legend != nil && l.legendHeight > l.legendC.Size().Y {
		low = true
	}
	for j, row := range l.Panels {
		for i, c := range row {
			p := l.fig.Panels[j][i]
			if p == nil {
				continue
			}
			// The data area lies within the panel (gonum's padding can
			// give a panel of negative width a data area of positive).
			cs, da := c.Size(), p.DataCanvas(c).Size()
			if !finiteLength(da.X) || da.X < minDataWidth || da.X > cs.X {
				narrow = true
			}
			if !finiteLength(da.Y) || da.Y < minDataHeight || da.Y > cs.Y {
				low = true
			}
		}
	}
	return !narrow && !low, narrow, low
}

// Size is the figure's width and height: its own, or larger, up to
// MaxFigureSide, where its panels or its legend need more room; an
// *unplottable error when they do not fit within the bounds.
func (f *Figure) Size() (w, h vg.Length, err error) {
	if len(f.Panels) == 0 {
		return 0, 0, &Unplottable{f.Name, "no panels"}
	}
	if !finiteLength(f.W) || !finiteLength(f.H) || f.W <= 0 || f.H <= 0 {
		return 0, 0, &Unplottable{f.Name, fmt.Sprintf("a size of %g × %g points", f.W, f.H)}
	}
	if err := f.checkAxes(); err != nil {
		return 0, 0, err
	}
	w, h = min(f.W, MaxFigureSide), min(f.H, MaxFigureSide)
	for {
		l := f.arrange(draw.Canvas{Rectangle: vg.Rectangle{Max: vg.Point{X: w, Y: h}}})
		ok, narrow, low := l.fits()
		if ok {
			return w, h, nil
		}
		grown := false
		if narrow && w < MaxFigureSide {
			w, grown = min(MaxFigureSide, w*1.5), true
		}
		if low && h < MaxFigureSide {
			h, grown = min(MaxFigureSide, h*1.5), true
		}
		if !grown {
			return 0, 0, &Unplottable{f.Name, fmt.Sprintf("its panels and legend do not fit in %.0f × %.0f pixels", float64(MaxFigureSide/vg.Inch)*PNGDPI, float64(MaxFigureSide/vg.Inch)*PNGDPI)}
		}
	}
}

// finiteCanvas is a canvas that draws nothing whose coordinates are not
// numbers (the rasterizer would loop on them), and counts what it left
// out: the last guard, behind the checks of size.
type finiteCanvas struct {
	vg.CanvasWriterTo
	dropped int
}

func pointOK(p vg.Point) bool { return finiteLength(p.X) && finiteLength(p.Y) }

func pathOK(p vg.Path) bool {
	for _, c := range p {
		if !pointOK(c.Pos) || !finiteLength(c.Radius) || !finiteFloat(c.Start) || !finiteFloat(c.Angle) {
			return false
		}
		for _, q := range c.Control {
			if !pointOK(q) {
				return false
			}
		}
	}
	return true
}

func (c *finiteCanvas) Stroke(p vg.Path) {
	if !pathOK(p) {
		c.dropped++
		return
	}
	c.CanvasWriterTo.Stroke(p)
}

func (c *finiteCanvas) Fill(p vg.Path) {
	if !pathOK(p) {
		c.dropped++
		return
	}
	c.CanvasWriterTo.Fill(p)
}

func (c *finiteCanvas) FillString(f font.Face, pt vg.Point, text string) {
	if !pointOK(pt) {
		c.dropped++
		return
	}
	c.CanvasWriterTo.FillString(f, pt, text)
}

func (c *finiteCanvas) DrawImage(r vg.Rectangle, img image.Image) {
	if !pointOK(r.Min) || !pointOK(r.Max) {
		c.dropped++
		return
	}
	c.CanvasWriterTo.DrawImage(r, img)
}

func (c *finiteCanvas) Translate(pt vg.Point) {
	if !pointOK(pt) {
		c.dropped++
		return
	}
	c.CanvasWriterTo.Translate(pt)
}

func (c *finiteCanvas) Scale(x, y float64) {
	if !finiteFloat(x) || !finiteFloat(y) {
		c.dropped++
		return
	}
	c.CanvasWriterTo.Scale(x, y)
}

func (c *finiteCanvas) Rotate(rad float64) {
	if !finiteFloat(rad) {
		c.dropped++
		return
	}
	c.CanvasWriterTo.Rotate(rad)
}
