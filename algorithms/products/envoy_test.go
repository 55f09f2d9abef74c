package products_test

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"ratebench/algorithms"
	"ratebench/algorithms/products"
)

const (
	ms  = int64(time.Millisecond)
	sec = int64(time.Second)
)

// play replays steps (as runSteps) on key 0 of l, recording every request
// (all) or the admitted ones, and checks each decision.
func play(t *testing.T, l algorithms.Limiter, all bool, steps []step) {
	t.Helper()
	l.Grow(1)
	for i, s := range steps {
		got := l.Decide(0, s.T, s.Cost)
		if got != s.Admit {
			t.Errorf("%s: request %d at %dns cost %d: admit %v, want %v", l.Name(), i, s.T, s.Cost, got, s.Admit)
		}
		if all || got {
			l.Record(0, s.T, s.Cost)
		}
	}
}

func mustNew(t *testing.T, spec, rule string) algorithms.Limiter {
	t.Helper()
	r, err := algorithms.ParseRule(rule)
	if err != nil {
		t.Fatal(err)
	}
	l, err := algorithms.New(spec, r)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// The service's arithmetic for requests_per_unit 3, unit minute: the key is
// now/60*60 with now in whole seconds; INCRBY adds hits_addend for every
// request; over the limit iff the count after it exceeds 3.
func TestEnvoyTimeline(t *testing.T) {
	l := mustNew(t, "envoy", "3/1m")
	if !algorithms.CountsEvery(l) {
		t.Fatal("envoy does not count every request")
	}
	rules, err := algorithms.ParseRules("5/1s+100/1m")
	if err != nil {
		t.Fatal(err)
	}
	if ly, err := algorithms.NewLayered("envoy", rules); err != nil || !algorithms.CountsEvery(ly) {
		t.Errorf("layered envoy: %v, counts every request %v", err, err == nil && algorithms.CountsEvery(ly))
	}
	if ly, _ := algorithms.NewLayered("fixed", rules); algorithms.CountsEvery(ly) || algorithms.CountsEvery(mustNew(t, "envoy-local", "10/1m")) {
		t.Error("fixed or envoy-local counts every request")
	}
	play(t, l, true, []step{
		{T: sec / 2, Cost: 1, Admit: true},               // count 1
		{T: 30 * sec, Cost: 2, Admit: true},              // 1+2 = 3, not > 3
		{T: 60*sec - 1, Cost: 1, Admit: false},           // now = 59: same key; 4 > 3, counted: 4
		{T: 60 * sec, Cost: 1, Admit: true},              // now = 60: key 60, count 1
		{T: 61 * sec, Cost: 3, Admit: false},             // 1+3 = 4 > 3: refused, counted: 4
		{T: 62 * sec, Cost: 1, Admit: false},             // 4+1 = 5 > 3 (fixed, counting admissions, admits: 1+1 = 2)
		{T: 119*sec + 999*ms, Cost: 1, Admit: false},     // now = 119, key 60: 6 > 3
		{T: 120 * sec, Cost: 3, Admit: true},             // key 120: 3
		{T: 120*sec + 500*ms, Cost: 1, Admit: false},     // 4
		{T: int64(1e18), Cost: 3, Admit: true},           // far: another key
		{T: int64(1e18) + 1, Cost: 1, Admit: false},      // same second, same key
		{T: int64(1e18) + 10*sec, Cost: 0, Admit: false}, // 1e9 s is 40 s into its minute; hits_addend 0: 4 > 3 still
	})
	// Cost 1: count-after-increment > L decides as curr+1 <= L.
	play(t, mustNew(t, "envoy", "2/1s"), true, []step{
		{T: 900 * ms, Cost: 1, Admit: true}, {T: 950 * ms, Cost: 1, Admit: true}, {T: 999 * ms, Cost: 1, Admit: false}, {T: sec, Cost: 1, Admit: true}, {T: sec + 1, Cost: 1, Admit: true}, {T: 2*sec - 1, Cost: 1, Admit: false},
	})
}

// Before the epoch, now = time.Now().Unix() floors, and now/divider
// truncates toward zero as Go's division: -1/60 = 0, so the second before
// the epoch shares minute 0's key.
func TestEnvoyBeforeTheEpoch(t *testing.T) {
	play(t, mustNew(t, "envoy", "1/1m"), true, []step{
		{T: -sec / 2, Cost: 1, Admit: true}, // now = -1, key 0
		{T: 30 * sec, Cost: 1, Admit: false},
		{T: -61 * sec, Cost: 1, Admit: true}, // now = -61, key -60 (a new key: the count restarts)
	})
}

func TestEnvoyUnits(t *testing.T) {
	for _, w := range []string{"1s", "1m", "1h", "24h", "168h", "720h", "8760h"} {
		if _, err := algorithms.New("envoy", algorithms.Rule{L: 10, W: mustDur(t, w)}); err != nil {
			t.Errorf("10/%s: %v", w, err)
		}
	}
	for _, w := range []string{"90s", "2m", "500ms", "30s", "12h"} {
		_, err := algorithms.New("envoy", algorithms.Rule{L: 10, W: mustDur(t, w)})
		if err == nil || !strings.Contains(err.Error(), "second, minute, hour, day") || !strings.Contains(err.Error(), "not "+algorithms.FormatWindow(mustDur(t, w))) {
			t.Errorf("10/%s: error %v", w, err)
		}
	}
	if _, err := algorithms.New("envoy", algorithms.Rule{L: 1 << 32, W: sec}); err == nil || !strings.Contains(err.Error(), "32-bit") {
		t.Errorf("L = 2^32: error %v", err)
	}
	if _, err := algorithms.New("envoy:x=1", algorithms.Rule{L: 1, W: sec}); err == nil {
		t.Error("envoy takes no parameter")
	}
}

func mustDur(t *testing.T, s string) int64 {
	t.Helper()
	d, err := time.ParseDuration(s)
	if err != nil {
		t.Fatal(err)
	}
	return int64(d)
}

// The filter's timer: max_tokens 2, tokens_per_fill 1, fill_interval 1s,
// firing at the whole seconds (phase 0); a request takes one token if the
// bucket holds one, whatever its cost.
func TestEnvoyLocalTimeline(t *testing.T) {
	l := mustNew(t, "envoy-local:max=2:fill=1:interval=1s", "10/1m")
	play(t, l, false, []step{
		{T: 100 * ms, Cost: 1, Admit: true},  // 2 -> 1
		{T: 200 * ms, Cost: 1, Admit: true},  // 1 -> 0
		{T: 300 * ms, Cost: 1, Admit: false}, // 0
		{T: sec - 1, Cost: 1, Admit: false},  // the tick at 1s has not fired
		{T: sec, Cost: 1, Admit: true},       // it fires first: 1 -> 0
		{T: 1500 * ms, Cost: 1, Admit: false},
		{T: 2500 * ms, Cost: 1, Admit: true},  // tick at 2s: 1 -> 0
		{T: 5 * sec, Cost: 1, Admit: true},    // ticks at 3, 4, 5 s: min(2, 0+3) = 2 -> 1
		{T: 5 * sec, Cost: 1, Admit: true},    // 1 -> 0
		{T: 5 * sec, Cost: 1, Admit: false},   // 0
		{T: 7 * sec, Cost: 5, Admit: true},    // ticks at 6, 7 s: 2; cost 5 takes one token -> 1
		{T: 7 * sec, Cost: 9, Admit: true},    // 1 -> 0
		{T: 7*sec + 1, Cost: 1, Admit: false}, // 0
	})
}

// The phase is when the timer fires within an interval: the configuration
// loaded at a time congruent to it.
func TestEnvoyLocalPhase(t *testing.T) {
	play(t, mustNew(t, "envoy-local:max=1:fill=1:interval=1s:phase=500ms", "10/1m"), false, []step{
		{T: 100 * ms, Cost: 1, Admit: true}, {T: 600 * ms, Cost: 1, Admit: true}, {T: 1200 * ms, Cost: 1, Admit: false}, {T: 1500 * ms, Cost: 1, Admit: true}, {T: 1999 * ms, Cost: 1, Admit: false},
	})
	play(t, mustNew(t, "envoy-local:max=1:fill=1:interval=1s", "10/1m"), false, []step{
		{T: 100 * ms, Cost: 1, Admit: true}, {T: 600 * ms, Cost: 1, Admit: false}, {T: 1200 * ms, Cost: 1, Admit: true}, {T: 1500 * ms, Cost: 1, Admit: false},
	})
	// fill 3 every 200 ms, max 5, phase 50 ms: ticks at ..., 50, 250, 450 ms.
	l := mustNew(t, "envoy-local:max=5:fill=3:interval=200ms:phase=50ms", "10/1m")
	var steps []step
	for range 5 {
		steps = append(steps, step{T: 10 * ms, Cost: 1, Admit: true})
	}
	steps = append(steps, step{T: 49 * ms, Cost: 1, Admit: false}, step{T: 50 * ms, Cost: 1, Admit: true}, step{T: 249 * ms, Cost: 1, Admit: true}, step{T: 249 * ms, Cost: 1, Admit: true},
		step{T: 249 * ms, Cost: 1, Admit: false}, step{T: 450 * ms, Cost: 1, Admit: true}) // 250 and 450 ms: min(5, 0+6) = 5
	for range 4 {
		steps = append(steps, step{T: 450 * ms, Cost: 1, Admit: true})
	}
	steps = append(steps, step{T: 450 * ms, Cost: 1, Admit: false})
	play(t, l, false, steps)
}

func TestEnvoyLocalMapping(t *testing.T) {
	for _, c := range []struct {
		rule, name     string
		fill, interval int64
	}{
		{"10/1m", "envoy-local", 1, 6 * sec},
		{"100/1s", "envoy-local", 5, 50 * ms},
		{"3/1s", "envoy-local", 3, sec},
		{"7/1s", "envoy-local", 7, sec},
		{"25/1s", "envoy-local", 2, 80 * ms},
		{"30/1s", "envoy-local", 3, 100 * ms},
		{"1000/1s", "envoy-local", 50, 50 * ms},
		{"10/100ms", "envoy-local", 5, 50 * ms},
	} {
		l := mustNew(t, "envoy-local", c.rule)
		el := l.(*products.EnvoyLocal)
		max, fill, interval, phase := el.Params()
		r, _ := algorithms.ParseRule(c.rule)
		if l.Name() != c.name || max != r.L || fill != c.fill || interval != c.interval || phase != 0 {
			t.Errorf("%s: %s max %d fill %d interval %d phase %d, want fill %d interval %d", c.rule, l.Name(), max, fill, interval, phase, c.fill, c.interval)
		}
	}
	for _, rule := range []string{"10/10ms", "1000/1ms", "3/1001ns"} {
		r, _ := algorithms.ParseRule(rule)
		if _, err := algorithms.New("envoy-local", r); err == nil || !strings.Contains(err.Error(), "give envoy-local:max=N:fill=N:interval=D") {
			t.Errorf("%s: error %v", rule, err)
		}
	}
	r, _ := algorithms.ParseRule("10/1m")
	for spec, want := range map[string]string{
		"envoy-local:max=5:fill=1:interval=1s":           "envoy-local:max=5:fill=1:interval=1s",
		"envoy-local:interval=2s: fill=2":                "envoy-local:max=10:fill=2:interval=2s",
		"envoy-local:max=4":                              "envoy-local:max=4:fill=1:interval=6s",
		"envoy-local:fill=1:interval=1000ms:phase=250ms": "envoy-local:max=10:fill=1:interval=1s:phase=250ms",
	} {
		l, err := algorithms.New(spec, r)
		if err != nil || l.Name() != want {
			t.Errorf("%s: %v %v, want %s", spec, l, err, want)
		}
	}
	for spec, want := range map[string]string{
		"envoy-local:fill=1:interval=40ms":              "at least 50ms",
		"envoy-local:interval=0s":                       `algorithm "envoy-local:interval=0s": interval=0s: the fill interval must be`,
		"envoy-local:fill=1:interval=0s":                `interval=0s: the fill interval must be`,
		"envoy-local:interval=-1s":                      `interval=-1s: the fill interval must be`,
		"envoy-local:fill=1:interval=1500us":            "whole number of milliseconds",
		"envoy-local:fill=1":                            "fill and interval together",
		"envoy-local:rate=1":                            "want envoy-local[:max=N",
		"envoy-local:max=0":                             "want envoy-local[:max=N",
		"envoy-local:fill=1:interval=1s:phase=1s":       "phase must be in",
		"envoy-local:max=4294967295:fill=1:interval=1s": "32-bit",
	} {
		if _, err := algorithms.New(spec, r); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", spec, err, want)
		}
	}
}

// Both release a key whose state is back to the initial one.
func TestEnvoyIdle(t *testing.T) {
	e := mustNew(t, "envoy", "3/1m")
	e.Grow(1)
	rel := e.(algorithms.Releaser)
	e.Record(0, sec, 2)
	if rel.Idle(0, 59*sec) || !rel.Idle(0, 60*sec) {
		t.Error("envoy idle: want busy in its window, idle in the next")
	}
	l := mustNew(t, "envoy-local:max=2:fill=1:interval=1s", "10/1m")
	l.Grow(1)
	rl := l.(algorithms.Releaser)
	l.Record(0, 100*ms, 1)
	l.Record(0, 100*ms, 1)
	if rl.Idle(0, sec) || !rl.Idle(0, 2*sec) {
		t.Error("envoy-local idle: want busy after one tick, full after two")
	}
}

// replay is play recording what the engine records in independent mode:
// the admitted requests, or every request for a product that counts every
// request.
func replay(t *testing.T, l algorithms.Limiter, steps []step) {
	t.Helper()
	play(t, l, algorithms.CountsEvery(l), steps)
}

// counts-refused: the service counts a refused request of cost 3 (INCRBY
// for every request, fixed_cache_impl.go:36, 161-187); without it, envoy
// counts only what it admits, as fixed.
func TestEnvoyCountsRefused(t *testing.T) {
	l := mustNew(t, "envoy", "3/1m")
	p := l.(algorithms.Product)
	if p.Twin() != "fixed" || len(p.Deviations()) != 1 || p.Deviations()[0].Name != "counts-refused" {
		t.Fatalf("twin %q, deviations %v", p.Twin(), p.Deviations())
	}
	steps := func(counted bool) []step {
		return []step{{T: 0, Cost: 2, Admit: true}, {T: sec, Cost: 3, Admit: false}, {T: 2 * sec, Cost: 1, Admit: !counted}}
	}
	replay(t, l, steps(true))
	off := mustNew(t, "envoy:without=counts-refused", "3/1m")
	if off.Name() != "envoy:without=counts-refused" || algorithms.CountsEvery(off) || !off.CountsRejected() {
		t.Errorf("%s: counts every request %v", off.Name(), algorithms.CountsEvery(off))
	}
	replay(t, off, steps(false))
}

// timer-fill: the bucket gets its token at the tick (1s), not
// continuously; one-token: a request of cost 5 takes one token of 2.
func TestEnvoyLocalDeviations(t *testing.T) {
	spec := "envoy-local:max=2:fill=1:interval=1s"
	timer := func(on bool) []step {
		return []step{{T: 0, Cost: 1, Admit: true}, {T: 100 * ms, Cost: 1, Admit: true}, {T: 1200 * ms, Cost: 1, Admit: on}, {T: 1300 * ms, Cost: 1, Admit: false}}
	}
	replay(t, mustNew(t, spec, "2/2s"), timer(true))
	// Continuous: 1.1 tokens at 1.2 s, then 0.1 + 0.1 at 1.3 s.
	replay(t, mustNew(t, spec+":without=timer-fill", "2/2s"), []step{{T: 0, Cost: 1, Admit: true}, {T: 100 * ms, Cost: 1, Admit: true}, {T: 1200 * ms, Cost: 1, Admit: true}, {T: 1300 * ms, Cost: 1, Admit: false}})
	replay(t, mustNew(t, spec+":without=timer-fill", "2/2s"), []step{{T: 0, Cost: 1, Admit: true}, {T: 100 * ms, Cost: 1, Admit: true}, {T: 999 * ms, Cost: 1, Admit: false}, {T: sec, Cost: 1, Admit: true}}) // t/1s tokens from 100 ms
	cost := func(on bool) []step {
		return []step{{T: 0, Cost: 5, Admit: on}, {T: 0, Cost: 2, Admit: true}, {T: 0, Cost: 1, Admit: false}}
	}
	replay(t, mustNew(t, spec, "2/2s"), cost(true))
	replay(t, mustNew(t, spec+":without=one-token", "2/2s"), cost(false))
	for s, want := range map[string]string{
		"envoy-local":                                      "token",
		"envoy-local:max=5:fill=1:interval=6s":             "token:B=5",
		"envoy-local:max=2:fill=1:interval=1s":             "", // 1/s is not 10/1m
		"envoy-local:max=2:fill=1:interval=6s":             "token:B=2",
		"envoy-local:without=timer-fill:without=one-token": "token",
	} {
		l := mustNew(t, s, "10/1m")
		if got := l.(algorithms.Product).Twin(); got != want || l.Name() != s {
			t.Errorf("%s: name %s, twin %q, want %q", s, l.Name(), got, want)
		}
	}
}

// With every deviation off, envoy decides as fixed and envoy-local as its
// twin, request by request.
func TestEnvoyWithoutDeviationsIsTheTwin(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 3))
	for _, r := range []algorithms.Rule{{L: 5, W: sec}, {L: 100, W: 60 * sec}, {L: 7, W: 3600 * sec}, {L: 1_000_000, W: 86400 * sec}} {
		trace := poissonish(rng, r, 20, 20000)
		sameDecisions(t, "envoy:without=counts-refused", "fixed", r, trace, false)
		sameDecisions(t, "envoy:without=counts-refused", "fixed", r, trace, true)
	}
	for _, r := range []algorithms.Rule{{L: 5, W: 30 * sec}, {L: 100, W: 60 * sec}, {L: 1_000_000, W: 86400 * sec}, {L: 3, W: sec}} {
		trace := poissonish(rng, r, 20, 20000)
		spec := "envoy-local:without=timer-fill:without=one-token"
		twin := mustNewRule(t, spec, r).(algorithms.Product).Twin()
		sameDecisions(t, spec, twin, r, trace, false)
		sameDecisions(t, spec, twin, r, trace, true)
		sameDecisions(t, "envoy-local:max=4:fill=2:interval=1s:without=timer-fill:without=one-token", "token:B=4", algorithms.Rule{L: 2, W: sec}, trace, false)
	}
}

func mustNewRule(t *testing.T, spec string, r algorithms.Rule) algorithms.Limiter {
	t.Helper()
	l, err := algorithms.New(spec, r)
	if err != nil {
		t.Fatal(err)
	}
	return l
}
