package products_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"ratebench/algorithms"
	"ratebench/algorithms/products"
)

// CL.THROTTLE key 2 3 1 (rule 3/1s): T = (1e9 as f64 / 3 as f64) as i64 =
// 333333333 ns (mod.rs:42), DVT = 3T = 999999999 (mod.rs:78-80); admitted
// iff max(tat-now, 0) + T*q <= DVT (mod.rs:153-175), nothing stored when
// limited (mod.rs:186-188).
func TestRedisCellTimeline(t *testing.T) {
	l := mustNew(t, "redis-cell", "3/1s")
	rc := l.(*products.RedisCell)
	if rc.Interval() != 333333333 || rc.Twin() != "gcra" || l.Name() != "redis-cell" {
		t.Fatalf("%s: interval %d, twin %s", l.Name(), rc.Interval(), rc.Twin())
	}
	t0 := int64(1_700_000_000) * sec
	steps := func(truncated bool) []step {
		return []step{
			{T: t0, Cost: 1, Admit: true},              // tat = t0 + T
			{T: t0, Cost: 1, Admit: true},              // t0 + 2T
			{T: t0, Cost: 1, Admit: true},              // t0 + 3T = t0 + 999999999
			{T: t0, Cost: 1, Admit: false},             // 3T + T > DVT
			{T: t0 + 333333332, Cost: 1, Admit: false}, // tat - now = 666666667; + T = 1e9 > DVT
			// tat - now = 666666666: + T = DVT, admitted; exactly
			// (T = 1e9/3, tat = t0 + 1e9) 666666667 + 333333333.3 > 1e9.
			{T: t0 + 333333333, Cost: 1, Admit: truncated},
		}
	}
	play(t, l, false, steps(true))
	play(t, mustNew(t, "redis-cell:without=truncation", "3/1s"), false, steps(false))
	// max_burst 0: one request at a time; quantity is the cost, a cost
	// above max_burst+1 is never admitted (increment > DVT).
	play(t, mustNew(t, "redis-cell:burst=0", "1/1s"), false, []step{
		{T: t0, Cost: 1, Admit: true}, {T: t0 + sec - 1, Cost: 1, Admit: false}, {T: t0 + sec, Cost: 1, Admit: true}, {T: t0 + 5*sec, Cost: 2, Admit: false},
	})
	play(t, mustNew(t, "redis-cell:burst=4", "1/2s"), false, []step{
		{T: t0, Cost: 5, Admit: true}, {T: t0 + 2*sec - 1, Cost: 1, Admit: false}, {T: t0 + 2*sec, Cost: 1, Admit: true}, {T: t0 + 100*sec, Cost: 6, Admit: false},
	})
	// retry_after = allow_at - now (mod.rs:182-184), exact to the ns.
	fresh := mustNew(t, "redis-cell", "3/1s").(*products.RedisCell)
	fresh.Grow(1)
	for range 3 {
		fresh.Decide(0, t0, 1)
		fresh.Record(0, t0, 1)
	}
	if r, ok := fresh.RetryAfter(0, t0+1, 1); !ok || r != t0+333333333 {
		t.Errorf("retry after %d %v, want %d", r, ok, t0+333333333)
	}
	if _, ok := fresh.RetryAfter(0, t0+1, 4); ok {
		t.Error("a quantity above max_burst+1 has a retry time")
	}
}

func TestRedisCellSpecs(t *testing.T) {
	for spec, want := range map[string]string{
		"redis-cell:burst=9":                    "redis-cell:burst=9",
		"redis-cell:without=truncation":         "redis-cell:without=truncation",
		"redis-cell:burst=0:without=truncation": "redis-cell:burst=0:without=truncation",
	} {
		l := mustNew(t, spec, "10/1m")
		if l.Name() != want {
			t.Errorf("%s: name %s", spec, l.Name())
		}
		if again := mustNew(t, l.Name(), "10/1m"); again.Name() != want {
			t.Errorf("%s: round trip %s", spec, again.Name())
		}
	}
	if tw := mustNew(t, "redis-cell:burst=0", "10/1m").(algorithms.Product).Twin(); tw != "gcra:B=1" {
		t.Errorf("twin %s", tw)
	}
	for spec, msg := range map[string]string{
		"redis-cell:burst=-1": "want redis-cell:burst=N",
		"redis-cell:burst":    "want redis-cell:burst=N",
		"redis-cell:rate=1":   "want redis-cell:burst=N",
	} {
		if _, err := algorithms.New(spec, algorithms.Rule{L: 10, W: 60 * sec}); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: %v", spec, err)
		}
	}
	_, err := algorithms.New("redis-cell", algorithms.Rule{L: 3, W: 1500 * ms})
	if err == nil || !strings.Contains(err.Error(), "whole number of seconds") || !strings.Contains(err.Error(), "(6/3s has the same rate)") || !strings.Contains(err.Error(), "not 1500ms") {
		t.Errorf("3/1.5s: %v", err)
	}
	if _, err := algorithms.New("redis-cell", algorithms.Rule{L: 2_000_000_000, W: sec}); err == nil || !strings.Contains(err.Error(), "truncates to 0 ns") {
		t.Errorf("2e9/1s: %v", err)
	}
}

// With truncation off, redis-cell decides as gcra:B=max_burst+1 request by
// request; with it on, as the GCRA on the truncated interval (the rules'
// W/L are not whole nanoseconds except 100/1m).
func TestRedisCellWithoutTruncationIsGCRA(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 2))
	for _, r := range []algorithms.Rule{
		{L: 5, W: 30 * sec}, {L: 100, W: 60 * sec}, {L: 7, W: 3 * sec}, {L: 1_000_000, W: 86400 * sec},
	} {
		trace := poissonish(rng, r, 20, 20000)
		sameDecisions(t, "redis-cell:without=truncation", "gcra", r, trace, false)
		sameDecisions(t, "redis-cell:burst=3:without=truncation", "gcra:B=4", r, trace, false)
	}
}
