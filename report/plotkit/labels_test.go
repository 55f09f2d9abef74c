package plotkit

import (
	"math"
	"testing"

	"gonum.org/v1/plot/vg"
)

// TestLabelsAtTheirOwnPoints: every label placed is anchored at its own
// point and touches it (its box at the label gap from the point), never
// overlaps another label or point, and a label with no free place beside
// its point is left out rather than moved away.
func TestLabelsAtTheirOwnPoints(t *testing.T) {
	bounds := vg.Rectangle{Max: vg.Point{X: 400, Y: 300}}
	pts := []vg.Point{{X: 100, Y: 100}, {X: 108, Y: 100}, {X: 100, Y: 108}, {X: 300, Y: 200}, {X: 104, Y: 104}, {X: 395, Y: 295}}
	sizes := make([]vg.Point, len(pts))
	for i := range sizes {
		sizes[i] = vg.Point{X: 40, Y: 10}
	}
	r := vg.Length(3.5)
	places := LayoutLabels(pts, sizes, r, bounds)
	if len(places) < 3 {
		t.Fatalf("only %d labels placed", len(places))
	}
	seen := map[int]bool{}
	for _, pl := range places {
		seen[pl.Index] = true
		if pl.Anchor != pts[pl.Index] {
			t.Errorf("label %d anchored at %v, its point is at %v", pl.Index, pl.Anchor, pts[pl.Index])
		}
		// Distance from the point to the nearest point of the box.
		dx := math.Max(0, math.Max(float64(pl.Rect.Min.X-pl.Anchor.X), float64(pl.Anchor.X-pl.Rect.Max.X)))
		dy := math.Max(0, math.Max(float64(pl.Rect.Min.Y-pl.Anchor.Y), float64(pl.Anchor.Y-pl.Rect.Max.Y)))
		if d := math.Hypot(dx, dy); d > float64(labelGap)*math.Sqrt2+1e-9 || d < float64(labelGap)-1e-9 {
			t.Errorf("label %d at %.1f from its point, want next to it", pl.Index, d)
		}
		for j, pt := range pts {
			sq := vg.Rectangle{Min: vg.Point{X: pt.X - r, Y: pt.Y - r}, Max: vg.Point{X: pt.X + r, Y: pt.Y + r}}
			if overlapsAny(pl.Rect, []vg.Rectangle{sq}) {
				t.Errorf("label %d covers point %d", pl.Index, j)
			}
		}
		for _, o := range places {
			if o.Index != pl.Index && overlapsAny(pl.Rect, []vg.Rectangle{o.Rect}) {
				t.Errorf("labels %d and %d overlap", pl.Index, o.Index)
			}
		}
		if pl.Rect.Min.X < bounds.Min.X || pl.Rect.Max.X > bounds.Max.X || pl.Rect.Min.Y < bounds.Min.Y || pl.Rect.Max.Y > bounds.Max.Y {
			t.Errorf("label %d outside the panel", pl.Index)
		}
	}
	if !seen[3] || !seen[5] {
		t.Errorf("the lone points' labels are missing: %v", seen)
	}
}
