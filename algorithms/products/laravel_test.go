package products_test

import (
	"math/rand/v2"
	"testing"

	"ratebench/algorithms"
	"ratebench/algorithms/products"
)

// ThrottleRequests on the array store for throttle:2,1 (decay 60 s):
// tooManyAttempts refuses once 2 hits are counted; hit puts the counter
// and the timer at the second of the window's first hit, for 60 s, kept
// through their expiry second (now > expiresAt expires), and adds 1
// whatever the cost (RateLimiter.php:90-129, ArrayStore.php:50-110).
func TestLaravelTimeline(t *testing.T) {
	l := mustNew(t, "laravel", "2/1m")
	p := l.(algorithms.Product)
	if p.Twin() != "fixed" || algorithms.CountsEvery(l) || l.Bytes(0) != 32 || len(p.Deviations()) != 4 {
		t.Fatalf("twin %q, counts every %v, %d bytes, deviations %v", p.Twin(), algorithms.CountsEvery(l), l.Bytes(0), p.Deviations())
	}
	t0 := t2023
	play(t, l, false, []step{
		{T: t0 + 500*ms, Cost: 1, Admit: true}, // the counter expires at second t0+60
		{T: t0 + 30*sec, Cost: 1, Admit: true},
		{T: t0 + 40*sec, Cost: 1, Admit: false},           // 2 >= 2: refused, not counted
		{T: t0 + 60*sec + 999*ms, Cost: 1, Admit: false},  // second t0+60: not yet > expiresAt
		{T: t0 + 61*sec, Cost: 3, Admit: true},            // expired: a new window from second t0+61, one hit
		{T: t0 + 61*sec + 500*ms, Cost: 1, Admit: true},   // 2
		{T: t0 + 100*sec, Cost: 1, Admit: false},          //
		{T: t0 + 121*sec + 999*ms, Cost: 1, Admit: false}, // second t0+121 = expiresAt
		{T: t0 + 122*sec + 100*ms, Cost: 2, Admit: true},  // a new window
	})
}

// Each deviation changes a decision of the twin on a timeline worked out
// from the source, alone (the clock beside anchor, where it shows);
// turned off too, the timeline is the twin's again.
func TestLaravelEachDeviationChangesADecision(t *testing.T) {
	for _, c := range []struct {
		name, rule, spec string
		reqs             [][2]int64
		twin, product    string
	}{
		// anchor: a window from 0.5 s holds the request at 1.2 s.
		{"anchor", "1/1s", "laravel:without=clock:without=closed:without=one-hit",
			[][2]int64{{500 * ms, 1}, {1200 * ms, 1}}, "AA", "AR"},
		// closed: the epoch's window [0, 1] holds the request at 1 s.
		{"closed", "1/1s", "laravel:without=anchor:without=clock:without=one-hit",
			[][2]int64{{500 * ms, 1}, {sec, 1}}, "AA", "AR"},
		// one-hit: a request of cost 2, then one of cost 1: two hits of 2.
		{"one-hit", "2/1m", "laravel:without=anchor:without=clock:without=closed",
			[][2]int64{{sec, 2}, {2 * sec, 1}}, "AR", "AA"},
	} {
		r := mustRule(t, c.rule)
		checkDeviation(t, func(spec string) string { return ownTimeline(t, spec, r, c.reqs...) }, "fixed", c.spec, c.name, c.twin, c.product)
	}
	// clock, beside anchor: the window of the hit at 0.5 s starts at
	// second 0 and has ended at 1.2 s.
	r := mustRule(t, "1/1s")
	reqs := [][2]int64{{500 * ms, 1}, {1200 * ms, 1}}
	if got := ownTimeline(t, "laravel:without=closed:without=one-hit", r, reqs...); got != "AA" {
		t.Errorf("clock with anchor: %s, want AA", got)
	}
	if got := ownTimeline(t, "laravel:without=clock:without=closed:without=one-hit", r, reqs...); got != "AR" {
		t.Errorf("anchor without clock: %s, want AR", got)
	}
	// Alone, the clock changes nothing: the epoch's windows of whole
	// seconds.
	rng := rand.New(rand.NewPCG(36, 1))
	for _, r := range productRules {
		sameDecisions(t, "laravel:without=anchor:without=closed:without=one-hit", "fixed", r, edgeTrace(rng, r, 8, 4000, t2023), false)
	}
}

// The spec takes no parameter; the window is whole seconds, at least one.
func TestLaravelSpecs(t *testing.T) {
	checkSpecs(t, mustRule(t, "60/1m"), map[string]string{
		"laravel":                                "laravel",
		"laravel:without=one-hit:without=anchor": "laravel:without=anchor:without=one-hit",
	}, []string{"laravel:", "laravel:decay=1", "laravel:without=floor"})
	for _, rule := range []string{"5/1500ms", "5/500ms"} {
		checkSpecs(t, mustRule(t, rule), nil, []string{"laravel"}, "whole seconds")
	}
	// throttle:5,2.05 is 2.05*60 = 122.99999999999999 s in float64, a decay
	// of 122 s to the cache.
	checkSpecs(t, mustRule(t, "5/123s"), nil, []string{"laravel"}, "decay of 122 s")
	for rule, m := range map[string]string{"60/1m": "1", "5/1s": "0.016666666666666666", "5/30s": "0.5", "10/2h": "120"} {
		if got := products.LaravelMinutes(mustRule(t, rule)); got != m {
			t.Errorf("%s: throttle:L,%s, want %s", rule, got, m)
		}
		mustNew(t, "laravel", rule)
	}
}

// Idle holds only when the cache has dropped the key's counter: a replay
// that releases idle keys decides as one that never does.
func TestLaravelIdleIsFresh(t *testing.T) {
	rng := rand.New(rand.NewPCG(36, 3))
	for _, rule := range []string{"3/1s", "10/1m", "7/30s"} {
		r := mustRule(t, rule)
		for _, spec := range []string{"laravel", "laravel:without=clock", "laravel:without=anchor:without=clock:without=closed:without=one-hit"} {
			idleIsFresh(t, rng, spec, r, t2023+123_456_789)
		}
	}
}
