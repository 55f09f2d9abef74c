package products_test

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"ratebench/algorithms"
)

// LocalStore.incr's arithmetic for max 2, timeWindow 60000: a key's entry
// starts at its first request; a request at or after iterationStartMs +
// 60000 starts it again, any other adds one, refused ones included;
// refused iff current > 2. With continueExceeding, a request past max
// restarts the window at its own instant.
func TestFastifyRateLimitTimeline(t *testing.T) {
	l := mustNew(t, "fastify-rate-limit", "2/1m")
	if p := l.(algorithms.Product); p.Twin() != "fixed" || !algorithms.CountsEvery(l) || len(p.Deviations()) != 4 {
		t.Fatalf("twin %q, counts every %v, deviations %v", p.Twin(), algorithms.CountsEvery(l), p.Deviations())
	}
	play(t, l, true, []step{
		{T: 30*sec + 600*us, Cost: 1, Admit: true},  // starts at 30000 ms: 1
		{T: 40 * sec, Cost: 3, Admit: true},         // 2, one whatever the cost
		{T: 50 * sec, Cost: 1, Admit: false},        // 3 > 2
		{T: 61 * sec, Cost: 1, Admit: false},        // 4: the window is the key's
		{T: 90*sec - 100*us, Cost: 1, Admit: false}, // 89999 ms
		{T: 90*sec + 900*us, Cost: 1, Admit: true},  // 90000 ms: a new window
	})
	l = mustNew(t, "fastify-rate-limit:continue-exceeding", "2/1m")
	if p := l.(algorithms.Product); p.Twin() != "fixed:block=1m" || len(p.Deviations()) != 5 {
		t.Fatalf("twin %q, deviations %v", p.Twin(), p.Deviations())
	}
	play(t, l, true, []step{
		{T: 30 * sec, Cost: 1, Admit: true},
		{T: 40 * sec, Cost: 1, Admit: true},
		{T: 50 * sec, Cost: 1, Admit: false},  // 3 > 2: the window restarts at 50000 ms
		{T: 100 * sec, Cost: 1, Admit: false}, // 4, restarts at 100000 ms
		{T: 160*sec - ms, Cost: 1, Admit: false},
		{T: 220*sec - ms, Cost: 1, Admit: true}, // 60000 ms after the last refusal: a new window
	})
}

// Each deviation, alone, changes a decision of the twin; turned off too,
// the timeline is the twin's again.
func TestFastifyRateLimitEachDeviationAloneChangesADecision(t *testing.T) {
	for _, c := range []struct {
		name, rule, spec, twinSpec string
		reqs                       [][2]int64
		twin, product              string
	}{
		{"anchor", "2/1m", "fastify-rate-limit:without=clock:without=counts-refused:without=one-hit", "fixed",
			[][2]int64{{30 * sec, 1}, {40 * sec, 1}, {61 * sec, 1}}, "AAA", "AAR"},
		// clock: timeWindow 1.5 ms is 1 ms: 1.2 ms is in the next window.
		{"clock", "1/1500us", "fastify-rate-limit:without=anchor:without=counts-refused:without=one-hit", "fixed",
			[][2]int64{{0, 1}, {1200 * us, 1}}, "AR", "AA"},
		{"counts-refused", "2/1m", "fastify-rate-limit:without=anchor:without=clock:without=one-hit", "fixed",
			[][2]int64{{sec, 1}, {2 * sec, 2}, {3 * sec, 1}}, "ARA", "ARR"},
		{"one-hit", "2/1m", "fastify-rate-limit:without=anchor:without=clock:without=counts-refused", "fixed",
			[][2]int64{{sec, 2}, {2 * sec, 1}}, "AR", "AA"},
		// extends: refused at 10 s, and again at 65 s: the twin's block
		// ends at 70 s, the product's restarts at 65 s.
		{"extends", "1/1m", "fastify-rate-limit:continue-exceeding:without=anchor:without=clock:without=counts-refused:without=one-hit", "fixed:block=1m",
			[][2]int64{{0, 1}, {10 * sec, 1}, {65 * sec, 1}, {71 * sec, 1}}, "ARRA", "ARRR"},
	} {
		r := mustRule(t, c.rule)
		checkDeviation(t, func(spec string) string { return ownTimeline(t, spec, r, c.reqs...) }, c.twinSpec, c.spec, c.name, c.twin, c.product)
	}
}

// The spec: continue-exceeding or nothing; a window below 1 ms is refused.
func TestFastifyRateLimitSpecs(t *testing.T) {
	checkSpecs(t, mustRule(t, "5/1s"), map[string]string{
		"fastify-rate-limit":                                    "fastify-rate-limit",
		"fastify-rate-limit:continue-exceeding":                 "fastify-rate-limit:continue-exceeding",
		"fastify-rate-limit:continue-exceeding:without=extends": "fastify-rate-limit:continue-exceeding:without=extends",
		"fastify-rate-limit:without=anchor:continue-exceeding":  "fastify-rate-limit:continue-exceeding:without=anchor",
	}, []string{"fastify-rate-limit:", "fastify-rate-limit:continueExceeding", "fastify-rate-limit:without=extends"}, "fastify-rate-limit")
	for _, rule := range []string{"5/999us", "9007199254740993/1s"} {
		if _, err := algorithms.New("fastify-rate-limit", mustRule(t, rule)); err == nil || !strings.Contains(err.Error(), "fastify-rate-limit") {
			t.Errorf("under %s: %v, want an error naming fastify-rate-limit", rule, err)
		}
	}
}

// With every deviation off it decides as its twin (with continue-exceeding
// in independent mode, as the refusal cache counts).
func TestFastifyRateLimitDecidesAsTwinWithoutDeviations(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 1))
	for _, r := range ululeRules {
		if r.W < ms {
			continue
		}
		trace := poissonish(rng, r, 8, 3000)
		for _, spec := range []string{"fastify-rate-limit", "fastify-rate-limit:continue-exceeding"} {
			p := mustNewRule(t, spec, r).(algorithms.Product)
			sameDecisions(t, withoutAll(p), p.Twin(), r, trace, false)
			if spec == "fastify-rate-limit" {
				sameDecisions(t, withoutAll(p), p.Twin(), r, trace, true)
			}
		}
	}
}

// Idle holds exactly when the next request would start afresh.
func TestFastifyRateLimitIdleIsFresh(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 2))
	for _, r := range []algorithms.Rule{{L: 3, W: int64(time.Second)}, {L: 2, W: 1500 * us}} {
		for _, spec := range []string{"fastify-rate-limit", "fastify-rate-limit:continue-exceeding", "fastify-rate-limit:without=anchor", "fastify-rate-limit:continue-exceeding:without=clock"} {
			idleIsFresh(t, rng, spec, r, 0)
		}
	}
}
