package products_test

import (
	"context"
	"math/rand/v2"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sethvargo/go-limiter/memorystore"

	"ratebench/algorithms"
	_ "ratebench/algorithms/products"
)

// go-limiter's clock cannot be injected (a linkname to time.now, which not
// even a synctest bubble fakes), so these timelines are worked out from
// memorystore/store.go at v0.7.1: the bucket is created full at the key's
// first Take (lines 136-143, 272-281); tick = (now-start)/interval (341-343);
// a later tick sets the tokens to min(max, uint64(float64(delta)*fillRate)),
// fillRate = interval/tokens (307-310, 324-333, 278); a request takes one
// token iff one is left (312-316).
func TestGoLimiterTimeline(t *testing.T) {
	g := mustNew(t, "go-limiter", "3/1m")
	if p := g.(algorithms.Product); p.Twin() != "fixed" || algorithms.CountsEvery(g) || g.CountsRejected() {
		t.Fatalf("go-limiter: twin %q, counts every %v, counts rejected %v", p.Twin(), algorithms.CountsEvery(g), g.CountsRejected())
	}
	// fillRate = 6e10/3 = 2e10 ns: one tick refills all 3 tokens.
	play(t, g, false, []step{
		{T: 10 * sec, Cost: 1, Admit: true},  // created at 10 s, full: 3 -> 2
		{T: 20 * sec, Cost: 5, Admit: true},  // one token whatever the cost: 1
		{T: 30 * sec, Cost: 1, Admit: true},  // 0
		{T: 69 * sec, Cost: 1, Admit: false}, // tick (69-10)/60 = 0: no token (the epoch's minute changed)
		{T: 70 * sec, Cost: 1, Admit: true},  // tick 1: min(3, 2e10) = 3 -> 2
		{T: 70 * sec, Cost: 1, Admit: true},
		{T: 70 * sec, Cost: 1, Admit: true},
		{T: 70 * sec, Cost: 1, Admit: false},
		{T: 250 * sec, Cost: 1, Admit: true}, // tick 4
	})
	// anchor off: ticks from the epoch, a new one at 60 s.
	play(t, mustNew(t, "go-limiter:without=anchor", "3/1m"), false, []step{
		{T: 10 * sec, Cost: 1, Admit: true}, {T: 20 * sec, Cost: 5, Admit: true}, {T: 30 * sec, Cost: 1, Admit: true}, {T: 59 * sec, Cost: 1, Admit: false}, {T: 60 * sec, Cost: 1, Admit: true},
	})
	// cost off: the request of cost 5 needs 5 tokens.
	play(t, mustNew(t, "go-limiter:without=cost", "3/1m"), false, []step{
		{T: 10 * sec, Cost: 1, Admit: true}, {T: 20 * sec, Cost: 5, Admit: false}, {T: 30 * sec, Cost: 2, Admit: true}, {T: 40 * sec, Cost: 1, Admit: false},
	})
}

// With interval < tokens² ns a tick refills only delta*interval/tokens
// tokens: 3000 per ms gives fillRate 1e6/3000 = 333.33 ns per token, so
// one tick sets 333 tokens (uint64(333.33)), two 666.
func TestGoLimiterPartialRefill(t *testing.T) {
	burst := func(at, n int64, steps []step) []step {
		for range n {
			steps = append(steps, step{T: at, Cost: 1, Admit: true})
		}
		return append(steps, step{T: at, Cost: 1, Admit: false})
	}
	t0 := 250 * us
	var steps []step
	steps = burst(t0, 3000, steps)            // created full
	steps = burst(t0+ms, 333, steps)          // tick 1, delta 1
	steps = burst(t0+3*ms+999*us, 666, steps) // tick 3, delta 2
	steps = burst(t0+13*ms, 3000, steps)      // tick 13, delta 10: 3333, capped
	play(t, mustNew(t, "go-limiter", "3000/1ms"), false, steps)

	var full []step
	for _, at := range []int64{t0, t0 + ms, t0 + 3*ms + 999*us, t0 + 13*ms} {
		full = burst(at, 3000, full)
	}
	play(t, mustNew(t, "go-limiter:without=refill", "3000/1ms"), false, full)
}

func TestGoLimiterDecidesAsFixedWithoutDeviations(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 4))
	for _, r := range ululeRules {
		trace := poissonish(rng, r, 8, 3000)
		sameDecisions(t, "go-limiter:without=anchor:without=refill:without=cost", "fixed", r, trace, false)
	}
	if l := mustNew(t, "go-limiter:without=cost", "3/1m"); l.Name() != "go-limiter:without=cost" {
		t.Errorf("name %s", l.Name())
	}
}

// The module's clock is the wall clock even in a synctest bubble: after
// two minutes of the bubble's fake time, a bucket of 1 token per minute
// has not refilled (it would have on the bubble's clock). This is why the
// model is checked on timelines rather than beside the module.
func TestGoLimiterIgnoresTheFakeClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		store, err := memorystore.New(&memorystore.Config{Tokens: 1, Interval: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		defer store.Close(ctx)
		_, _, _, first, _ := store.Take(ctx, "k")
		time.Sleep(2 * time.Minute)
		_, _, _, second, _ := store.Take(ctx, "k")
		if !first || second {
			t.Errorf("takes %v, %v: want true, then false on the wall clock", first, second)
		}
	})
}
