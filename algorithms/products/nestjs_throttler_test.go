package products_test

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"ratebench/algorithms"
)

// ThrottlerStorageService's arithmetic for limit 2, ttl 60000,
// blockDuration its default, ttl (increment, throttler.service.js): each
// hit expires 60000 ms after it; the request that finds 2 live hits is
// blocked till 60000 ms after it, the requests in the block refused and
// not counted; the first at or after the block's end is admitted, the
// key's hits forgotten.
func TestNestThrottlerTimeline(t *testing.T) {
	l := mustNew(t, "nestjs-throttler", "2/1m")
	if p := l.(algorithms.Product); p.Twin() != "log:block=1m" || algorithms.CountsEvery(l) || len(p.Deviations()) != 2 {
		t.Fatalf("twin %q, counts every %v, deviations %v", p.Twin(), algorithms.CountsEvery(l), p.Deviations())
	}
	play(t, l, false, []step{
		{T: 10*sec + 600*us, Cost: 1, Admit: true}, // expires at 70000 ms
		{T: 40 * sec, Cost: 1, Admit: true},        // expires at 100000 ms
		{T: 50 * sec, Cost: 1, Admit: false},       // 2 live: blocked till 110000 ms
		{T: 71 * sec, Cost: 1, Admit: false},       // one hit live, but blocked
		{T: 110*sec - 100*us, Cost: 1, Admit: false},
		{T: 110*sec + 400*us, Cost: 3, Admit: true}, // 110000 ms: the block is over, one hit whatever the cost
		{T: 111 * sec, Cost: 1, Admit: true},
		{T: 112 * sec, Cost: 1, Admit: false}, // blocked again till 172000 ms
		{T: 171 * sec, Cost: 1, Admit: false}, // the hits expired at 170000 and 171000 ms, the block has not
		{T: 172 * sec, Cost: 1, Admit: true},
	})
	// blockDuration 0: the sliding log, refused requests not counted.
	l = mustNew(t, "nestjs-throttler:blockDuration=0s", "2/1m")
	if p := l.(algorithms.Product); p.Twin() != "log" || l.Name() != "nestjs-throttler:blockDuration=0s" {
		t.Fatalf("twin %q, name %s", p.Twin(), l.Name())
	}
	play(t, l, false, []step{
		{T: 10 * sec, Cost: 1, Admit: true},
		{T: 40 * sec, Cost: 1, Admit: true},
		{T: 50 * sec, Cost: 1, Admit: false},
		{T: 70*sec - ms, Cost: 1, Admit: false},
		{T: 70 * sec, Cost: 1, Admit: true}, // the first hit expired at 70000 ms
		{T: 71 * sec, Cost: 1, Admit: false},
	})
}

// Each deviation, alone, changes a decision of the twin; turned off too,
// the timeline is the twin's again.
func TestNestThrottlerEachDeviationAloneChangesADecision(t *testing.T) {
	for _, c := range []struct {
		name, rule, spec, twinSpec string
		reqs                       [][2]int64
		twin, product              string
	}{
		// clock: the hit at 0.9 ms is 0 ms and expires at 1000 ms, before
		// the request at 1000.5 ms; in ns it expires at 1000.9 ms.
		{"clock", "1/1s", "nestjs-throttler:without=one-hit", "log:block=1s",
			[][2]int64{{900 * us, 1}, {1000*ms + 500*us, 1}}, "AR", "AA"},
		// one-hit: a request of cost 2, then one of cost 1: two hits of
		// two; the twin counts 3 > 2.
		{"one-hit", "2/1m", "nestjs-throttler:without=clock", "log:block=1m",
			[][2]int64{{sec, 2}, {2 * sec, 1}}, "AR", "AA"},
		// block-clears: blocked at 3 s till 13 s; the twin's log still
		// holds the hits of 1 and 2 s at 14 s.
		{"block-clears", "2/1m", "nestjs-throttler:blockDuration=10s:without=clock:without=one-hit", "log:block=10s",
			[][2]int64{{sec, 1}, {2 * sec, 1}, {3 * sec, 1}, {14 * sec, 1}}, "AARR", "AARA"},
	} {
		r := mustRule(t, c.rule)
		checkDeviation(t, func(spec string) string { return ownTimeline(t, spec, r, c.reqs...) }, c.twinSpec, c.spec, c.name, c.twin, c.product)
	}
}

// The spec: blockDuration from 0; block-clears only with a block shorter
// than the window; anything else refused naming nestjs-throttler.
func TestNestThrottlerSpecs(t *testing.T) {
	for _, c := range []struct {
		spec, rule, name string
		devs             int
	}{
		{"nestjs-throttler", "5/1s", "nestjs-throttler", 2},
		{"nestjs-throttler:blockDuration=1s", "5/1s", "nestjs-throttler:blockDuration=1s", 2},
		{"nestjs-throttler:blockDuration=10s", "5/1s", "nestjs-throttler:blockDuration=10s", 2},
		{"nestjs-throttler:blockDuration=500ms", "5/1s", "nestjs-throttler:blockDuration=500ms", 3},
		{"nestjs-throttler:blockDuration=0s", "5/1500us", "nestjs-throttler:blockDuration=0s", 2},
	} {
		l := mustNew(t, c.spec, c.rule)
		if l.Name() != c.name || len(l.(algorithms.Product).Deviations()) != c.devs {
			t.Errorf("%s is named %s with %d deviations, want %s, %d", c.spec, l.Name(), len(l.(algorithms.Product).Deviations()), c.name, c.devs)
		}
	}
	for _, c := range []struct{ spec, rule string }{
		{"nestjs-throttler:", "5/1s"},
		{"nestjs-throttler:blockDuration=-1s", "5/1s"},
		{"nestjs-throttler:ttl=1s", "5/1s"},
		{"nestjs-throttler", "5/999us"},
		{"nestjs-throttler", "9007199254740993/1s"},
	} {
		r := mustRule(t, c.rule)
		if _, err := algorithms.New(c.spec, r); err == nil || !strings.Contains(err.Error(), "nestjs-throttler") {
			t.Errorf("%s under %s: %v, want an error naming nestjs-throttler", c.spec, c.rule, err)
		}
	}
}

// With every deviation off it decides as its twin, log:block=D or log
// (independent mode; without a block, counting every request too).
func TestNestThrottlerDecidesAsTwinWithoutDeviations(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 1))
	for _, r := range ululeRules {
		if r.W < ms {
			continue
		}
		trace := poissonish(rng, r, 8, 3000)
		for _, extra := range []string{"", ":blockDuration=0s", ":blockDuration=" + algorithms.FormatWindow(r.W/3+1), ":blockDuration=" + algorithms.FormatWindow(2*r.W)} {
			p := mustNewRule(t, "nestjs-throttler"+extra, r).(algorithms.Product)
			sameDecisions(t, withoutAll(p), p.Twin(), r, trace, false)
			if extra == ":blockDuration=0s" {
				sameDecisions(t, withoutAll(p), p.Twin(), r, trace, true)
			}
		}
	}
}

// Idle holds exactly when the next request would find the key fresh: a
// replay that releases idle keys decides as one that never does.
func TestNestThrottlerIdleIsFresh(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 2))
	for _, r := range []algorithms.Rule{{L: 3, W: int64(time.Second)}, {L: 2, W: 1500 * us}} {
		for _, spec := range []string{"nestjs-throttler", "nestjs-throttler:blockDuration=0s", "nestjs-throttler:blockDuration=300us", "nestjs-throttler:without=clock"} {
			idleIsFresh(t, rng, spec, r, 0)
		}
	}
}
