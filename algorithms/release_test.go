package algorithms

import (
	"math/rand/v2"
	"testing"
)

// releaseSpecs are the limiters that release idle keys.
var releaseSpecs = []string{"log", "counter", "counter-lt", "counter-floor", "fixed", "token", "token:B=3", "gcra", "gcra:B=7", "buckets:1", "buckets:4", "leaky", "leaky:B=3", "xrate", "xrate:B=4", "ulule:without=clock", "ulule"}

// A key released when Idle says so decides afterwards exactly as a key
// that kept its state: on random traces, in both recording policies (own
// admissions, and every request, which drives token and gcra into debt).
func TestReleaseWhenIdleKeepsDecisions(t *testing.T) {
	for _, rs := range []string{"5/30s", "3/7s", "10/1000ns"} {
		r, _ := ParseRule(rs)
		for _, spec := range releaseSpecs {
			for _, all := range []bool{false, true} {
				kept, _ := New(spec, r)
				freed, _ := New(spec, r)
				kept.Grow(1)
				freed.Grow(1)
				rel := freed.(Releaser)
				rng := rand.New(rand.NewPCG(uint64(len(spec)), uint64(r.W)))
				var tt int64
				released, idle := 0, 0
				for i := range 20000 {
					gap := rng.Int64N(r.W / 3)
					if rng.IntN(10) == 0 {
						gap = rng.Int64N(20 * r.W) // sometimes a quiet spell
					}
					tt += gap
					if rel.Idle(0, tt) {
						idle++
						if rng.IntN(2) == 0 {
							rel.Release(0)
							released++
						}
					}
					cost := int64(1 + rng.IntN(2))
					a, b := kept.Decide(0, tt, cost), freed.Decide(0, tt, cost)
					if a != b {
						t.Fatalf("%s %s all=%v: request %d at %d: kept %v, released %v", spec, rs, all, i, tt, a, b)
					}
					if a || all {
						kept.Record(0, tt, cost)
						freed.Record(0, tt, cost)
					}
				}
				if released == 0 || idle == 20000 {
					t.Errorf("%s %s: %d releases of %d idle moments: the test did not exercise release", spec, rs, released, idle)
				}
			}
		}
	}
}

// A key that was just admitted is not idle; after a long enough silence it
// is (the bucket refilled, the windows passed).
func TestIdleAfterSilence(t *testing.T) {
	r, _ := ParseRule("5/30s")
	for _, spec := range releaseSpecs {
		l, _ := New(spec, r)
		l.Grow(1)
		rel := l.(Releaser)
		t0 := int64(1_000_000_000_000)
		for i := range 5 {
			l.Decide(0, t0+int64(i), 1)
			l.Record(0, t0+int64(i), 1)
		}
		if rel.Idle(0, t0+5) {
			t.Errorf("%s: idle right after five requests", spec)
		}
		if !rel.Idle(0, t0+5+3*r.W) {
			t.Errorf("%s: not idle 3W after the last request", spec)
		}
	}
}

// The log's memory counts a released key's peak once, also when the key
// returns under another id and Restore hands its peak back.
func TestLogMemoryAcrossRelease(t *testing.T) {
	r, _ := ParseRule("5/30s")
	l := NewLog(r)
	l.Grow(2)
	for i := range 3 {
		l.Decide(0, int64(i), 1)
		l.Record(0, int64(i), 1)
	}
	l.Decide(1, 0, 1)
	l.Record(1, 0, 1)
	peak := l.KeyPeak(0) // 3 entries and the sum: 32 bytes
	if peak != 32 {
		t.Fatalf("peak %d, want 32", peak)
	}
	if !l.Idle(0, 2+r.W) {
		t.Fatal("not idle after W")
	}
	l.Release(0)
	if p, sum := l.Memory(); p != 32 || sum != 32+16 {
		t.Errorf("after release: peak %d sum %d, want 32 and 48", p, sum)
	}
	l.Restore(0, peak) // the key is back (same id, reused)
	l.Decide(0, 3*r.W, 1)
	l.Record(0, 3*r.W, 1)
	if p, sum := l.Memory(); p != 32 || sum != 32+16 {
		t.Errorf("after return: peak %d sum %d, want 32 and 48", p, sum)
	}
}
