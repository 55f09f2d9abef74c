package algorithms

import (
	"iter"
	"math/rand/v2"
	"testing"
)

// KeyEntries hold what a WindowSum per key holds, entry for entry: through
// entries that outgrow the ring (of each length RingFor gives), a cost
// other than 1, windows that span more than the ring's offsets reach
// (entrySpan) and times that drift far past the ring's base (which moves
// up to the oldest entry), every Sum, Len, Bytes, Newest, SumThrough and
// coveredAt is the WindowSum's, for keys whose requests interleave, and
// both yield the same entries (All), whose costs add up to their Sum.
func TestEntriesAsWindowSum(t *testing.T) {
	for _, c := range []struct {
		name       string
		w, gap     int64 // the window, and the most between two entries
		n, heavy   int   // requests, and one in heavy costs 2 (0: none)
		wantSpill  bool
		wantInline bool
	}{
		{"short window", 1000, 120, 20000, 0, true, true},                       // past the ring now and then
		{"costs", 1000, 300, 20000, 50, true, true},                             // a cost of 2 spills
		{"drifting base", entrySpan / 4, entrySpan / 8, 20000, 0, false, true},  // the base moves up many times
		{"window past the span", 2 * entrySpan, entrySpan, 5000, 0, true, true}, // spills as its entries span past the offsets
	} {
		for _, ring := range []int{4, 8, ringMax} {
			const keys = 3
			s := NewKeyEntries(ring)
			s.Grow(keys)
			if c.name == "drifting base" && ring != ringMax { // its windows hold about four entries: a ring of 4 spills
				continue
			}
			w := make([]WindowSum, keys)
			rng := rand.New(rand.NewPCG(9, uint64(c.n+ring)))
			tm := make([]int64, keys)
			for i := range tm {
				tm[i] = 1_700_000_000_000_000_000
			}
			spilled, inline, rebased := false, false, 0
			for i := range c.n {
				id := int32(rng.IntN(keys))
				tm[id] += rng.Int64N(c.gap)
				now := tm[id]
				cut := now - c.w
				e := s.Key(id)
				e.Expire(cut)
				w[id].Expire(cut)
				h := e.entriesHead
				if h.ext == 0 && e.Len() == 0 && rng.IntN(4) == 0 { // an empty key's entries go back to its ring
					e.Drop()
				}
				cost := int64(1)
				if c.heavy > 0 && rng.IntN(c.heavy) == 0 {
					cost = 2
				}
				base, held := h.base, h.ext == 0 && h.n > 0
				e.Add(now, cost)
				w[id].Add(now, cost)
				if held && h.ext == 0 && h.base != base {
					rebased++
				}
				spilled, inline = spilled || h.ext != 0, inline || h.ext == 0 && h.n > 1
				x := &w[id]
				probe := now - rng.Int64N(c.w)
				need := 1 + rng.Int64N(int64(x.Len())+1)
				gt, gok := e.coveredAt(need)
				wt, wok := x.coveredAt(need)
				if e.Sum() != x.Sum() || e.Len() != x.Len() || e.Bytes() != x.Bytes() || e.Newest() != x.Newest() ||
					e.SumThrough(probe) != x.SumThrough(probe) || gt != wt || gok != wok {
					t.Fatalf("%s, ring %d, entry %d of key %d: entries hold sum %d, len %d, bytes %d, newest %d, through %d, covered %d %v; the window sum %d, %d, %d, %d, %d, %d %v",
						c.name, ring, i, id, e.Sum(), e.Len(), e.Bytes(), e.Newest(), e.SumThrough(probe), gt, gok,
						x.Sum(), x.Len(), x.Bytes(), x.Newest(), x.SumThrough(probe), wt, wok)
				}
				if !sameEntries(e, x) {
					t.Fatalf("%s, ring %d, entry %d of key %d: the entries yield %v; the window sum %v (sum %d)", c.name, ring, i, id,
						entryList(e.All()), entryList(x.All()), x.Sum())
				}
				if h.ext != 0 && e.Len() == 0 { // an emptied spill, dropped as a release would
					e.Drop()
					*x = WindowSum{}
				}
			}
			if spilled != c.wantSpill || inline != c.wantInline {
				t.Errorf("%s, ring %d: entries spilled %v and held several in the ring %v; want %v and %v: the case lacks power", c.name, ring, spilled, inline, c.wantSpill, c.wantInline)
			}
			if c.name == "drifting base" && rebased == 0 {
				t.Errorf("%s: the ring's base never moved under its entries: the case lacks power", c.name)
			}
		}
	}
}

// sameEntries reports whether e and x yield the same entries, Len of
// them, whose costs add up to x's Sum.
func sameEntries(e Entries, x *WindowSum) bool {
	a, b := entryList(e.All()), entryList(x.All())
	if len(a) != len(b) || len(a) != 2*x.Len() {
		return false
	}
	var sum int64
	for i := range a {
		if a[i] != b[i] {
			return false
		}
		if i%2 == 1 {
			sum += a[i]
		}
	}
	return sum == x.Sum()
}

// entryList lists what all yields, time then cost.
func entryList(all iter.Seq2[int64, int64]) []int64 {
	var out []int64
	for t, c := range all {
		out = append(out, t, c)
	}
	return out
}

// RingFor gives the least power of two at or above the limit, from 4 to
// ringMax; the zero KeyEntries holds rings of ringMax.
func TestRingFor(t *testing.T) {
	for L, want := range map[int64]int{1: 4, 4: 4, 5: 8, 8: 8, 9: 16, 16: 16, 17: 16, 1 << 40: 16} {
		if got := RingFor(L); got != want {
			t.Errorf("RingFor(%d) = %d; want %d", L, got, want)
		}
	}
	var s KeyEntries
	s.Grow(2)
	if int(s.Key(1).mask)+1 != ringMax {
		t.Errorf("the zero KeyEntries holds rings of %d; want %d", int(s.Key(1).mask)+1, ringMax)
	}
}
