package algorithms

import (
	"math/rand/v2"
	"testing"
)

// The limiters' fast paths (a window kept by its start time, precomputed
// quotients, 64-bit arithmetic where the high word is zero) are checked here
// against the plain exact definitions they stand for, on random inputs that
// aim at the edges: window boundaries, times near the largest int64, windows
// near 2^63 ns, time going back.

const maxInt64 = 1<<63 - 1

// edgeInt returns a value in [0, hi] biased to both ends and to multiples
// of unit > 0 (a window boundary) and their neighbours.
func edgeInt(rng *rand.Rand, hi, unit int64) int64 {
	switch rng.IntN(6) {
	case 0:
		return rng.Int64N(min(hi, 4) + 1)
	case 1:
		return hi - rng.Int64N(min(hi, 4)+1)
	case 2, 3:
		if k := hi / unit; k < maxInt64 {
			v := rng.Int64N(k+1) * unit // <= hi
			switch d := rng.IntN(3); {
			case d == 0 && v > 0:
				v--
			case d == 1 && v < hi:
				v++
			}
			return v
		}
	}
	if hi == maxInt64 {
		return int64(rng.Uint64() >> 1)
	}
	return rng.Int64N(hi + 1)
}

// edgeWindow returns a window length: tiny, ordinary, or near 2^63.
func edgeWindow(rng *rand.Rand) int64 {
	switch rng.IntN(4) {
	case 0:
		return 1 + rng.Int64N(10)
	case 1:
		return maxInt64 - rng.Int64N(10)
	case 2:
		return 1 + rng.Int64N(maxInt64)
	}
	return 60_000_000_000 + rng.Int64N(1000)
}

// TestCounterAdvanceAsDivision: advance keeps the window w(t) = t/W by its
// start, and rolls forward without dividing; it must do what the division
// says: same window, keep both counts; the next, shift curr into prev; any
// other (later, or earlier), start over.
func TestCounterAdvanceAsDivision(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 200_000 {
		W := edgeWindow(rng)
		t0 := edgeInt(rng, maxInt64, W)
		var t1 int64
		switch rng.IntN(4) {
		case 0: // the same or the next few windows
			span := maxInt64 - t0
			if W <= span/3 {
				span = 3 * W
			}
			t1 = t0 + edgeInt(rng, span, W)
		case 1: // back in time
			t1 = edgeInt(rng, t0, W)
		default:
			t1 = edgeInt(rng, maxInt64, W)
		}
		s := counterState{prev: 3, curr: 5}
		s.start = t0 / W * W
		w0, w1 := t0/W, t1/W
		e := s.advance(t1, W)
		want := counterState{start: w1 * W}
		switch w1 {
		case w0:
			want.prev, want.curr = 3, 5
		case w0 + 1:
			want.prev = 5
		}
		if s != want || e != t1-w1*W {
			t.Fatalf("W=%d, from t=%d to %d: state %+v e=%d, want %+v e=%d", W, t0, t1, s, e, want, t1-w1*W)
		}
		f := fixedState{start: t0 / W * W, curr: 5}
		f.advance(t1, W)
		wantF := fixedState{start: w1 * W}
		if w1 == w0 {
			wantF.curr = 5
		}
		if f != wantF {
			t.Fatalf("fixed W=%d, from t=%d to %d: state %+v, want %+v", W, t0, t1, f, wantF)
		}
	}
}
