package algorithms

import (
	"math/rand/v2"
	"strings"
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

// idleSpecs are the limiters whose Idle TestIdleExactlyWhenStateIsInitial
// checks: those that release idle keys and the products' models that can
// tell, but xrate, whose float64 bucket refills to full only approximately.
func idleSpecs() []string {
	var out []string
	for _, s := range releaseSpecs {
		if !strings.HasPrefix(s, "xrate") {
			out = append(out, s)
		}
	}
	return append(out, "upstash", "upstash-fixed", "upstash-token", "envoy", "kong", "nginx", "redis_rate", "redis-cell", "throttled")
}

// quietState are the limiters whose state can differ from a new key's
// while no request at that instant decides otherwise, and why: their state
// is still not the initial one, and Idle says so.
var quietState = map[string]string{
	// admits iff its estimate is below L, whatever the cost: a previous
	// count weighing less than 1 changes nothing until it has gone
	"counter-lt": "estimate below L",
	// round the weighted previous count down, to the same effect
	"counter-floor": "floored estimate",
	"upstash":       "floored estimate",
	// a full bucket whose Redis key has not expired keeps the phase of its
	// refills, which only a later request reveals
	"upstash-token": "refill phase",
}

// Idle is exact: a key that Idle says is not idle at t decides otherwise
// than a key never seen on some request at t (one of cost c, for each c up
// to 2L, or a run of requests of cost 1, each recorded when admitted), so
// that its state is not back to its initial value and a compact
// implementation must keep it; and one that is idle decides as a new key
// on every such probe. The key's history is random, recorded as admitted
// or, half the time, every request (a request refused and not recorded
// leaves nothing behind).
func TestIdleExactlyWhenStateIsInitial(t *testing.T) {
	t.Parallel()
	for _, rs := range []string{"3/7s", "5/1m"} {
		r, _ := ParseRule(rs)
		for _, spec := range idleSpecs() {
			if _, err := New(spec, r); err != nil {
				continue // a product that cannot express the rule (envoy and kong: a whole unit)
			}
			for _, all := range []bool{false, true} {
				rng := rand.New(rand.NewPCG(uint64(len(spec)), uint64(r.W)))
				type req struct{ t, cost int64 }
				var hist []req
				var tt int64
				idle, held := 0, 0
				for range 150 {
					tt += rng.Int64N(r.W / 2)
					if rng.IntN(6) == 0 {
						tt += rng.Int64N(3 * r.W)
					}
					hist = append(hist, req{tt, int64(1 + rng.IntN(int(r.L)+1))})
					at := tt + rng.Int64N(2*r.W) // a moment after the key's last request
					replayed := func() Limiter {
						l, _ := New(spec, r)
						l.Grow(1)
						for _, q := range hist {
							if l.Decide(0, q.t, q.cost) || all {
								l.Record(0, q.t, q.cost)
							}
						}
						return l
					}
					differs := false
					for c := int64(1); c <= 2*r.L && !differs; c++ {
						fresh, _ := New(spec, r)
						fresh.Grow(1)
						differs = replayed().Decide(0, at, c) != fresh.Decide(0, at, c)
					}
					if !differs {
						l := replayed()
						fresh, _ := New(spec, r)
						fresh.Grow(1)
						for range 2*r.L + 2 {
							a, b := l.Decide(0, at, 1), fresh.Decide(0, at, 1)
							if a != b {
								differs = true
								break
							}
							if a {
								l.Record(0, at, 1)
								fresh.Record(0, at, 1)
							}
						}
					}
					isIdle := replayed().(Releaser).Idle(0, at)
					if isIdle == differs && (isIdle || quietState[spec] == "") {
						t.Fatalf("%s %s all=%v: after %d requests (last at %d), at %d: idle %v, but a probe there decides otherwise than a new key: %v", spec, rs, all, len(hist), tt, at, isIdle, differs)
					}
					if isIdle {
						idle++
					} else {
						held++
					}
				}
				if (idle == 0 || held == 0) && !all { // recording every request, a bucket can stay in debt throughout
					t.Errorf("%s %s all=%v: %d idle, %d holding state: the test did not exercise both", spec, rs, all, idle, held)
				}
			}
		}
	}
}
