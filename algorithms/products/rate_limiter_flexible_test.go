package products_test

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"ratebench/algorithms"
)

// RateLimiterMemory's arithmetic for points 2, duration 60 (MemoryStorage
// incrby and set; RateLimiterMemory.consume): a consume adds its points
// while expiresAt - Date.now() > 0, else a new record expires 60000 ms
// later; refused iff the points consumed exceed 2, refused consumes
// counted. The Redis store keeps its key through the expiry's millisecond:
// the consume at 90000 ms is still in the first window.
func TestRateLimiterFlexibleTimeline(t *testing.T) {
	steps := func(redis bool) []step {
		return []step{
			{T: 30*sec + 600*us, Cost: 1, Admit: true},   // a new record at 30000 ms, expiring at 90000 ms: 1
			{T: 40 * sec, Cost: 1, Admit: true},          // 2
			{T: 50 * sec, Cost: 1, Admit: false},         // 3 > 2, counted
			{T: 61 * sec, Cost: 1, Admit: false},         // the epoch's minute changed, the record did not: 4
			{T: 90*sec - 100*us, Cost: 1, Admit: false},  // 89999 ms: 5
			{T: 90*sec + 900*us, Cost: 1, Admit: !redis}, // 90000 ms: memory, a new record (1); Redis, the key lives (6)
			{T: 90*sec + 1*ms, Cost: 1, Admit: true},     // 90001 ms: Redis's key is gone (1); memory 2
			{T: 100 * sec, Cost: 2, Admit: false},        // 3 or 4 > 2, counted
			{T: 101 * sec, Cost: 1, Admit: false},
		}
	}
	for _, c := range []struct {
		spec  string
		redis bool
	}{{"rate-limiter-flexible", false}, {"rate-limiter-flexible:store=memory", false}, {"rate-limiter-flexible:store=redis", true}} {
		l := mustNew(t, c.spec, "2/1m")
		if !algorithms.CountsEvery(l) || l.(algorithms.Product).Twin() != "fixed" {
			t.Fatalf("%s: counts every %v, twin %q", c.spec, algorithms.CountsEvery(l), l.(algorithms.Product).Twin())
		}
		play(t, l, true, steps(c.redis))
	}
}

// blockDuration 10 (seconds): the consume that first goes over blocks the
// key for 10000 ms from it; consumes in the block are refused and do not
// extend it; the first after it starts a new window (memory: at the
// block's end; Redis: a millisecond after, the key living through its
// expiry).
func TestRateLimiterFlexibleBlock(t *testing.T) {
	for _, c := range []struct {
		spec string
		at   int64 // the first instant a consume is admitted again
	}{{"rate-limiter-flexible:blockDuration=10s", 13 * sec}, {"rate-limiter-flexible:store=redis:blockDuration=10s", 13*sec + ms}} {
		l := mustNew(t, c.spec, "2/1m")
		if tw := l.(algorithms.Product).Twin(); tw != "fixed:block=10s" {
			t.Errorf("%s: twin %s", c.spec, tw)
		}
		play(t, l, true, []step{
			{T: 1 * sec, Cost: 1, Admit: true},
			{T: 2 * sec, Cost: 1, Admit: true},
			{T: 3 * sec, Cost: 1, Admit: false}, // 3 > 2: blocked till 13 s
			{T: 12 * sec, Cost: 1, Admit: false},
			{T: c.at - ms, Cost: 1, Admit: false},
			{T: c.at, Cost: 1, Admit: true}, // a new window, though the first (till 61 s) had 4
			{T: c.at + sec, Cost: 1, Admit: true},
			{T: c.at + 2*sec, Cost: 1, Admit: false}, // blocked again
		})
	}
}

// The Redis store writes a block a round trip after the consume that
// went over: moved to that instant, the block lasts its seconds from
// there, and a key not blocked is left as it was.
func TestRateLimiterFlexibleMoveBlock(t *testing.T) {
	l := mustNew(t, "rate-limiter-flexible:store=redis:blockDuration=1s", "2/1m")
	mover, ok := l.(interface{ MoveBlock(id int32, t int64) })
	if !ok {
		t.Fatal("rate-limiter-flexible cannot move its block")
	}
	play(t, l, true, []step{
		{T: 1 * sec, Cost: 1, Admit: true},
		{T: 2 * sec, Cost: 1, Admit: true},
		{T: 3 * sec, Cost: 1, Admit: false}, // 3 > 2: blocked from 3000 ms
	})
	mover.MoveBlock(0, 3*sec+40*ms) // the SET ran at 3040 ms
	play(t, l, true, []step{
		{T: 4*sec + 20*ms, Cost: 1, Admit: false}, // unmoved, the block would have ended at 4001 ms
		{T: 4*sec + 40*ms, Cost: 1, Admit: false}, // the key lives through its expiry's millisecond
		{T: 4*sec + 41*ms, Cost: 1, Admit: true},  // a new window
	})
	mover.MoveBlock(0, 5*sec) // not blocked: nothing to move
	play(t, l, true, []step{{T: 5*sec + 1*ms, Cost: 1, Admit: true}, {T: 5*sec + 2*ms, Cost: 1, Admit: false}})
}

// The memory store's record is deleted by its setTimeout, whose delay Node
// truncates to whole ms: a duration of 1.5 ms lasts 1 ms, and one of
// 1000.9999 ms, whose expiresAt near 1.7e12 ms rounds up to 1001 ms later,
// lasts 1000 ms. Redis's EX cuts 1.5 s to 1 s.
func TestRateLimiterFlexibleTimerTruncates(t *testing.T) {
	for _, c := range []struct {
		spec string
		r    algorithms.Rule
		reqs [][2]int64
		want string
	}{
		{"rate-limiter-flexible", algorithms.Rule{L: 1, W: 1500 * us}, [][2]int64{{0, 1}, {1200 * us, 1}}, "AA"},
		{"rate-limiter-flexible:without=clock", algorithms.Rule{L: 1, W: 1500 * us}, [][2]int64{{0, 1}, {1200 * us, 1}}, "AR"},
		{"rate-limiter-flexible", algorithms.Rule{L: 1, W: 1000*ms + 999900}, [][2]int64{{1_700_000_000_000 * ms, 1}, {1_700_000_001_000 * ms, 1}}, "AA"},
		{"rate-limiter-flexible:store=redis", algorithms.Rule{L: 1, W: 1500 * ms}, [][2]int64{{0, 1}, {1001 * ms, 1}}, "AA"},
		{"rate-limiter-flexible:store=redis", algorithms.Rule{L: 1, W: 1500 * ms}, [][2]int64{{0, 1}, {1000 * ms, 1}}, "AR"},
	} {
		if got := ownTimeline(t, c.spec, c.r, c.reqs...); got != c.want {
			t.Errorf("%s under %v: %s, want %s", c.spec, c.r, got, c.want)
		}
	}
}

// Each deviation, alone, changes a decision of the twin; turned off too,
// the timeline is the twin's again.
func TestRateLimiterFlexibleEachDeviationAloneChangesADecision(t *testing.T) {
	for _, c := range []struct {
		name, rule, spec, twinSpec string
		reqs                       [][2]int64
		twin, product              string
	}{
		// anchor: the window opens at the first consume, 30 s, and ends
		// at 90 s; the epoch's minute ends at 60 s.
		{"anchor", "2/1m", "rate-limiter-flexible:without=clock:without=counts-refused", "fixed",
			[][2]int64{{30 * sec, 1}, {40 * sec, 1}, {61 * sec, 1}}, "AAA", "AAR"},
		// clock: on the epoch's windows of 1.5 ms, 1.5003 ms floored to
		// 1 ms is in the first window.
		{"clock", "1/1500us", "rate-limiter-flexible:without=anchor:without=counts-refused", "fixed",
			[][2]int64{{0, 1}, {1500*us + 300, 1}}, "AA", "AR"},
		// clock on Redis: a window of 1.5 s is EX 1: 1.2 s is in the next.
		{"clock", "1/1500ms", "rate-limiter-flexible:store=redis:without=anchor:without=counts-refused", "fixed",
			[][2]int64{{0, 1}, {1200 * ms, 1}}, "AR", "AA"},
		// counts-refused: the refused consume of 2 points is counted (3),
		// so the next of 1 is refused; the twin counts 1 and admits.
		{"counts-refused", "2/1m", "rate-limiter-flexible:without=anchor:without=clock", "fixed",
			[][2]int64{{sec, 1}, {2 * sec, 2}, {3 * sec, 1}}, "ARA", "ARR"},
		// closed: anchored at 0 (as the epoch's window), the key lives at
		// exactly 1 s.
		{"closed", "1/1s", "rate-limiter-flexible:store=redis:without=clock:without=counts-refused", "fixed",
			[][2]int64{{0, 1}, {sec, 1}}, "AA", "AR"},
		// block-clears: blocked at 3 s till 13 s; the twin's window
		// [0, 60 s) still holds 2 at 14 s, the product starts afresh.
		{"block-clears", "2/1m", "rate-limiter-flexible:blockDuration=10s:without=anchor:without=clock:without=counts-refused", "fixed:block=10s",
			[][2]int64{{sec, 1}, {2 * sec, 1}, {3 * sec, 1}, {14 * sec, 1}}, "AARR", "AARA"},
	} {
		r := mustRule(t, c.rule)
		checkDeviation(t, func(spec string) string { return ownTimeline(t, spec, r, c.reqs...) }, c.twinSpec, c.spec, c.name, c.twin, c.product)
	}
}

// The spec: the store and the block; anything else, or a window or block
// a store cannot take, is refused naming rate-limiter-flexible.
func TestRateLimiterFlexibleSpecs(t *testing.T) {
	for _, c := range []struct {
		spec, rule, name string
		devs             int
	}{
		{"rate-limiter-flexible", "5/1s", "rate-limiter-flexible", 3},
		{"rate-limiter-flexible:store=memory", "5/1s", "rate-limiter-flexible", 3},
		{"rate-limiter-flexible:store=redis", "5/1s", "rate-limiter-flexible:store=redis", 4},
		{"rate-limiter-flexible:blockDuration=30s:store=redis", "5/1s", "rate-limiter-flexible:store=redis:blockDuration=30s", 5},
		{"rate-limiter-flexible:blockDuration=500ms", "5/1ms", "rate-limiter-flexible:blockDuration=500ms", 4},
		{"rate-limiter-flexible:store=redis:without=closed", "5/1500ms", "rate-limiter-flexible:store=redis:without=closed", 4},
	} {
		l := mustNew(t, c.spec, c.rule)
		if l.Name() != c.name || len(l.(algorithms.Product).Deviations()) != c.devs {
			t.Errorf("%s is named %s with %d deviations, want %s, %d", c.spec, l.Name(), len(l.(algorithms.Product).Deviations()), c.name, c.devs)
		}
	}
	for _, c := range []struct{ spec, rule string }{
		{"rate-limiter-flexible:", "5/1s"},
		{"rate-limiter-flexible:store=file", "5/1s"},
		{"rate-limiter-flexible:blockDuration=0s", "5/1s"},
		{"rate-limiter-flexible:blockDuration=x", "5/1s"},
		{"rate-limiter-flexible:store=redis", "5/999ms"},                  // EX 0: no expiry
		{"rate-limiter-flexible:store=redis:blockDuration=500ms", "5/1s"}, // EX 0: blocked for ever
		{"rate-limiter-flexible", "5/999us"},                              // below Date.now's ms
		{"rate-limiter-flexible", "5/596h31m23.648s"},                     // 2^31 ms, beyond setTimeout
		{"rate-limiter-flexible:blockDuration=600h", "5/1s"},              // beyond setTimeout
		{"rate-limiter-flexible", "9007199254740993/1s"},                  // 2^53+1
	} {
		r := mustRule(t, c.rule)
		if _, err := algorithms.New(c.spec, r); err == nil || !strings.Contains(err.Error(), "rate-limiter-flexible") {
			t.Errorf("%s under %s: %v, want an error naming rate-limiter-flexible", c.spec, c.rule, err)
		}
	}
}

// With every deviation off it decides as its twin, fixed or fixed:block=D,
// for both stores (the block's twin in independent mode, as the refusal
// cache counts).
func TestRateLimiterFlexibleDecidesAsTwinWithoutDeviations(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 1))
	for _, r := range ululeRules {
		trace := poissonish(rng, r, 8, 3000)
		for _, extra := range []string{"", ":store=redis", ":blockDuration=" + algorithms.FormatWindow(r.W/2+1), ":store=redis:blockDuration=3s"} {
			l, err := algorithms.New("rate-limiter-flexible"+extra, r)
			if err != nil {
				continue // a window or block the store cannot take
			}
			p := l.(algorithms.Product)
			sameDecisions(t, withoutAll(p), p.Twin(), r, trace, false)
			if !strings.Contains(extra, "block") {
				sameDecisions(t, withoutAll(p), p.Twin(), r, trace, true)
			}
		}
	}
}

// Idle holds exactly when the next consume would start afresh: a replay
// that releases idle keys decides as one that never does.
func TestRateLimiterFlexibleIdleIsFresh(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 2))
	for _, r := range []algorithms.Rule{{L: 3, W: int64(time.Second)}, {L: 2, W: 1500 * ms}} {
		for _, spec := range []string{"rate-limiter-flexible", "rate-limiter-flexible:store=redis", "rate-limiter-flexible:blockDuration=2s", "rate-limiter-flexible:store=redis:blockDuration=1s", "rate-limiter-flexible:without=anchor"} {
			idleIsFresh(t, rng, spec, r, 0)
		}
	}
}
