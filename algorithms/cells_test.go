package algorithms

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// narrowed returns lim with its cells' limits lowered so that many states
// leave them for the wide table (their counts, or with windows their
// windows' numbers), and a count of the keys there; nil if lim has no such
// limit. t0 is about when the requests start.
func narrowed(lim Limiter, t0 int64, windows bool) (wideKeys func() int) {
	const span = 1<<31 + 30 // 30 windows after the first, as windows.encode numbers them
	switch l := lim.(type) {
	case *Counter:
		if l.wide.limit = 2; windows {
			l.wide.limit, l.win.limit = 0, span
		}
		return func() int { return len(l.wide.m) }
	case *Fixed:
		if l.wide.limit = 2; windows {
			l.wide.limit, l.win.limit = 0, span
		}
		return func() int { return len(l.wide.m) }
	case *Buckets:
		if l.wide.limit = 2; windows {
			l.wide.limit, l.win.limit = 0, span
		}
		return func() int { return len(l.wide.m) }
	case *Token:
		if windows {
			return nil
		}
		l.wide.limit = uint64(l.rule.W) // a deficit past one token
		return func() int { return len(l.wide.m) }
	case *GCRA:
		if windows {
			return nil
		}
		l.wide.limit = uint64(t0 + 2*l.rule.W) // a TAT past two windows after the start
		return func() int { return len(l.wide.m) }
	}
	return nil
}

// A state that does not fit its cell is kept whole in its limiter's wide
// table, and decides exactly as in its cell: with the cells' limits
// lowered (their counts, or the span of their windows' numbers), every
// decision, estimate, Retry-After and idle test is the default limiter's,
// through states that leave their cells, come back to them and are
// released, whether the requests refused are recorded (count all, a
// bucket's debt in shadow mode) or not.
func TestCellsFallBackExactly(t *testing.T) {
	r := Rule{L: 5, W: int64(time.Second)}
	t0 := int64(1_700_000_000_000_000_000)
	for _, spec := range []string{"counter", "counter-lt", "counter-floor", "fixed", "token", "token:B=9", "gcra", "gcra:B=2", "buckets:1", "buckets:4"} {
		for _, mode := range []struct{ recordAll, windows bool }{{false, false}, {true, false}, {false, true}, {true, true}} {
			recordAll := mode.recordAll
			want, err := New(spec, r)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := New(spec, r)
			wideKeys := narrowed(got, t0, mode.windows)
			if wideKeys == nil {
				if !mode.windows {
					t.Fatalf("%s keeps no cells", spec)
				}
				continue
			}
			const keys = 8
			want.Grow(keys)
			got.Grow(keys)
			rng := rand.New(rand.NewPCG(3, uint64(len(spec))))
			spec := fmt.Sprintf("%s (windows %v)", spec, mode.windows)
			tm, mostWide, backNarrow := t0, 0, false
			for i := range 20_000 {
				tm += rng.Int64N(r.W / 8)
				id := int32(rng.IntN(keys))
				cost := 1 + rng.Int64N(3)
				dw, dg := want.Decide(id, tm, cost), got.Decide(id, tm, cost)
				if dw != dg {
					t.Fatalf("%s (record all %v), request %d: decided %v, want %v", spec, recordAll, i, dg, dw)
				}
				if est, ok := want.(Estimator); ok {
					if ew, eg := est.Estimate(id, tm), got.(Estimator).Estimate(id, tm); ew != eg {
						t.Fatalf("%s (record all %v), request %d: estimate %v, want %v", spec, recordAll, i, eg, ew)
					}
				}
				if ra, ok := want.(RetryAfterer); ok && !dw {
					rw, okw := ra.RetryAfter(id, tm, cost)
					rg, okg := got.(RetryAfterer).RetryAfter(id, tm, cost)
					if rw != rg || okw != okg {
						t.Fatalf("%s (record all %v), request %d: Retry-After %d %v, want %d %v", spec, recordAll, i, rg, okg, rw, okw)
					}
				}
				if dw || recordAll {
					want.Record(id, tm, cost)
					got.Record(id, tm, cost)
				}
				n := wideKeys()
				backNarrow = backNarrow || n < mostWide
				mostWide = max(mostWide, n)
				if rng.IntN(40) == 0 {
					later := tm + rng.Int64N(3*r.W)
					iw, ig := want.(Releaser).Idle(id, later), got.(Releaser).Idle(id, later)
					if iw != ig {
						t.Fatalf("%s (record all %v), request %d: idle %v, want %v", spec, recordAll, i, ig, iw)
					}
					if iw {
						want.(Releaser).Release(id)
						got.(Releaser).Release(id)
						tm = later
					}
				}
			}
			if mostWide == 0 || !backNarrow {
				t.Errorf("%s (record all %v): at most %d keys in the wide table, back to their cells %v: the test lacks power", spec, recordAll, mostWide, backNarrow)
			}
		}
	}
}

// A GCRA's remainder past 32 bits (a limit past 2^32: the remainder is in
// units of 1/L ns) sends its TAT to the wide table: the TAT kept is the
// one its arithmetic gives, and the GCRA still decides as the token bucket
// of the same capacity.
func TestCellsGCRARemainderPastCell(t *testing.T) {
	r := Rule{L: 1<<36 + 3, W: int64(time.Second) + 7}
	g, tk := NewGCRA(r, 0), NewToken(r, 0)
	g.Grow(4)
	tk.Grow(4)
	rng := rand.New(rand.NewPCG(11, 12))
	tm := int64(1_700_000_000_000_000_000)
	wide, refused := false, 0
	shadow := make([]TAT, 4) // each key's TAT, kept whole
	for i := range 20_000 {
		tm += rng.Int64N(r.W / 1000)
		id := int32(rng.IntN(4))
		cost := 1 + rng.Int64N(MaxCost)
		dg, dt := g.Decide(id, tm, cost), tk.Decide(id, tm, cost)
		if dg != dt {
			t.Fatalf("request %d: gcra decided %v, the token bucket %v", i, dg, dt)
		}
		if dg {
			g.Record(id, tm, cost)
			tk.Record(id, tm, cost)
			shadow[id].Push(tm, cost, r)
		} else {
			refused++
		}
		if _, v := g.load(id); v != shadow[id] {
			t.Fatalf("request %d: the GCRA keeps TAT %+v, its arithmetic gives %+v", i, v, shadow[id])
		}
		wide = wide || len(g.wide.m) > 0
	}
	if !wide || refused == 0 {
		t.Errorf("wide table used %v, %d refusals: the test lacks power", wide, refused)
	}
}
