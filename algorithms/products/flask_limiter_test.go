package products_test

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"ratebench/algorithms"
	"ratebench/algorithms/products"
)

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Each deviation of each mode, alone (the others off), changes a decision
// of the twin on a timeline worked out from limits 2.8.0; turned off too,
// the timeline is the twin's.
func TestFlaskLimiterEachDeviationAloneChangesADecision(t *testing.T) {
	s, ms := int64(time.Second), int64(time.Millisecond)
	const epoch = int64(1_700_000_000_000_000_000) // a multiple of 1 s
	const e = epoch + 123_456_000
	for _, c := range []struct {
		name, rule, spec string
		reqs             [][2]int64
		twin, product    string
	}{
		// Moving window. acquire_entry refuses when the entry at index
		// L-cost is >= now - W: the entry at 0 is exactly W old at 1 s,
		// out of the log's window (t-W, t], in limits' [t-W, t].
		{"closed", "1/1s", "flask-limiter:strategy=moving:without=float:without=over-cost",
			[][2]int64{{0, 1}, {s, 1}}, "AA", "AR"},
		// 128 ns short of W after e: exactly, the entry still counts; but
		// time.time() at e and at e + W - 128 ns round to doubles (a
		// quarter microsecond apart near 1.7e9 s) exactly 1 s apart, so
		// entry > now - W is false.
		{"float", "1/1s", "flask-limiter:strategy=moving:without=closed:without=over-cost",
			[][2]int64{{e, 1}, {e + s - 128, 1}}, "AR", "AA"},
		// A cost of 3 under 2/1s reads index 2-3 = -1, from the oldest end
		// of an empty list: IndexError, so no entry, admitted, and three
		// timestamps pushed (two kept, as Redis's LTRIM keeps them); then
		// a request of cost 1 finds index 1 at 0 s, in the window.
		{"over-cost", "2/1s", "flask-limiter:strategy=moving:without=closed:without=float",
			[][2]int64{{0, 3}, {500 * ms, 1}}, "RA", "AR"},
		// Fixed window in memory. The window runs from the key's first hit
		// at 0.5 s to 1.5 s: 1.2 s is in it (the epoch's windows start a
		// new one at 1 s).
		{"anchor", "1/1s", "flask-limiter:without=float:without=counts-refused",
			[][2]int64{{500 * ms, 1}, {1200 * ms, 1}}, "AA", "AR"},
		// With the windows on the epoch's seconds, 1 ns before the next
		// one: float64(t) rounds to the next whole second, whose
		// time.time() equals the float expiry: the count is dropped.
		{"float", "1/1s", "flask-limiter:without=anchor:without=counts-refused",
			[][2]int64{{epoch, 1}, {epoch + s - 1, 1}}, "AR", "AA"},
		// incr adds the refused cost of 2: the count 3 leaves no room for
		// the third request.
		{"counts-refused", "2/1s", "flask-limiter:without=anchor:without=float",
			[][2]int64{{0, 1}, {100 * ms, 2}, {200 * ms, 1}}, "ARA", "ARR"},
		// Fixed window in Redis: the key made at 0.5 s expires once Redis's
		// clock is past 1.5 s; at exactly 1.5 s it still counts.
		{"anchor", "1/1s", "flask-limiter:storage=redis:without=clock:without=counts-refused",
			[][2]int64{{500 * ms, 1}, {1500 * ms, 1}}, "AA", "AR"},
		{"counts-refused", "2/1s", "flask-limiter:storage=redis:without=anchor:without=clock",
			[][2]int64{{0, 1}, {100 * ms, 2}, {200 * ms, 1}}, "ARA", "ARR"},
	} {
		l := mustNew(t, c.spec, c.rule)
		twin := l.(algorithms.Product).Twin()
		checkDeviation(t, func(spec string) string { return ownTimeline(t, spec, mustRule(t, c.rule), c.reqs...) }, twin, c.spec, c.name, c.twin, c.product)
	}
}

// The deviations that show only together with others, and the full
// models on the timelines limits decides (live/python checks them against
// limits itself).
func TestFlaskLimiterFullModels(t *testing.T) {
	s, ms, us := int64(time.Second), int64(time.Millisecond), int64(time.Microsecond)
	const e = int64(1_700_000_000_123_456_000)
	for _, c := range []struct {
		spec, rule string
		reqs       [][2]int64
		want       string
	}{
		// Redis's millisecond clock: the key made at 500.6 ms expires once
		// the clock is past 1500 ms, which 1500.9 ms is not.
		{"flask-limiter:storage=redis:without=counts-refused", "1/1s", [][2]int64{{500*ms + 600*us, 1}, {1500*ms + 900*us, 1}}, "AR"},
		{"flask-limiter:storage=redis:without=counts-refused:without=clock", "1/1s", [][2]int64{{500*ms + 600*us, 1}, {1500*ms + 900*us, 1}}, "AA"},
		// The moving window, closed and float together: e and e + W + 1 ns
		// round to doubles 1 s apart: entry >= now - W, refused (closed
		// alone, the entry is 1 ns out: admitted).
		{"flask-limiter:strategy=moving", "1/1s", [][2]int64{{e, 1}, {e + s + 1, 1}}, "AR"},
		{"flask-limiter:strategy=moving:without=float", "1/1s", [][2]int64{{e, 1}, {e + s + 1, 1}}, "AA"},
		// Near 0, 1.002 - 1 = 0.0020000000000000018 > 0.002: the entry at
		// 2 ms is out of the window at 1.002 s (closed alone, it counts).
		{"flask-limiter:strategy=moving", "1/1s", [][2]int64{{2 * ms, 1}, {s + 2*ms, 1}}, "AA"},
		{"flask-limiter:strategy=moving:without=float", "1/1s", [][2]int64{{2 * ms, 1}, {s + 2*ms, 1}}, "AR"},
		// The fixed window: 0.128 + 1 = 1.1280000000000001 > 1.128, so at
		// 1.128 s the window anchored at 0.128 s has not ended.
		{"flask-limiter", "1/1s", [][2]int64{{128 * ms, 1}, {s + 128*ms, 1}}, "AR"},
		{"flask-limiter:without=float", "1/1s", [][2]int64{{128 * ms, 1}, {s + 128*ms, 1}}, "AA"},
		// Every hit counts: five admitted, the rest of the window refused,
		// and a new window at the first hit + W.
		{"flask-limiter", "5/1s", [][2]int64{{0, 1}, {0, 1}, {0, 1}, {0, 1}, {0, 1}, {0, 1}, {999 * ms, 1}, {s, 1}}, "AAAAARRA"},
		// A cost above L on a key holding entries: index L-cost counts from
		// the oldest end; under 2/1s with two entries, cost 3 reads index
		// -1, the older entry, at 0 s: in the window until 1 s.
		{"flask-limiter:strategy=moving", "2/1s", [][2]int64{{0, 1}, {500 * ms, 1}, {900 * ms, 3}, {1100 * ms, 3}}, "AARA"},
		// The list is dropped once Redis's clock is past its newest entry
		// + W: at 1.001 s the list holds one entry, not the earlier two
		// as well, so cost 3 reads index -1, that entry, in the window
		// (kept, the list would read the entry at 0 s, out of it).
		{"flask-limiter:strategy=moving", "2/1s", [][2]int64{{0, 2}, {1001 * ms, 1}, {1002 * ms, 3}}, "AAR"},
	} {
		if got := ownTimeline(t, c.spec, mustRule(t, c.rule), c.reqs...); got != c.want {
			t.Errorf("%s %s: decides %s, want %s", c.spec, c.rule, got, c.want)
		}
	}
}

// The spec: strategy and storage in any order, the defaults left out of
// the name; a window of whole seconds only, the limit string as
// Flask-Limiter's documentation writes it.
func TestFlaskLimiterSpecs(t *testing.T) {
	r := algorithms.Rule{L: 5, W: int64(time.Second)}
	checkSpecs(t, r, map[string]string{
		"flask-limiter":                                   "flask-limiter",
		"flask-limiter:strategy=fixed":                    "flask-limiter",
		"flask-limiter:storage=memory":                    "flask-limiter",
		"flask-limiter:strategy=moving":                   "flask-limiter:strategy=moving",
		"flask-limiter:storage=redis:strategy=moving":     "flask-limiter:strategy=moving:storage=redis",
		"flask-limiter:storage=redis":                     "flask-limiter:storage=redis",
		"flask-limiter:strategy=moving:without=closed":    "flask-limiter:strategy=moving:without=closed",
		"flask-limiter:storage=redis:without=clock":       "flask-limiter:storage=redis:without=clock",
		"flask-limiter:without=counts-refused":            "flask-limiter:without=counts-refused",
		"flask-limiter:strategy=fixed:storage=memory":     "flask-limiter",
		"flask-limiter:strategy=moving:without=float":     "flask-limiter:strategy=moving:without=float",
		"flask-limiter:strategy=moving:storage=memory":    "flask-limiter:strategy=moving",
		"flask-limiter:strategy=moving:storage=redis":     "flask-limiter:strategy=moving:storage=redis",
		"flask-limiter:storage=redis:without=anchor":      "flask-limiter:storage=redis:without=anchor",
		"flask-limiter:strategy=moving:without=over-cost": "flask-limiter:strategy=moving:without=over-cost",
	}, []string{"flask-limiter:", "flask-limiter:strategy=sliding", "flask-limiter:strategy=fixed-window",
		"flask-limiter:storage=memcached", "flask-limiter:strategy=moving:strategy=fixed", "flask-limiter:burst=3",
		"flask-limiter:without=closed", "flask-limiter:strategy=moving:without=anchor", "flask-limiter:storage=redis:without=float"}, "flask-limiter", "deviation")
	for _, rule := range []string{"5/1500ms", "3/500ms"} {
		rr, _ := algorithms.ParseRule(rule)
		if _, err := algorithms.New("flask-limiter", rr); err == nil || !strings.Contains(err.Error(), "whole seconds") {
			t.Errorf("%s: %v, want an error saying the window is whole seconds", rule, err)
		}
	}
	for rule, want := range map[string]string{
		"5/1s": "5 per second", "100/1m": "100 per minute", "7/90s": "7 per 90 second",
		"3/1h": "3 per hour", "2/24h": "2 per day", "3/2m": "3 per 120 second", "5/1500ms": "",
	} {
		rr, _ := algorithms.ParseRule(rule)
		if got := products.FlaskLimitString(rr); got != want {
			t.Errorf("%s is written %q, want %q", rule, got, want)
		}
	}
	for spec, want := range map[string][]string{
		"flask-limiter":                               {"anchor", "float", "counts-refused"},
		"flask-limiter:storage=redis":                 {"anchor", "clock", "counts-refused"},
		"flask-limiter:strategy=moving":               {"closed", "float", "over-cost"},
		"flask-limiter:strategy=moving:storage=redis": {"closed", "float", "over-cost"},
	} {
		l := mustNew(t, spec, "5/1s")
		p := l.(algorithms.Product)
		var names []string
		for _, d := range p.Deviations() {
			names = append(names, d.Name)
		}
		if !slices.Equal(names, want) {
			t.Errorf("%s: deviations %v, want %v", spec, names, want)
		}
		moving := strings.Contains(spec, "moving")
		if twin := p.Twin(); twin != map[bool]string{true: "log", false: "fixed"}[moving] {
			t.Errorf("%s: twin %s", spec, twin)
		}
		if algorithms.CountsEvery(l) == moving || l.FixedSize() == moving {
			t.Errorf("%s: counts every hit %v, fixed size %v", spec, algorithms.CountsEvery(l), l.FixedSize())
		}
	}
}

// time.time() as CPython computes it from nanoseconds.
func TestFlaskLimiterPyTime(t *testing.T) {
	for ns, want := range map[int64]float64{
		0: 0, 1_002_000_000: 1.002, 1_700_000_000_000_000_000: 1.7e9,
		1_700_000_000_999_999_999: 1_700_000_001, // float64(ns) rounds to the next second
		-1_500_000_000:            -1.5,
	} {
		if got := products.PyTime(ns); got != want {
			t.Errorf("PyTime(%d) = %v, want %v", ns, got, want)
		}
	}
}

// The moving window's list: Bytes follows its length (at most L), Memory
// the largest lengths, released keys included, and a key released when
// Idle decides on as one kept.
func TestFlaskLimiterIdleIsFresh(t *testing.T) {
	l := mustNew(t, "flask-limiter:strategy=moving", "3/1s")
	l.Grow(1)
	for i := range 5 {
		l.Record(0, int64(i)*int64(time.Millisecond), 1)
	}
	if l.Bytes(0) != 24 {
		t.Errorf("Bytes after 5 entries under 3/1s = %d, want 24 (three kept)", l.Bytes(0))
	}
	type memory interface{ Memory() (int64, int64) }
	l.Grow(2)
	l.Record(1, 0, 1)
	if peak, sum := l.(memory).Memory(); peak != 24 || sum != 32 {
		t.Errorf("Memory() = %d, %d; want 24 (the largest list) and 32 (3 + 1 entries)", peak, sum)
	}
	rl := l.(algorithms.Releaser)
	rl.Release(0)
	if peak, sum := l.(memory).Memory(); peak != 24 || sum != 32 || l.Bytes(0) != 0 {
		t.Errorf("after a release, Memory() = %d, %d and Bytes %d; want 24, 32 and 0", peak, sum, l.Bytes(0))
	}
	for i := range 5 {
		l.Record(0, int64(i)*int64(time.Millisecond), 1)
	}
	if rl.Idle(0, int64(time.Second)+4*int64(time.Millisecond)) || !rl.Idle(0, int64(time.Second)+5*int64(time.Millisecond)) {
		t.Error("the list is dropped once the millisecond clock is past its newest entry + W, not before")
	}
	rng := rand.New(rand.NewPCG(5, 9))
	for _, spec := range []string{"flask-limiter", "flask-limiter:strategy=moving", "flask-limiter:storage=redis", "flask-limiter:strategy=moving:storage=redis"} {
		for _, rule := range []string{"5/1s", "3/2s", "100/1m"} {
			kept, freed := mustNew(t, spec, rule), mustNew(t, spec, rule)
			kept.Grow(1)
			freed.Grow(1)
			every := algorithms.CountsEvery(kept)
			r, _ := algorithms.ParseRule(rule)
			now, released := int64(1_700_000_000_000_000_000), 0
			for i := range 20000 {
				now += rng.Int64N(2 * r.W / r.L)
				if rng.IntN(40) == 0 {
					now += r.W
				}
				cost := 1 + rng.Int64N(r.L+2)*int64(b2i(rng.IntN(6) == 0))
				if freed.(algorithms.Releaser).Idle(0, now) {
					freed.(algorithms.Releaser).Release(0)
					released++
				}
				a, b := kept.Decide(0, now, int64(cost)), freed.Decide(0, now, int64(cost))
				if a != b {
					t.Fatalf("%s %s: request %d at %d: kept %v, released %v", spec, rule, i, now, a, b)
				}
				if a || every {
					kept.Record(0, now, int64(cost))
					freed.Record(0, now, int64(cost))
				}
			}
			if released == 0 {
				t.Errorf("%s %s: never idle", spec, rule)
			}
		}
	}
}

// Without its deviations each mode decides as its twin on generated
// traces with costs up to L+1, counting admitted requests or every one.
func TestFlaskLimiterWithoutDeviationsDecidesAsTwin(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 1))
	for _, spec := range []string{"flask-limiter", "flask-limiter:strategy=moving", "flask-limiter:storage=redis", "flask-limiter:strategy=moving:storage=redis"} {
		for _, rule := range []string{"5/1s", "7/3s", "100/1m"} {
			r, _ := algorithms.ParseRule(rule)
			p := mustNew(t, spec, rule).(algorithms.Product)
			trace := poissonish(rng, r, 8, 5000)
			sameDecisions(t, withoutAll(p), p.Twin(), r, trace, false)
			sameDecisions(t, withoutAll(p), p.Twin(), r, trace, true)
		}
	}
}
