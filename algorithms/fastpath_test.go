package algorithms

import (
	"math/rand/v2"
	"testing"
	"unsafe"
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
		s := CounterState{Prev: 3, Curr: 5}
		s.Start = t0 / W * W
		w0, w1 := t0/W, t1/W
		e := s.Advance(t1, W)
		want := CounterState{Start: w1 * W}
		switch w1 {
		case w0:
			want.Prev, want.Curr = 3, 5
		case w0 + 1:
			want.Prev = 5
		}
		if s != want || e != t1-w1*W {
			t.Fatalf("W=%d, from t=%d to %d: state %+v e=%d, want %+v e=%d", W, t0, t1, s, e, want, t1-w1*W)
		}
		f := FixedState{Start: t0 / W * W, Curr: 5}
		f.Advance(t1, W)
		wantF := FixedState{Start: w1 * W}
		if w1 == w0 {
			wantF.Curr = 5
		}
		if f != wantF {
			t.Fatalf("fixed W=%d, from t=%d to %d: state %+v, want %+v", W, t0, t1, f, wantF)
		}
	}
}

// TestLogInlineAsWindowSum: the log keeps a key's first entries in its own
// block, in a ring sized to the rule's limit (RingFor), and moves them to
// a WindowSum when they outgrow it or one costs other than 1; sums, sizes,
// peaks, idleness and retry times must be those of a plain WindowSum per
// key (the log's former state), around each ring's length, through
// Release and Restore.
func TestLogInlineAsWindowSum(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	var rules []Rule
	for _, L := range []int64{3, 4, 5, 8, 9, ringMax - 1, ringMax, ringMax + 1} {
		rules = append(rules, Rule{L: L, W: 100})
	}
	for _, r := range append(rules, Rule{L: 3 * ringMax, W: 1000}) {
		const keys = 4
		l := NewLog(r)
		l.Grow(keys)
		ref := make([]WindowSum, keys)
		peak := make([]int64, keys)
		now := make([]int64, keys)
		full, spilled := false, false
		for i := range 20_000 {
			id := int32(rng.IntN(keys))
			now[id] += rng.Int64N(r.W / int64(r.L) * 2)
			tm, cost := now[id], int64(1)
			if rng.IntN(40) == 0 {
				cost = 1 + rng.Int64N(3)
			}
			w := &ref[id]
			w.Expire(tm - r.W)
			peak[id] = max(peak[id], w.Bytes())
			got, want := l.Decide(id, tm, cost), cost <= r.L-w.Sum()
			if got != want || l.Sum(id) != w.Sum() || l.Bytes(id) != w.Bytes() {
				t.Fatalf("%v step %d key %d t=%d: admit %v sum %d bytes %d, want %v %d %d", r, i, id, tm, got, l.Sum(id), l.Bytes(id), want, w.Sum(), w.Bytes())
			}
			if rt, ok := l.RetryAfter(id, tm, cost); !want {
				need := w.Sum() - (r.L - cost)
				ts, _ := w.coveredAt(need)
				if !ok || rt != max(ts+r.W, tm) {
					t.Fatalf("%v step %d key %d: retry after %d %v, want %d", r, i, id, rt, ok, ts+r.W)
				}
			}
			if got || rng.IntN(3) == 0 {
				l.Record(id, tm, cost)
				w.Add(tm, cost)
				peak[id] = max(peak[id], w.Bytes())
			}
			h := l.e.Key(id).entriesHead
			full = full || h.ext == 0 && int64(h.n) >= min(int64(RingFor(r.L)), r.L+1)
			spilled = spilled || h.ext != 0
			if l.KeyPeak(id) != peak[id] {
				t.Fatalf("%v step %d key %d: peak %d, want %d", r, i, id, l.KeyPeak(id), peak[id])
			}
			later := tm + rng.Int64N(2*r.W)
			wantIdle := w.Len() == 0 || w.Newest() <= later-r.W
			if l.Idle(id, later) != wantIdle {
				t.Fatalf("%v step %d key %d: idle at %d = %v, want %v", r, i, id, later, !wantIdle, wantIdle)
			}
			if wantIdle && rng.IntN(4) == 0 { // release, come back at once with the old peak
				p := l.KeyPeak(id)
				l.Release(id)
				l.Restore(id, p)
				ref[id] = WindowSum{}
				if l.KeyPeak(id) != peak[id] || l.Bytes(id) != 8 {
					t.Fatalf("%v step %d key %d: after restore peak %d bytes %d", r, i, id, l.KeyPeak(id), l.Bytes(id))
				}
			}
		}
		var wantMax, wantSum int64
		for _, p := range peak {
			wantMax, wantSum = max(wantMax, p), wantSum+p
		}
		if m, s := l.Memory(); m != wantMax || s != wantSum {
			t.Fatalf("%v: memory %d %d, want %d %d", r, m, s, wantMax, wantSum)
		}
		if !full || !spilled {
			t.Errorf("%v: a key filled its ring of %d (or held more than the limit there) %v, spilled %v: the case lacks power", r, RingFor(r.L), full, spilled)
		}
	}
}

// tokenRef is the token bucket's deficit as it was kept before it was
// scaled by W: dq + dr/W, refilled by a division.
type tokenRef struct{ dq, dr, last int64 }

func (s *tokenRef) refill(t int64, r Rule) {
	dt := t - s.last
	s.last = t
	if dt <= 0 || (s.dq == 0 && s.dr == 0) {
		return
	}
	q, rem, ok := DivMod(dt, r.L, r.W)
	if !ok || q > s.dq || (q == s.dq && rem >= s.dr) {
		s.dq, s.dr = 0, 0
		return
	}
	s.dq -= q
	s.dr -= rem
	if s.dr < 0 {
		s.dr += r.W
		s.dq--
	}
}

func (s *tokenRef) fits(b, cost int64) bool {
	room := b - cost
	return s.dq < room || (s.dq == room && s.dr == 0)
}

// TestTokenScaledAsDivision: the bucket kept as D*W refills, decides and
// saturates as the bucket kept as dq + dr/W, for deficits near 0, near B
// and near 2^63, windows and limits up to 2^63, gaps up to 2^63.
func TestTokenScaledAsDivision(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for i := range 300_000 {
		r := Rule{L: 1 + edgeInt(rng, maxInt64-1, 1), W: edgeWindow(rng)}
		if rng.IntN(2) == 0 {
			r.L = 1 + rng.Int64N(100)
		}
		b := 1 + edgeInt(rng, 1000, 10)
		ref := tokenRef{dq: edgeInt(rng, maxInt64, b), dr: rng.Int64N(r.W), last: edgeInt(rng, maxInt64/2, r.W)}
		if rng.IntN(3) == 0 {
			ref.dq = rng.Int64N(3 * b)
		}
		if rng.IntN(4) == 0 {
			ref.dr = 0
		}
		s := TokenState{X: Mul(ref.dq, r.W).AddInt(ref.dr), last: ref.last}
		for range 4 {
			tm := ref.last + edgeInt(rng, maxInt64-ref.last, r.W/max(r.L, 1)+1)
			if rng.IntN(4) == 0 {
				tm = ref.last
			}
			cost := 1 + edgeInt(rng, MaxCost-1, b)
			ref.refill(tm, r)
			s.Refill(tm, r)
			if got, want := s.Fits(b, cost, r), ref.fits(b, cost); got != want {
				t.Fatalf("case %d %v B=%d t=%d cost %d: fits %v, want %v (ref %+v)", i, r, b, tm, cost, got, want, ref)
			}
			if rng.IntN(2) == 0 {
				ref.dq = SatAdd(ref.dq, cost)
				s.Take(cost, r)
			}
			if dq, dr := s.deficit(r); dq != ref.dq || dr != ref.dr || s.last != ref.last {
				t.Fatalf("case %d %v B=%d t=%d cost %d: deficit %d+%d/W, want %d+%d/W", i, r, b, tm, cost, dq, dr, ref.dq, ref.dr)
			}
		}
	}
}

// A log's Ahead names, for a key whose entries left its ring, its window
// in the pool and then that window's oldest entry, and nothing for a key
// whose entries are in its ring or that holds none; asking changes no
// decision.
func TestLogAheadNamesTheSpilledWindow(t *testing.T) {
	r := Rule{L: 5, W: 100}
	l, twin := NewLog(r), NewLog(r)
	l.Grow(2)
	twin.Grow(2)
	for i := range int64(40) {
		for _, lg := range []*Log{l, twin} {
			if lg.Decide(0, i, 1) {
				lg.Record(0, i, 1)
			}
			lg.Record(1, i, 1) // key 1 records every request: past its ring of RingFor(5)
		}
		if l.Ahead(0, 1) != nil || l.Ahead(0, 2) != nil {
			t.Fatalf("t=%d: Ahead names memory of a key whose entries are in its ring", i)
		}
		e := l.e.Key(1)
		if e.ext == 0 {
			if i >= int64(RingFor(r.L)) {
				t.Fatalf("t=%d: %d entries and none spilled", i, e.Len())
			}
			continue
		}
		w := e.pool.At(e.ext)
		if l.Ahead(1, 1) != unsafe.Pointer(w) || l.Ahead(1, 2) != unsafe.Pointer(&w.ts[w.head]) {
			t.Fatalf("t=%d: Ahead names %p and %p; want the window %p and its oldest entry %p", i, l.Ahead(1, 1), l.Ahead(1, 2), w, &w.ts[w.head])
		}
		for id := range int32(2) {
			if l.Sum(id) != twin.Sum(id) || l.Decide(id, i, 1) != twin.Decide(id, i, 1) {
				t.Fatalf("t=%d key %d: asking Ahead changed the log", i, id)
			}
		}
	}
}
