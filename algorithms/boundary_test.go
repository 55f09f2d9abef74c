package algorithms_test

import (
	"testing"
	"time"

	"ratebench/algorithms"
)

func TestLogWindowIsHalfOpen(t *testing.T) {
	// A request exactly W old has expired: the window is (t-W, t].
	runSteps(t, algorithms.NewLog(algorithms.Rule{L: 1, W: 10}), []step{
		{T: 0, Cost: 1, Admit: true}, {T: 9, Cost: 1, Admit: false}, {T: 10, Cost: 1, Admit: true}, {T: 19, Cost: 1, Admit: false}, {T: 20, Cost: 1, Admit: true},
	})
	runSteps(t, algorithms.NewLog(algorithms.Rule{L: 3, W: 10}), []step{
		{T: 5, Cost: 2, Admit: true}, {T: 6, Cost: 2, Admit: false}, {T: 6, Cost: 1, Admit: true}, {T: 14, Cost: 1, Admit: false}, {T: 15, Cost: 2, Admit: true}, {T: 16, Cost: 1, Admit: true}, {T: 16, Cost: 1, Admit: false},
	})
}

// TestCounterExactEquality puts the counter exactly on its limit,
// prev*(W-e)/W + curr + 1 = L, for many (prev, e, W) where the weighted
// count is a whole number, and checks it admits there and refuses one
// request later. It also counts the cases a float64 evaluation of the same
// formula decides wrongly, to show the test can catch a rounding bug.
func TestCounterExactEquality(t *testing.T) {
	windows := []int64{int64(30 * time.Second), int64(time.Minute), int64(time.Second) + 1, int64(24 * time.Hour), 7, 1000003}
	cases, floatWrong := 0, 0
	for _, W := range windows {
		for prev := int64(1); prev <= 60; prev++ {
			for j := int64(1); j < prev; j++ {
				if (W*j)%prev != 0 || W*j/prev == W {
					continue
				}
				e := W - W*j/prev // prev*(W-e)/W == j exactly
				for _, curr := range []int64{0, 3} {
					L := j + curr + 1
					r := algorithms.Rule{L: L, W: W}
					c := algorithms.NewCounter(r)
					c.Grow(1)
					for range prev { // fill the previous window (recorded whatever the decision)
						c.Decide(0, W, 1)
						c.Record(0, W, 1)
					}
					for range curr {
						c.Decide(0, 2*W, 1)
						c.Record(0, 2*W, 1)
					}
					at := 2*W + e
					if !c.Decide(0, at, 1) {
						t.Fatalf("W=%d prev=%d curr=%d e=%d: estimate %d + 1 = L=%d refused", W, prev, curr, e, j+curr, L)
					}
					if c.Decide(0, at, 2) {
						t.Fatalf("W=%d prev=%d curr=%d e=%d: cost 2 admitted over L=%d", W, prev, curr, e, L)
					}
					if e > 0 && c.Decide(0, at-1, 1) {
						t.Fatalf("W=%d prev=%d e=%d: admitted 1ns before the estimate reaches L", W, prev, e-1)
					}
					cases++
					fl := float64(prev)*(float64(W-e)/float64(W)) + float64(curr) + 1
					if fl > float64(L) {
						floatWrong++
					}
				}
			}
		}
	}
	if cases < 100 || floatWrong == 0 {
		t.Fatalf("%d equality cases, %d that float64 gets wrong: the test lost its power", cases, floatWrong)
	}
	t.Logf("%d exact-equality cases; float64 would refuse %d of them", cases, floatWrong)
}

// TestTokenRefillIsExact refills 0.1 token per ns, one ns at a time: a
// float64 bucket reaches 0.9999999999999999 after ten steps and refuses;
// the exact bucket holds one whole token at t=10.
func TestTokenRefillIsExact(t *testing.T) {
	r := algorithms.Rule{L: 1, W: 10}
	var steps []step
	steps = append(steps, step{T: 0, Cost: 1, Admit: true})
	for at := int64(1); at < 10; at++ {
		steps = append(steps, step{T: at, Cost: 1, Admit: false})
	}
	steps = append(steps, step{T: 10, Cost: 1, Admit: true}, step{T: 10, Cost: 1, Admit: false})
	runSteps(t, algorithms.NewToken(r, 0), steps)
	runSteps(t, algorithms.NewGCRA(r, 0), steps)

	tok := 0.0
	for range 10 {
		tok += 0.1
	}
	if tok >= 1 {
		t.Fatalf("float64 refill reached %v: the test lost its power", tok)
	}
}

// TestOverflowingProducts uses L = 10^6 with W = 24h, where L*W exceeds
// int64, and recent Unix timestamps, where t*N and dt*L do too.
func TestOverflowingProducts(t *testing.T) {
	r := algorithms.Rule{L: 1_000_000, W: int64(24 * time.Hour)}
	base := (int64(1_700_000_000_000_000_000) / r.W) * r.W // a window start
	for _, spec := range []string{"counter", "buckets:1"} {
		lim, _ := algorithms.New(spec, r)
		lim.Grow(1)
		lim.Decide(0, base, 1)
		lim.Record(0, base, 999_999) // previous window: 999,999
		// Half a window later, 499,999.5 of it still weighs: 500,000 fit, not 500,001.
		at := base + r.W + r.W/2
		if !lim.Decide(0, at, 500_000) || lim.Decide(0, at, 500_001) {
			t.Errorf("%s: wrong decision at the limit with L*W > 2^63", spec)
		}
	}
	tok := algorithms.NewToken(r, 0)
	tok.Grow(1)
	tok.Decide(0, base, 1_000_000)
	tok.Record(0, base, 1_000_000)
	// 1 token every 86.4 ms: after 86.4 ms exactly one, not two.
	if at := base + 86_400_000; !tok.Decide(0, at, 1) || tok.Decide(0, at, 2) {
		t.Error("token: wrong refill with dt*L near 2^63")
	}
}
