package products_test

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"ratebench/algorithms"
	"ratebench/algorithms/products"
)

// The middleware's arithmetic for limit 2, windowMs 60000 (memory store,
// dist/index.cjs:124-130, 1087): every request increments first, by one
// whatever its cost; a client whose resetTime <= Date.now() restarts at 0
// with resetTime now + 60000; refused iff the count exceeds 2. The Redis
// store's script decides alike (PTTL <= 0 at the expiry itself: SET key 1
// PX 60000).
func TestExpressRateLimitTimeline(t *testing.T) {
	steps := []step{
		{T: 30*sec + 600*us, Cost: 1, Admit: true},  // new client at 30000 ms, reset at 90000 ms: 1
		{T: 40 * sec, Cost: 1, Admit: true},         // 2
		{T: 50 * sec, Cost: 1, Admit: false},        // 3 > 2, counted
		{T: 61 * sec, Cost: 1, Admit: false},        // the epoch's minute changed, the client's window did not: 4
		{T: 90*sec - 100*us, Cost: 1, Admit: false}, // 89999 ms < 90000: 5
		{T: 90*sec + 900*us, Cost: 1, Admit: true},  // 90000 ms: resetTime <= now, reset at 150000 ms: 1
		{T: 150*sec - 1, Cost: 1, Admit: true},      // 149999 ms: 2
		{T: 150 * sec, Cost: 3, Admit: true},        // reset again: 1, one hit whatever its cost
		{T: 151 * sec, Cost: 2, Admit: true},        // 2
		{T: 152 * sec, Cost: 1, Admit: false},       // 3 > 2
	}
	for _, spec := range []string{"express-rate-limit", "express-rate-limit:store=memory", "express-rate-limit:store=redis"} {
		l := mustNew(t, spec, "2/1m")
		if !algorithms.CountsEvery(l) || l.(algorithms.Product).Twin() != "fixed" {
			t.Fatalf("%s: counts every %v, twin %q", spec, algorithms.CountsEvery(l), l.(algorithms.Product).Twin())
		}
		play(t, l, true, steps)
	}
}

// Each deviation, alone, changes a decision of the twin, fixed; turned off
// too, the timeline is the twin's again.
func TestExpressRateLimitEachDeviationAloneChangesADecision(t *testing.T) {
	for _, c := range []struct {
		name, rule, spec string
		reqs             [][2]int64
		twin, product    string
	}{
		// anchor: the window opens at the first request, 30 s, and ends
		// at 90 s; the epoch's minute ends at 60 s.
		{"anchor", "2/1m", "express-rate-limit:without=clock:without=counts-refused:without=one-hit",
			[][2]int64{{30 * sec, 1}, {40 * sec, 1}, {61 * sec, 1}}, "AAA", "AAR"},
		// clock: a window of 1.5 ms is windowMs 1.5, truncated to 1 ms
		// (on the epoch's windows, anchor off): 0 and 1.2 ms share the
		// twin's window, not the product's.
		{"clock", "1/1500us", "express-rate-limit:without=anchor:without=counts-refused:without=one-hit",
			[][2]int64{{0, 1}, {1200 * us, 1}}, "AR", "AA"},
		// counts-refused: the refused request of cost 2 is counted (3),
		// so the next of cost 1 is refused; the twin counts 1 and admits.
		{"counts-refused", "2/1m", "express-rate-limit:without=anchor:without=clock:without=one-hit",
			[][2]int64{{sec, 1}, {2 * sec, 2}, {3 * sec, 1}}, "ARA", "ARR"},
		// one-hit: a request of cost 2, then one of cost 1: the store
		// counts one hit each, 2 <= 2; the twin counts the cost, 3 > 2.
		{"one-hit", "2/1m", "express-rate-limit:without=anchor:without=clock:without=counts-refused",
			[][2]int64{{sec, 2}, {2 * sec, 1}}, "AR", "AA"},
	} {
		r, err := algorithms.ParseRule(c.rule)
		if err != nil {
			t.Fatal(err)
		}
		checkDeviation(t, func(spec string) string { return ownTimeline(t, spec, r, c.reqs...) }, "fixed", c.spec, c.name, c.twin, c.product)
	}
}

// The millisecond clock with the anchor: a first request at 0.9 ms is
// anchored at 0 ms, its window over at 1000 ms, where a request at
// 1000.5 ms starts the next; on nanoseconds the window ends at 1000.9 ms.
// And the memory store's reset time is now + windowMs in float64,
// truncated: near 1.7e12 ms the float64 step is 2^-12 ms, so windowMs
// 1000.9999 makes the sum round up to now + 1001, and a request 1000 ms
// after the first is still in its window.
func TestExpressRateLimitClock(t *testing.T) {
	r, _ := algorithms.ParseRule("1/1s")
	reqs := [][2]int64{{900 * us, 1}, {1000*ms + 500*us, 1}}
	if got := ownTimeline(t, "express-rate-limit", r, reqs...); got != "AA" {
		t.Errorf("ms clock: %s, want AA", got)
	}
	if got := ownTimeline(t, "express-rate-limit:without=clock", r, reqs...); got != "AR" {
		t.Errorf("ns clock: %s, want AR", got)
	}
	r = algorithms.Rule{L: 1, W: 1000*ms + 999900}
	now := int64(1_700_000_000_000) * ms
	reqs = [][2]int64{{now, 1}, {now + 1000*ms, 1}, {now + 1001*ms, 1}}
	if got := ownTimeline(t, "express-rate-limit", r, reqs...); got != "ARA" {
		t.Errorf("windowMs 1000.9999 at 1.7e12 ms: %s, want ARA (the sum rounds up to 1001)", got)
	}
	// At 0 ms the sum is exact: truncated, the window is 1000 ms.
	if got := ownTimeline(t, "express-rate-limit", r, [2]int64{0, 1}, [2]int64{1000 * ms, 1}); got != "AA" {
		t.Errorf("windowMs 1000.9999 at 0: %s, want AA", got)
	}
	e, err := products.NewExpressRateLimit(r, "", false)
	if err != nil || e.WindowMs() != 1000.9999 || e.Redis() {
		t.Errorf("windowMs %v, redis %v, err %v", e.WindowMs(), e.Redis(), err)
	}
}

// The spec: the store, memory by default, and the windows each store
// takes; anything else is refused naming express-rate-limit.
func TestExpressRateLimitSpecs(t *testing.T) {
	for _, c := range []struct{ spec, rule, name string }{
		{"express-rate-limit", "5/1s", "express-rate-limit"},
		{"express-rate-limit:store=memory", "5/1s", "express-rate-limit"},
		{"express-rate-limit:store=redis", "5/1s", "express-rate-limit:store=redis"},
		{"express-rate-limit:store=redis:without=anchor", "5/1s", "express-rate-limit:store=redis:without=anchor"},
		{"express-rate-limit", "5/1500us", "express-rate-limit"},
		{"express-rate-limit", "5/1ms", "express-rate-limit"},
		{"express-rate-limit", "5/596h31m23.647s", "express-rate-limit"}, // 2^31-1 ms
	} {
		l := mustNew(t, c.spec, c.rule)
		if l.Name() != c.name {
			t.Errorf("%s is named %s, want %s", c.spec, l.Name(), c.name)
		}
	}
	for _, c := range []struct{ spec, rule string }{
		{"express-rate-limit:", "5/1s"},
		{"express-rate-limit:store=file", "5/1s"},
		{"express-rate-limit:redis", "5/1s"},
		{"express-rate-limit:store=redis", "5/1500us"},   // PX takes whole ms
		{"express-rate-limit:store=redis", "5/500us"},    // below 1 ms
		{"express-rate-limit", "5/999us"},                // below 1 ms
		{"express-rate-limit", "5/596h31m23.648s"},       // 2^31 ms, beyond setTimeout
		{"express-rate-limit", "5/596h31m23.647000001s"}, // just beyond
		{"express-rate-limit", "9007199254740993/1s"},    // 2^53+1
	} {
		r, err := algorithms.ParseRule(c.rule)
		if err != nil {
			t.Fatalf("%s: %v", c.rule, err)
		}
		if _, err := algorithms.New(c.spec, r); err == nil || !strings.Contains(err.Error(), "express-rate-limit") {
			t.Errorf("%s under %s: %v, want an error naming express-rate-limit", c.spec, c.rule, err)
		}
	}
}

// With every deviation off it decides as fixed, counting what the harness
// records (both policies), for both stores; and on whole milliseconds
// with cost 1 the two stores decide alike.
func TestExpressRateLimitDecidesAsFixedWithoutDeviations(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 9))
	for _, r := range ululeRules {
		trace := poissonish(rng, r, 8, 3000)
		for _, store := range []string{"", ":store=redis"} {
			if r.W < ms || store != "" && r.W%ms != 0 {
				continue
			}
			spec := "express-rate-limit" + store + ":without=anchor:without=clock:without=counts-refused:without=one-hit"
			sameDecisions(t, spec, "fixed", r, trace, false)
			sameDecisions(t, spec, "fixed", r, trace, true)
		}
	}
}

// Idle holds exactly when the next request would start a new window: a
// replay that releases idle keys decides as one that never does.
func TestExpressRateLimitIdleIsFresh(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 10))
	for _, r := range []algorithms.Rule{{L: 3, W: int64(time.Second)}, {L: 2, W: 1500 * us}} {
		for _, spec := range []string{"express-rate-limit", "express-rate-limit:without=anchor", "express-rate-limit:without=clock"} {
			idleIsFresh(t, rng, spec, r, 0)
		}
	}
}
