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

// Each deviation alone (the others off) changes a decision of the log on a
// timeline worked out from DRF 3.14.0's allow_request and LocMemCache;
// turned off too, the timeline is the log's.
func TestDRFThrottlingEachDeviationAloneChangesADecision(t *testing.T) {
	s, ms := int64(time.Second), int64(time.Millisecond)
	const e = int64(1_700_000_000_123_456_000)
	for _, c := range []struct {
		name, rule, spec string
		reqs             [][2]int64
		twin, product    string
	}{
		// 128 ns short of W after e the entry still counts exactly; but
		// time.time() at e and at e + W - 128 ns round to doubles (a
		// quarter microsecond apart near 1.7e9 s) exactly 1 s apart: the
		// entry is <= now - duration, popped.
		{"float", "1/1s", "drf-throttling:without=expiry:without=one-hit",
			[][2]int64{{e, 1}, {e + s - 128, 1}}, "AR", "AA"},
		// A request of cost 2, then one of cost 1: one entry each, the
		// second finds one entry under 2/1s.
		{"one-hit", "2/1s", "drf-throttling:without=float:without=expiry",
			[][2]int64{{0, 2}, {500 * ms, 1}}, "AR", "AA"},
	} {
		checkDeviation(t, func(spec string) string { return ownTimeline(t, spec, mustRule(t, c.rule), c.reqs...) }, "log", c.spec, c.name, c.twin, c.product)
	}
}

// The cache's expiry shows only with float, and the full model decides
// the timelines near 0 (the check trace's scale) as DRF does (live/python
// checks them against DRF itself).
func TestDRFThrottlingFloatAndExpiry(t *testing.T) {
	s, ms := int64(time.Second), int64(time.Millisecond)
	for _, c := range []struct {
		spec, rule string
		reqs       [][2]int64
		want       string
	}{
		// 0.001 <= 1.001 - 1 = 0.00099999999999989 is false: the entry
		// is not popped; but the key's cache entry, set at 0.001 s, expires
		// at 0.001 + 1 = 1.001 <= 1.001: the history is gone, admitted (the
		// exact log admits it too: the entry is W old).
		{"drf-throttling", "1/1s", [][2]int64{{ms, 1}, {s + ms, 1}}, "AA"},
		{"drf-throttling:without=expiry", "1/1s", [][2]int64{{ms, 1}, {s + ms, 1}}, "AR"},
		{"drf-throttling:without=float", "1/1s", [][2]int64{{ms, 1}, {s + ms, 1}}, "AA"},
		// 0.128 <= 1.128 - 1 = 0.1279999999999999 is false, and the
		// expiry 0.128 + 1 = 1.1280000000000001 > 1.128: refused, W after
		// the entry.
		{"drf-throttling", "1/1s", [][2]int64{{128 * ms, 1}, {s + 128*ms, 1}}, "AR"},
		{"drf-throttling:without=float", "1/1s", [][2]int64{{128 * ms, 1}, {s + 128*ms, 1}}, "AA"},
		// 1.002 - 1 = 0.0020000000000000018 >= 0.002: popped.
		{"drf-throttling:without=expiry", "1/1s", [][2]int64{{2 * ms, 1}, {s + 2*ms, 1}}, "AA"},
		// Five admitted, the rest refused until the first is W old; a
		// refused request records nothing.
		{"drf-throttling", "5/1s", [][2]int64{{0, 1}, {0, 1}, {0, 1}, {0, 1}, {0, 1}, {0, 1}, {999 * ms, 1}, {s, 1}, {s, 1}}, "AAAAARRAA"},
	} {
		if got := ownTimeline(t, c.spec, mustRule(t, c.rule), c.reqs...); got != c.want {
			t.Errorf("%s %s: decides %s, want %s", c.spec, c.rule, got, c.want)
		}
	}
}

// drfKeys replays (key, ms) requests of cost 1 through spec under 1/1s,
// every key's in one replay, and returns the decisions as A and R.
func drfKeys(t *testing.T, spec string, reqs ...[2]int64) string {
	t.Helper()
	l := mustNew(t, spec, "1/1s")
	l.Grow(8)
	var b strings.Builder
	for _, q := range reqs {
		at := q[1] * int64(time.Millisecond)
		if l.Decide(int32(q[0]), at, 1) {
			l.Record(int32(q[0]), at, 1)
			b.WriteByte('A')
		} else {
			b.WriteByte('R')
		}
	}
	return b.String()
}

// LocMemCache's culls: a set when the cache holds MAX_ENTRIES keys culls
// len // 3 of the least recently read or written, whose histories are
// lost; a refused request's read moves its key to the head.
func TestDRFThrottlingCull(t *testing.T) {
	// Three keys fill a cache of 3; the fourth's set culls the tail, key
	// 0, whose next request finds no history.
	reqs := [][2]int64{{0, 0}, {1, 1}, {2, 2}, {3, 3}, {0, 4}}
	checkDeviation(t, func(spec string) string { return drfKeys(t, spec, reqs...) }, "log", "drf-throttling:max-entries=3", "cull", "AAAAR", "AAAAA")
	// With MAX_ENTRIES 2 the third key's set culls 2 // 3 = 0: key 0
	// keeps its history and is refused, its read moving it to the head;
	// the fourth key's set (3 held) culls one, key 1, the tail.
	reqs = [][2]int64{{0, 0}, {1, 1}, {2, 2}, {0, 3}, {3, 4}, {1, 5}, {0, 6}}
	checkDeviation(t, func(spec string) string { return drfKeys(t, spec, reqs...) }, "log", "drf-throttling:max-entries=2", "cull", "AAARARR", "AAARAAR")
	// 300 keys fit the default cache; key 0's refused request moves it to
	// the head, and the 301st key's set culls the 100 at the tail, keys 1
	// to 100.
	l := mustNew(t, "drf-throttling:max-entries", "1/1s")
	l.Grow(301)
	for id := range int32(300) {
		if !l.Decide(id, int64(id), 1) {
			t.Fatalf("key %d refused", id)
		}
		l.Record(id, int64(id), 1)
	}
	for i, q := range []struct {
		id    int32
		admit bool
	}{{0, false}, {300, true}, {1, true}, {100, true}, {0, false}, {101, false}, {299, false}} {
		at := int64(400 + i)
		if got := l.Decide(q.id, at, 1); got != q.admit {
			t.Errorf("max-entries: key %d at %d ns: admitted %v, want %v", q.id, at, got, q.admit)
		} else if got {
			l.Record(q.id, at, 1)
		}
	}
	if !algorithms.CouplesKeys(l) || algorithms.CouplesKeys(mustNew(t, "drf-throttling:max-entries:without=cull", "1/1s")) || algorithms.CouplesKeys(mustNew(t, "drf-throttling", "1/1s")) {
		t.Error("only the culls couple keys")
	}
	if l.(algorithms.Releaser).Idle(5, int64(time.Hour)) {
		t.Error("with the culls a key is never idle")
	}
}

// The spec: max-entries (300) or max-entries=N; the windows DRF's periods
// read, others refused naming them and a rule of the same rate.
func TestDRFThrottlingSpecs(t *testing.T) {
	r := algorithms.Rule{L: 5, W: int64(time.Second)}
	checkSpecs(t, r, map[string]string{
		"drf-throttling":                               "drf-throttling",
		"drf-throttling:max-entries":                   "drf-throttling:max-entries",
		"drf-throttling:max-entries=300":               "drf-throttling:max-entries",
		"drf-throttling:max-entries=3":                 "drf-throttling:max-entries=3",
		"drf-throttling:without=float":                 "drf-throttling:without=float",
		"drf-throttling:max-entries=7:without=cull":    "drf-throttling:max-entries=7:without=cull",
		"drf-throttling:without=one-hit:without=float": "drf-throttling:without=float:without=one-hit",
	}, []string{"drf-throttling:", "drf-throttling:max-entries=", "drf-throttling:max-entries=0", "drf-throttling:max-entries=x",
		"drf-throttling:max-entriesx", "drf-throttling:cache=redis", "drf-throttling:without=cull"}, "drf-throttling", "deviation")
	for rule, want := range map[string]string{"5/2s": "150/1m has the same rate", "3/500ms": "6/1s has the same rate", "7/7s": "24h, not 7s; give one of these", "2/48h": "24h, not 48h"} {
		_, err := algorithms.New("drf-throttling", mustRule(t, rule))
		if err == nil || !strings.Contains(err.Error(), "1s, 1m, 1h or 24h") || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error naming the windows DRF reads and %q", rule, err, want)
		}
	}
	for rule, want := range map[string]string{"5/1s": "5/second", "100/1m": "100/minute", "3/1h": "3/hour", "1000/24h": "1000/day", "5/2s": ""} {
		if got := products.DRFRate(mustRule(t, rule)); got != want {
			t.Errorf("%s is written %q, want %q", rule, got, want)
		}
	}
	for spec, want := range map[string][]string{
		"drf-throttling":               {"float", "expiry", "one-hit"},
		"drf-throttling:max-entries=3": {"float", "expiry", "one-hit", "cull"},
	} {
		p := mustNew(t, spec, "5/1s").(algorithms.Product)
		var names []string
		for _, d := range p.Deviations() {
			names = append(names, d.Name)
		}
		if !slices.Equal(names, want) || p.Twin() != "log" {
			t.Errorf("%s: deviations %v, twin %s; want %v and log", spec, names, p.Twin(), want)
		}
	}
	l := mustNew(t, "drf-throttling", "5/1s")
	if l.FixedSize() || !l.CountsRejected() || algorithms.CountsEvery(l) {
		t.Errorf("fixed size %v, counts rejected %v, counts every %v: want the log's", l.FixedSize(), l.CountsRejected(), algorithms.CountsEvery(l))
	}
}

// PyTimeAtMost is the last ns whose time.time() is at most the bound,
// near the epoch's 1.7e9 s (a quarter microsecond per double), near 0 and
// on whole seconds.
func TestPyTimeAtMost(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 3000 {
		near := rng.Int64N(20 * int64(time.Second))
		switch i % 3 {
		case 0:
			near += 1_700_000_000_000_000_000
		case 1:
			near -= near % int64(time.Second)
		}
		c := float64(products.PyTime(near+rng.Int64N(2001)-1000) - 1)
		x := products.PyTimeAtMost(c, near-int64(time.Second))
		if products.PyTime(x) > c || products.PyTime(x+1) <= c {
			t.Fatalf("PyTimeAtMost(%v, near %d) = %d: PyTime %v, next %v", c, near, x, products.PyTime(x), products.PyTime(x+1))
		}
		if w := widePyTimeAtMost(c, near-int64(time.Second)); x != w {
			t.Fatalf("PyTimeAtMost(%v, near %d) = %d, the search over the 4 ms around near %d", c, near, x, w)
		}
	}
}

// widePyTimeAtMost is PyTimeAtMost's search over the whole 4 ms around
// near, without a first guess: the instant by its definition.
func widePyTimeAtMost(c float64, near int64) int64 {
	lo, hi := near-2*int64(time.Millisecond), near+2*int64(time.Millisecond)
	for hi-lo > 1 {
		if mid := lo + (hi-lo)/2; products.PyTime(mid) <= c {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// Bytes follows the entries held (8 each, + 8), Memory the largest; a key
// released when Idle decides on as one kept.
func TestDRFThrottlingIdleIsFresh(t *testing.T) {
	l := mustNew(t, "drf-throttling", "3/1s")
	l.Grow(2)
	for i := range 5 {
		if l.Decide(0, int64(i)*int64(time.Millisecond), 1) {
			l.Record(0, int64(i)*int64(time.Millisecond), 1)
		}
	}
	l.Record(1, 0, 1)
	type memory interface{ Memory() (int64, int64) }
	if b := l.Bytes(0); b != 32 {
		t.Errorf("Bytes after 3 admitted under 3/1s = %d, want 32", b)
	}
	if peak, sum := l.(memory).Memory(); peak != 32 || sum != 48 {
		t.Errorf("Memory() = %d, %d; want 32 and 48", peak, sum)
	}
	rl := l.(algorithms.Releaser)
	if rl.Idle(0, int64(time.Second)+int64(time.Millisecond)) || !rl.Idle(0, int64(time.Second)+2*int64(time.Millisecond)) {
		t.Error("idle once every entry is W old, not before")
	}
	rl.Release(0)
	if peak, sum := l.(memory).Memory(); peak != 32 || sum != 48 {
		t.Errorf("after a release, Memory() = %d, %d; want 32 and 48", peak, sum)
	}
	rng := rand.New(rand.NewPCG(5, 10))
	for _, spec := range []string{"drf-throttling", "drf-throttling:without=expiry", "drf-throttling:without=one-hit"} {
		for _, rule := range []string{"5/1s", "3/1m", "100/1m"} {
			kept, freed := mustNew(t, spec, rule), mustNew(t, spec, rule)
			kept.Grow(1)
			freed.Grow(1)
			r := mustRule(t, rule)
			now, released := int64(1_700_000_000_000_000_000)+rng.Int64N(r.W), 0
			if rng.IntN(2) == 0 {
				now = rng.Int64N(r.W)
			}
			for i := range 20000 {
				switch rng.IntN(8) {
				case 0:
					now += r.W
				case 1:
					now += r.W + rng.Int64N(601) - 300
				default:
					now += rng.Int64N(2 * r.W / r.L)
				}
				cost := 1 + rng.Int64N(3)*int64(b2i(rng.IntN(6) == 0))
				if freed.(algorithms.Releaser).Idle(0, now) {
					freed.(algorithms.Releaser).Release(0)
					released++
				}
				a, b := kept.Decide(0, now, cost), freed.Decide(0, now, cost)
				if a != b {
					t.Fatalf("%s %s: request %d at %d: kept %v, released %v", spec, rule, i, now, a, b)
				}
				if a {
					kept.Record(0, now, cost)
					freed.Record(0, now, cost)
				}
			}
			if released == 0 {
				t.Errorf("%s %s: never idle", spec, rule)
			}
		}
	}
}

// Without its deviations, the culls' too, it decides as the log on
// generated traces of several keys, counting admitted requests or every
// one.
func TestDRFThrottlingWithoutDeviationsDecidesAsTwin(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 2))
	for _, spec := range []string{"drf-throttling", "drf-throttling:max-entries=3"} {
		for _, rule := range []string{"5/1s", "7/1m", "100/1h"} {
			r := mustRule(t, rule)
			p := mustNew(t, spec, rule).(algorithms.Product)
			trace := poissonish(rng, r, 8, 5000)
			sameDecisions(t, withoutAll(p), "log", r, trace, false)
			sameDecisions(t, withoutAll(p), "log", r, trace, true)
		}
	}
}
