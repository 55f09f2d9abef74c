package products_test

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"ratebench/algorithms"
	"ratebench/algorithms/products"
)

// playEvery runs steps on key 0 of l, recording every request when l counts
// every request (CountsEvery), else the admitted ones.
func playEvery(t *testing.T, l algorithms.Limiter, steps []step) {
	t.Helper()
	play(t, l, algorithms.CountsEvery(l), steps)
}

// rack-attack's arithmetic for limit 2, period 60 (throttle.rb:31, 41;
// cache.rb:64-67, 74): the key names now / 60 with now = Time.now.to_i;
// every request increments it by 1, whatever its cost, and is throttled
// iff the count after that exceeds 2. t0 is a whole minute of 2023.
func TestRackAttackTimeline(t *testing.T) {
	const t0 = int64(1_700_000_040) * sec
	l := mustNew(t, "rack-attack", "2/1m")
	p := l.(algorithms.Product)
	if !algorithms.CountsEvery(l) || p.Twin() != "fixed" || l.Bytes(0) != 16 || !l.FixedSize() {
		t.Fatalf("rack-attack: counts every %v, twin %q, %d bytes", algorithms.CountsEvery(l), p.Twin(), l.Bytes(0))
	}
	playEvery(t, l, []step{
		{T: t0 + sec/2, Cost: 1, Admit: true},         // key t0/60: count 1
		{T: t0 + 30*sec, Cost: 1, Admit: true},        // 2
		{T: t0 + 60*sec - 1, Cost: 1, Admit: false},   // 3 > 2; Time.now.to_i is still t0+59
		{T: t0 + 60*sec, Cost: 1, Admit: true},        // the next minute's key: 1
		{T: t0 + 61*sec, Cost: 2, Admit: true},        // one hit whatever its cost: 2
		{T: t0 + 62*sec, Cost: 1, Admit: false},       // 3 > 2, counted all the same
		{T: t0 + 63*sec, Cost: 1, Admit: false},       // 4 > 2
		{T: t0 + 120*sec + 5, Cost: 1, Admit: true},   // the minute after: 1
		{T: t0 + 179*sec + 999, Cost: 1, Admit: true}, // 2
	})
}

// The period is period.to_i: a window of 2.5 s is a period of 2 s, whose
// windows start on the epoch's even seconds. Limit 1: requests at 1.9 s
// and 2.0 s fall in windows 0 and 1 of the period; on windows of 2.5 s
// (the twin) both fall in the first, and 2.4 s with them.
func TestRackAttackPeriodTruncated(t *testing.T) {
	ms := int64(1e6)
	times := []int64{1900 * ms, 2000 * ms, 2400 * ms, 4000 * ms}
	r, _ := algorithms.ParseRule("1/2500ms")
	ra, err := products.NewRackAttack(r)
	if err != nil {
		t.Fatal(err)
	}
	if ra.Period() != 2 {
		t.Errorf("period %d s for a window of 2.5 s, want 2 (period.to_i)", ra.Period())
	}
	if got := timeline(t, "rack-attack", r, times...); got != "AARA" {
		t.Errorf("rack-attack decides %s, want AARA", got)
	}
	if got := timeline(t, "fixed", r, times...); got != "ARRA" {
		t.Errorf("fixed decides %s, want ARRA", got)
	}
}

// Each of rack-attack's deviations, alone, changes a decision of its twin,
// the fixed window; turned off, the timeline is the twin's again.
func TestRackAttackEachDeviationAloneChangesADecision(t *testing.T) {
	ms := int64(1e6)
	for _, c := range []struct {
		name, rule, spec string
		steps            []step // the product's decisions
		twin             []bool
	}{
		// Limit 1 per 1.5 s, a period of 1 s: requests at 1.6 s and 2.2 s
		// are in the period's windows 1 and 2, but both in the twin's
		// window [1.5 s, 3 s).
		{"period", "1/1500ms", "rack-attack:without=counts-refused:without=one-hit",
			[]step{{T: 1600 * ms, Cost: 1, Admit: true}, {T: 2200 * ms, Cost: 1, Admit: true}},
			[]bool{true, false}},
		// Limit 2 a minute: a request of cost 2 after one of cost 1 is
		// refused and still counted (3), so the next one (4 > 2) is too;
		// the twin counts only the first and admits it (2).
		{"counts-refused", "2/1m", "rack-attack:without=period:without=one-hit",
			[]step{{T: sec, Cost: 1, Admit: true}, {T: 2 * sec, Cost: 2, Admit: false}, {T: 3 * sec, Cost: 1, Admit: false}},
			[]bool{true, false, true}},
		// Limit 2 a minute: a request of cost 2, then one of cost 1. The
		// cache's counter counts one each (2 <= 2); the twin counts the
		// cost, 3 > 2.
		{"one-hit", "2/1m", "rack-attack:without=period:without=counts-refused",
			[]step{{T: sec, Cost: 2, Admit: true}, {T: 2 * sec, Cost: 1, Admit: true}},
			[]bool{true, false}},
	} {
		playEvery(t, mustNew(t, c.spec, c.rule), c.steps)
		twin := slices.Clone(c.steps)
		for i := range twin {
			twin[i].Admit = c.twin[i]
		}
		if slices.Equal(twin, c.steps) {
			t.Fatalf("%s: the timeline does not tell the deviation", c.name)
		}
		playEvery(t, mustNew(t, "fixed", c.rule), twin)
		off := mustNew(t, c.spec+":without="+c.name, c.rule)
		if algorithms.CountsEvery(off) {
			t.Errorf("%s counts every request", off.Name())
		}
		playEvery(t, off, twin)
	}
}

// The whole-second clock is no deviation: with a window of whole seconds
// the period's windows are the twin's whatever the requests' nanoseconds.
// And counting one hit a request, counting refused requests changes
// nothing (the count of a window that refused one is already at the
// limit): on a trace with costs, rack-attack decides as the fixed window
// does with every cost 1.
func TestRackAttackWholeSecondsDecideAsFixed(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	for _, r := range productRules {
		trace := poissonish(rng, r, 8, 5000)
		sameDecisions(t, "rack-attack:without=counts-refused:without=one-hit", "fixed", r, trace, false)
		every := decisions(t, "rack-attack", r, trace, true) // every request recorded
		for i := range trace {
			trace[i].Cost = 1
		}
		if !slices.Equal(every, decisions(t, "fixed", r, trace, false)) {
			t.Errorf("%v: rack-attack on the trace with costs decides otherwise than fixed with every cost 1", r)
		}
	}
}

// The spec takes no parameter; a window below a second (a period of 0) is
// refused, naming the whole seconds; 1.5 s is a period of 1 s.
func TestRackAttackSpecs(t *testing.T) {
	for _, rule := range []string{"5/1s", "5/1500ms", "100/1h"} {
		if l := mustNew(t, "rack-attack", rule); l.Name() != "rack-attack" {
			t.Errorf("%s: named %s", rule, l.Name())
		}
	}
	if l := mustNew(t, "rack-attack:without=period:without=counts-refused", "5/1s"); l.Name() != "rack-attack:without=period:without=counts-refused" {
		t.Errorf("named %s", l.Name())
	}
	r, _ := algorithms.ParseRule("5/999ms")
	if _, err := algorithms.New("rack-attack", r); err == nil || !strings.Contains(err.Error(), "whole seconds") {
		t.Errorf("5/999ms: %v, want an error about whole seconds", err)
	}
	r, _ = algorithms.ParseRule("5/1s")
	for _, spec := range []string{"rack-attack:", "rack-attack:period=2", "rack-attack:without=clock"} {
		if _, err := algorithms.New(spec, r); err == nil {
			t.Errorf("%s accepted", spec)
		}
	}
	r, _ = algorithms.ParseRule("5/1500ms")
	if ra, err := products.NewRackAttack(r); err != nil || ra.Period() != 1 {
		t.Errorf("5/1500ms: period %v, %v; want 1", ra, err)
	}
}
