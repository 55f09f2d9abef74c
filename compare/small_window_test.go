package compare

import (
	"math/rand/v2"
	"testing"

	"ratebench/algorithms"
)

// A smallWindow's entries, held in it or spilled to the pool past
// smallInline, sum, empty and end as one WindowSum of them would; dropped,
// its spilled window goes back to the pool, and its handle to the next.
func TestSmallWindowHoldsWhatAWindowSumHolds(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 8))
	var x smallWindows
	spilled, rebased := false, false
	for trial := range 300 {
		h := x.make()
		var want algorithms.WindowSum
		now := int64(0)
		for range rng.IntN(40) {
			now += rng.Int64N(5)
			if rng.IntN(25) == 0 { // a gap near the offsets' span: the base moves up, or the window spills
				now += smallSpan - 8 + rng.Int64N(16)
			}
			if rng.IntN(3) == 0 {
				cut := now - rng.Int64N(8)
				x.at(h).expire(&x, cut)
				want.Expire(cut)
			} else {
				c := rng.Int64N(5) - 2
				switch rng.IntN(20) {
				case 0: // a cost past 32 bits spills the window
					c = (1<<31 + rng.Int64N(1<<40)) * (2*rng.Int64N(2) - 1)
				case 1: // a cost at or past the edges of a smallCost
					c = 127 + rng.Int64N(3) - 2*rng.Int64N(2)*(127+rng.Int64N(3))
				}
				e := x.at(h)
				n0, base0, spill0 := e.n, e.base, e.spill
				e.add(&x, now, c)
				want.Add(now, c)
				rebased = rebased || spill0 == 0 && e.spill == 0 && n0 > 0 && e.base != base0
			}
			e := x.at(h)
			spilled = spilled || e.spill != 0

			if got := e.sum(&x); got != want.Sum() {
				t.Fatalf("trial %d: sum %d, a WindowSum of the same %d", trial, got, want.Sum())
			}
			if e.empty(&x) != (want.Len() == 0) {
				t.Fatalf("trial %d: empty %v with %d held", trial, e.empty(&x), want.Len())
			}
			if want.Len() > 0 && e.newest(&x) != want.Newest() {
				t.Fatalf("trial %d: newest %d, a WindowSum of the same %d", trial, e.newest(&x), want.Newest())
			}
		}
		x.drop(h)
		if x.inUse() != 0 || x.make() != h {
			t.Fatalf("trial %d: the handle dropped is not the next one made", trial)
		}
		x.drop(h)
		if x.spills.Len() != 0 {
			t.Fatalf("trial %d: %d spilled windows left after the drop", trial, x.spills.Len())
		}
	}
	if !spilled {
		t.Fatal("no window spilled: the test lacks power")
	}
	if !rebased {
		t.Fatal("no window moved its base: the test lacks power")
	}
}
