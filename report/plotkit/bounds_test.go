package plotkit

import (
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// figWidth is the report's usual figure width.
const figWidth = 7.5 * vg.Inch

// within runs f, failing the test if it does not return within a minute:
// a guard against the rasterizer's loop, not a timing assertion.
func within(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatalf("%s did not finish: the plots loop", what)
	}
}

// Geometry that is not a number is refused before anything is drawn: an
// axis range of NaN, a point at NaN inside a set range, a legend no figure
// within the bounds can hold; each is an error, never a loop.
func TestNaNGeometryRefused(t *testing.T) {
	panel := func() *plot.Plot {
		p := NewPanel("", "x", "y")
		p.Add(&plotter.Scatter{XYs: plotter.XYs{{X: 1, Y: 1}}, GlyphStyle: StyleOf("counter").Glyph()})
		return p
	}
	nanAxis := panel()
	nanAxis.X.Max = math.NaN()
	nanPoint := panel()
	nanPoint.Add(LineOf(plotter.XYs{{X: 0.5, Y: 1}, {X: math.NaN(), Y: 2}}, StyleOf("token")))
	nanPoint.X.Min, nanPoint.X.Max, nanPoint.Y.Min, nanPoint.Y.Max = 0, 2, 0, 3
	var huge []LegendEntry
	for i := range 40 {
		huge = append(huge, LegendEntry{Name: strings.Repeat("w", 79) + strconv.Itoa(i)})
	}
	tiny := &Figure{Name: "tiny", Panels: [][]*plot.Plot{make([]*plot.Plot, 60)}, W: vg.Inch, H: vg.Inch, Legend: huge}
	for i := range tiny.Panels[0] {
		tiny.Panels[0][i] = panel()
	}
	for _, f := range []*Figure{
		{Name: "nan-axis", Panels: [][]*plot.Plot{{nanAxis}}, W: figWidth, H: 3 * vg.Inch},
		{Name: "nan-point", Panels: [][]*plot.Plot{{nanPoint}}, W: figWidth, H: 3 * vg.Inch},
		{Name: "nan-size", Panels: [][]*plot.Plot{{panel()}}, W: vg.Length(math.NaN()), H: 3 * vg.Inch},
		tiny,
	} {
		for _, format := range []string{"svg", "png"} {
			var err error
			within(t, f.Name, func() { _, err = f.Render(format) })
			if !IsUnplottable(err) {
				t.Errorf("%s as %s: %v, want an error saying it cannot be drawn", f.Name, format, err)
			}
		}
	}
	// A legend wider than its figure widens the figure, within the bounds.
	wide := &Figure{Name: "wide", Panels: [][]*plot.Plot{{panel()}}, W: 2 * vg.Inch, H: 2 * vg.Inch, Legend: huge[:3]}
	if w, _, err := wide.Size(); err != nil || w <= 2*vg.Inch || w > MaxFigureSide {
		t.Errorf("a wide legend: width %v (%v), want more than 2 inches and at most the bound", w, err)
	}
}

// Ticks over a narrow range far from 0, where a tick index plus one
// rounds back to itself, are bounded in number.
func TestTicksFarFromZero(t *testing.T) {
	var ts []plot.Tick
	within(t, "the ticks of [9.2e18, 9.2e18+4096]", func() { ts = LinearTicks{}.Ticks(9.2e18, 9.2e18+4096) })
	if len(ts) == 0 || len(ts) > 200 {
		t.Errorf("%d ticks", len(ts))
	}
}

// A title's line wider than its figure is cut, an ellipsis last, to fit
// the figure's width (a long key's name ran off both edges); a short one
// is drawn whole.
func TestLongTitleCut(t *testing.T) {
	long := "Key " + strings.Repeat("tenant-42/session-", 12) + "end, rule 5/30s (count accepted, mode independent)"
	for _, c := range []struct {
		title, first string
		cut          bool
	}{
		{long + "\nits requests", "", true},
		{"Trade-off\nrule 5/30s", "Trade-off", false},
	} {
		f := &Figure{Name: "title", Title: c.title, Panels: [][]*plot.Plot{{NewPanel("", "x", "y")}}, W: figWidth, H: 3 * vg.Inch}
		w, _, err := f.Size()
		if err != nil {
			t.Fatal(err)
		}
		l := f.arrange(draw.New(vgsvg.New(w, w)))
		lines := strings.Split(l.Title, "\n")
		if len(lines) != 2 {
			t.Fatalf("title %q: %d lines", l.Title, len(lines))
		}
		first := lines[0]
		if got := strings.HasSuffix(first, "…"); got != c.cut {
			t.Errorf("title %q: cut with an ellipsis %v, want %v", first, got, c.cut)
		}
		if !c.cut && first != c.first {
			t.Errorf("title %q, want %q", first, c.first)
		}
		if c.cut && !strings.HasPrefix(long, strings.TrimSuffix(first, "…")) {
			t.Errorf("title %q is not the start of the title", first)
		}
		if width := l.titleSty.Width(first); width > w-12 {
			t.Errorf("title %q is %v wide in a figure of %v", first, width, w)
		}
		if lines[1] != strings.Split(c.title, "\n")[1] {
			t.Errorf("second line %q cut", lines[1])
		}
	}
}
