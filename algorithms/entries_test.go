package algorithms

import (
	"math/rand/v2"
	"testing"
)

// Entries hold what a WindowSum holds, entry for entry: through entries
// that outgrow the ring, a cost other than 1, windows that span more than
// the ring's offsets reach (entrySpan) and times that drift far past the
// ring's base (which moves up to the oldest entry), every Sum, Len, Bytes,
// Newest, SumThrough and coveredAt is the WindowSum's.
func TestEntriesAsWindowSum(t *testing.T) {
	for _, c := range []struct {
		name       string
		w, gap     int64 // the window, and the most between two entries
		n, heavy   int   // requests, and one in heavy costs 2 (0: none)
		wantSpill  bool
		wantInline bool
	}{
		{"short window", 1000, 120, 20000, 0, true, true},                       // past 16 entries now and then
		{"costs", 1000, 300, 20000, 50, true, true},                             // a cost of 2 spills
		{"drifting base", entrySpan / 4, entrySpan / 8, 20000, 0, false, true},  // the base moves up many times
		{"window past the span", 2 * entrySpan, entrySpan, 5000, 0, true, true}, // spills as its entries span past the offsets
	} {
		var p WindowPool
		var e Entries
		var w WindowSum
		rng := rand.New(rand.NewPCG(9, uint64(c.n)))
		tm := int64(1_700_000_000_000_000_000)
		spilled, inline, rebased := false, false, 0
		for i := range c.n {
			tm += rng.Int64N(c.gap)
			cut := tm - c.w
			e.Expire(&p, cut)
			w.Expire(cut)
			if e.ext == 0 && e.Len(&p) == 0 && rng.IntN(4) == 0 { // an empty key's entries go back to its ring
				e.Drop(&p)
			}
			cost := int64(1)
			if c.heavy > 0 && rng.IntN(c.heavy) == 0 {
				cost = 2
			}
			base, held := e.base, e.ext == 0 && e.n > 0
			e.Add(&p, tm, cost)
			w.Add(tm, cost)
			if held && e.ext == 0 && e.base != base {
				rebased++
			}
			spilled, inline = spilled || e.ext != 0, inline || e.ext == 0 && e.n > 1
			probe := tm - rng.Int64N(c.w)
			need := 1 + rng.Int64N(int64(w.Len())+1)
			gt, gok := e.coveredAt(&p, need)
			wt, wok := w.coveredAt(need)
			if e.Sum(&p) != w.Sum() || e.Len(&p) != w.Len() || e.Bytes(&p) != w.Bytes() || e.Newest(&p) != w.Newest() ||
				e.SumThrough(&p, probe) != w.SumThrough(probe) || gt != wt || gok != wok {
				t.Fatalf("%s, entry %d: entries hold sum %d, len %d, bytes %d, newest %d, through %d, covered %d %v; the window sum %d, %d, %d, %d, %d, %d %v",
					c.name, i, e.Sum(&p), e.Len(&p), e.Bytes(&p), e.Newest(&p), e.SumThrough(&p, probe), gt, gok,
					w.Sum(), w.Len(), w.Bytes(), w.Newest(), w.SumThrough(probe), wt, wok)
			}
			if e.ext != 0 && e.Len(&p) == 0 { // an emptied spill, dropped as a release would
				e.Drop(&p)
				w = WindowSum{}
			}
		}
		if spilled != c.wantSpill || inline != c.wantInline {
			t.Errorf("%s: entries spilled %v and held several in the ring %v; want %v and %v: the case lacks power", c.name, spilled, inline, c.wantSpill, c.wantInline)
		}
		if c.name == "drifting base" && rebased == 0 {
			t.Errorf("%s: the ring's base never moved under its entries: the case lacks power", c.name)
		}
	}
}
