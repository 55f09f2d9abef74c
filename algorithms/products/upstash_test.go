package products_test

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"ratebench/algorithms"
	_ "ratebench/algorithms/products"
)

// upstashMs is a millisecond in the trace's nanoseconds.
const upstashMs = int64(time.Millisecond)

// upstashT0 is the start of a one-minute window aligned to the epoch, in
// ms: 28333334 * 60000.
const upstashT0 = 1_700_000_040_000

// at returns the instant T0 + ms milliseconds, in ns (ms may have a
// fraction).
func upstashAt(ms float64) int64 {
	return upstashT0*upstashMs + int64(ms*float64(upstashMs))
}

// replayUpstash replays trace through spec on one key, recording what it
// admits, and every request for a product that counts every request, as
// the harness does, and returns its decisions.
func replayUpstash(t *testing.T, spec string, r algorithms.Rule, trace []req) []bool {
	t.Helper()
	lim, err := algorithms.New(spec, r)
	if err != nil {
		t.Fatal(err)
	}
	lim.Grow(1)
	out := make([]bool, len(trace))
	for i, q := range trace {
		out[i] = lim.Decide(0, q.T, q.Cost)
		if out[i] || algorithms.CountsEvery(lim) {
			lim.Record(0, q.T, q.Cost)
		}
	}
	return out
}

// upstashAllOff is spec with every deviation turned off.
func upstashAllOff(t *testing.T, spec string, r algorithms.Rule) string {
	t.Helper()
	lim, err := algorithms.New(spec, r)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range lim.(algorithms.Product).Deviations() {
		spec += ":without=" + d.Name
	}
	return spec
}

// With every deviation off, each of Upstash's limiters decides as its
// twin, request by request, on generated traces (costs above 1 included).
func TestUpstashWithoutDeviationsDecidesAsTwin(t *testing.T) {
	rules := []algorithms.Rule{
		{L: 5, W: int64(30 * time.Second)},
		{L: 10, W: int64(time.Minute)},
		{L: 100, W: int64(time.Minute)},
		{L: 7, W: 1001 * upstashMs},
		{L: 1_000_000, W: int64(24 * time.Hour)},
	}
	rng := rand.New(rand.NewPCG(16, 5))
	for _, r := range rules {
		trace := poissonish(rng, r, 6, 6000)
		for _, spec := range []string{"upstash", "upstash-fixed", "upstash-token", "upstash-token:max=" + itoa64(r.L+3)} {
			lim, err := algorithms.New(spec, r)
			if err != nil {
				t.Fatal(err)
			}
			twin := lim.(algorithms.Product).Twin()
			if twin == "" {
				t.Fatalf("%s under %v has no twin", spec, r)
			}
			sameDecisions(t, upstashAllOff(t, spec, r), twin, r, trace, false)
		}
	}
}

func itoa64(v int64) string { return strconv.FormatInt(v, 10) }

// The twins, the names and the deviations of the three specs.
func TestUpstashSpecs(t *testing.T) {
	r := algorithms.Rule{L: 10, W: int64(time.Minute)}
	for _, c := range []struct {
		spec, name, twin string
		devs             []string
		every            bool
	}{
		{"upstash", "upstash", "counter", []string{"clock", "lt", "float", "counts-refused", "cache"}, true},
		{"upstash-fixed", "upstash-fixed", "fixed", []string{"clock", "counts-refused", "cache"}, true},
		{"upstash-token", "upstash-token", "token", []string{"clock", "interval", "counts-refused", "cache"}, true},
		{"upstash-token:max=20", "upstash-token:max=20", "token:B=20", []string{"clock", "interval", "counts-refused", "cache"}, true},
		{"upstash-token:interval=12s:refill=2", "upstash-token:refill=2:interval=12s", "token", nil, true},
		{"upstash-token:refill=3:interval=10s", "upstash-token:refill=3:interval=10s", "", nil, true},
		{"upstash-fixed:without=counts-refused", "upstash-fixed:without=counts-refused", "fixed", nil, false},
		{"upstash:without=cache:without=clock", "upstash:without=clock:without=cache", "counter", nil, true},
		{"upstash:without=counts-refused", "upstash:without=counts-refused", "counter", nil, false},
	} {
		lim, err := algorithms.New(c.spec, r)
		if err != nil {
			t.Fatalf("%s: %v", c.spec, err)
		}
		p := lim.(algorithms.Product)
		if lim.Name() != c.name || p.Twin() != c.twin || algorithms.CountsEvery(lim) != c.every {
			t.Errorf("%s: name %q twin %q counts every %v, want %q %q %v", c.spec, lim.Name(), p.Twin(), algorithms.CountsEvery(lim), c.name, c.twin, c.every)
		}
		if again, err := algorithms.New(lim.Name(), r); err != nil || again.Name() != lim.Name() {
			t.Errorf("%s does not round-trip: %v", lim.Name(), err)
		}
		var names []string
		for _, d := range p.Deviations() {
			names = append(names, d.Name)
			if d.About == "" {
				t.Errorf("%s: deviation %s has no About", c.spec, d.Name)
			}
		}
		if c.devs != nil && !slices.Equal(names, c.devs) {
			t.Errorf("%s: deviations %v, want %v", c.spec, names, c.devs)
		}
	}
	for _, c := range []struct {
		spec string
		r    algorithms.Rule
		want string
	}{
		{"upstash", algorithms.Rule{L: 7, W: int64(time.Second) + 3}, "whole milliseconds"},
		{"upstash-fixed", algorithms.Rule{L: 7, W: int64(time.Second) + 3}, "whole milliseconds"},
		{"upstash-token:refill=1:interval=1500us", r, "whole milliseconds"},
		{"upstash-token:refill=1", r, "give refill and interval together"},
		{"upstash-token:max=0", r, "want upstash-token"},
		{"upstash-token:burst=3", r, "want upstash-token"},
		{"upstash:x=1", r, "takes no parameter"},
		{"upstash:without=floor", r, `no deviation "floor" (known: clock, lt, float, counts-refused, cache)`},
	} {
		_, err := algorithms.New(c.spec, c.r)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s under %v: error %v, want it to say %q", c.spec, c.r, err, c.want)
		}
	}
}

// checkTimeline replays trace through each spec and compares the
// decisions with want[spec].
func checkTimeline(t *testing.T, r algorithms.Rule, trace []req, want map[string][]bool) {
	t.Helper()
	for spec, w := range want {
		if got := replayUpstash(t, spec, r, trace); !slices.Equal(got, w) {
			t.Errorf("%s: decisions %v, want %v", spec, got, w)
		}
	}
}

// upstashPrev is ten requests in the window before T0's, one a second
// from its start: all admitted, the previous count of T0's window is 10.
func upstashPrev() []req {
	var tr []req
	for i := range 10 {
		tr = append(tr, req{Key: 0, T: upstashAt(float64(-60000 + 1000*i)), Cost: 1})
	}
	return tr
}

func repeatBools(v bool, n int) []bool {
	out := make([]bool, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// The sliding window at 10/1m, each deviation on a timeline worked out from
// slidingWindowLimitScript (lua-scripts/single.ts:77, 79, 82, 86) and the
// cache (single.ts:326-330, cache.ts:18). The previous window holds 10.
func TestUpstashSlidingTimeline(t *testing.T) {
	r := algorithms.Rule{L: 10, W: int64(time.Minute)}
	ten := repeatBools(true, 10)
	with := func(tail ...bool) []bool { return append(slices.Clone(ten), tail...) }

	// lt: 6001 ms in, previous weighs 10*53999/60000 = 8.998, floored 8.
	// Upstash: 8+0 < 10 and 8+1 < 10 admit, 8+2 >= 10 refuses; the counter
	// admits 8.998+0+1 <= 10 and refuses 8.998+1+1.
	tr := append(upstashPrev(), req{Key: 0, T: upstashAt(6001), Cost: 1}, req{Key: 0, T: upstashAt(6001), Cost: 1}, req{Key: 0, T: upstashAt(6001), Cost: 1})
	checkTimeline(t, r, tr, map[string][]bool{
		"upstash":               with(true, true, false),
		"upstash:without=lt":    with(true, false, false),
		"counter":               with(true, false, false),
		"upstash:without=float": with(true, true, false),
	})

	// clock: 6000.5 ms in is 6000 ms on Date.now(): previous weighs exactly
	// 9, so the second request (9+1 >= 10) is refused; on the exact clock it
	// weighs 8.99991 and 8.99991+1 < 10 is admitted.
	tr = append(upstashPrev(), req{Key: 0, T: upstashAt(6000.5), Cost: 1}, req{Key: 0, T: upstashAt(6000.5), Cost: 1})
	checkTimeline(t, r, tr, map[string][]bool{
		"upstash":               with(true, false),
		"upstash:without=clock": with(true, true),
	})

	// float: 54000 ms in, (1 - 54000/60000)*10 is 0.9999999999999998 in
	// float64, floored 0, not 1: ten requests pass (0+9 < 10) where the
	// exact weight admits nine (1+9 >= 10 refuses the tenth).
	tr = upstashPrev()
	for range 10 {
		tr = append(tr, req{Key: 0, T: upstashAt(54000), Cost: 1})
	}
	checkTimeline(t, r, tr, map[string][]bool{
		"upstash":               with(ten...),
		"upstash:without=float": with(append(repeatBools(true, 9), false)...),
		"counter-lt":            with(append(repeatBools(true, 9), false)...),
	})

	// cache: refused at 6000.5 ms (as above), the key is blocked until the
	// window's reset T0+60000 ms, that millisecond included. Without the
	// cache, 30 s in, previous weighs 5 and 5+1 < 10 admits; at T0+60000 ms
	// (the next window, previous 1, weight 1) 1+0 < 10 admits; at
	// T0+60001 ms the block is over.
	tr = append(upstashPrev(), req{Key: 0, T: upstashAt(6000.5), Cost: 1}, req{Key: 0, T: upstashAt(6000.5), Cost: 1},
		req{Key: 0, T: upstashAt(30000), Cost: 1}, req{Key: 0, T: upstashAt(60000.9), Cost: 1}, req{Key: 0, T: upstashAt(60001), Cost: 1})
	checkTimeline(t, r, tr, map[string][]bool{
		"upstash":                             with(true, false, false, false, true),
		"upstash:without=cache":               with(true, false, true, true, true),
		"upstash:without=clock:without=cache": with(true, true, true, true, true),
		// on the exact clock nothing is refused, so nothing is blocked
		"upstash:without=clock": with(true, true, true, true, true),
	})

	// cost and counts-refused: 30 s in, previous weighs 5; a request of
	// cost 9 passes line 82 (5 + 0 < 10) and is counted (INCRBY to 9), but
	// remaining = 10 - (9 + 5) < 0 refuses it; the next, of cost 1, then
	// finds 5 + 9 >= 10. Not counting the refusal, 5 + 0 + 1 <= 10 admits
	// it (unless the cache blocks it).
	tr = append(upstashPrev(), req{Key: 0, T: upstashAt(30000), Cost: 9}, req{Key: 0, T: upstashAt(30000), Cost: 1})
	checkTimeline(t, r, tr, map[string][]bool{
		"upstash":               with(false, false),
		"upstash:without=cache": with(false, false),
		"upstash:without=counts-refused:without=cache":            with(false, true),
		"upstash:without=counts-refused":                          with(false, false), // blocked
		"upstash:without=lt:without=cache":                        with(false, false),
		"upstash:without=lt:without=counts-refused:without=cache": with(false, true),
		"counter": with(false, true),
	})
}

// The fixed window at 10/1m, from fixedWindowLimitScript (lua-scripts/
// single.ts:17: INCRBY for every call) and single.ts:204-209.
func TestUpstashFixedTimeline(t *testing.T) {
	r := algorithms.Rule{L: 10, W: int64(time.Minute)}
	// counts-refused: cost 8 admitted (8 <= 10), cost 5 refused but counted
	// (13), then cost 1 refused (14 > 10); not counting the refusal,
	// 8+1 <= 10 admits it.
	tr := []req{{Key: 0, T: upstashAt(1000), Cost: 8}, {Key: 0, T: upstashAt(2000), Cost: 5}, {Key: 0, T: upstashAt(3000), Cost: 1}}
	checkTimeline(t, r, tr, map[string][]bool{
		"upstash-fixed:without=cache":                        {true, false, false},
		"upstash-fixed:without=cache:without=counts-refused": {true, false, true},
		"fixed":         {true, false, true},
		"upstash-fixed": {true, false, false},
	})
	// cache and clock: refused at 2000 ms, blocked through the reset's
	// millisecond T0+60000: a request at T0+60000.5 ms, in the next window,
	// is refused by the cache; on the exact clock the block ended at the
	// reset's nanosecond; without the cache the new window admits it.
	tr = []req{{Key: 0, T: upstashAt(1000), Cost: 8}, {Key: 0, T: upstashAt(2000), Cost: 5}, {Key: 0, T: upstashAt(60000.5), Cost: 1}, {Key: 0, T: upstashAt(60001), Cost: 1}}
	checkTimeline(t, r, tr, map[string][]bool{
		"upstash-fixed":               {true, false, false, true},
		"upstash-fixed:without=clock": {true, false, true, true},
		"upstash-fixed:without=cache": {true, false, true, true},
	})
	// A request the cache refuses does not reach Redis: not counted. Ten in
	// the window, the eleventh refused and blocked; through the reset's
	// millisecond of the next window the cache refuses 5 (not counted), and
	// then ten more pass.
	tr = nil
	for i := range 11 {
		tr = append(tr, req{Key: 0, T: upstashAt(float64(1000 * i)), Cost: 1})
	}
	for range 5 {
		tr = append(tr, req{Key: 0, T: upstashAt(60000.5), Cost: 1})
	}
	for range 11 {
		tr = append(tr, req{Key: 0, T: upstashAt(61000), Cost: 1})
	}
	want := append(append(append(repeatBools(true, 10), false), repeatBools(false, 5)...), append(repeatBools(true, 10), false)...)
	checkTimeline(t, r, tr, map[string][]bool{"upstash-fixed": want})
}

// The token bucket at 10/1m: maxTokens 10, one token every 6000 ms, from
// tokenBucketLimitScript (lua-scripts/single.ts:153-181).
func TestUpstashTokenTimeline(t *testing.T) {
	r := algorithms.Rule{L: 10, W: int64(time.Minute)}
	burst := func(ms float64, n int, cost int64) []req {
		var tr []req
		for range n {
			tr = append(tr, req{Key: 0, T: upstashAt(ms), Cost: cost})
		}
		return tr
	}
	// expiry: first request at T0 (refilledAt T0, 9 left; the key expires
	// at T0+6000, line 174). At T0+9000 the key has expired (line 153): a
	// fresh bucket, refilledAt T0+9000, ten requests pass. At T0+12000 no
	// refill yet (12000 < 9000+6000, line 161): refused; at T0+15000 one
	// token. A key that had not expired would have refilled at T0+6000
	// (refilledAt) and again at T0+12000. Refilled continuously, the bucket
	// is full at 9000, empty after the ten, holds 0.5 at 12000 and 1 at
	// 15000: the same decisions.
	tr := append(append([]req{{Key: 0, T: upstashAt(0), Cost: 1}}, burst(9000, 10, 1)...), req{Key: 0, T: upstashAt(12000), Cost: 1}, req{Key: 0, T: upstashAt(15000), Cost: 1})
	checkTimeline(t, r, tr, map[string][]bool{
		"upstash-token:without=cache":                  append(repeatBools(true, 11), false, true),
		"upstash-token:without=cache:without=interval": append(repeatBools(true, 11), false, true),
	})
	// interval: first request at T0 (9 left), one at T0+3000 (8 left: the
	// key expires at 3000 + ceil(2/1)*6000 = T0+15000). At T0+13000, two
	// refills (n = 2, refilledAt T0+12000): full, ten pass. At T0+18000 one
	// refill: one passes. Refilled continuously, the bucket was full at
	// T0+12000 too, but its refill starts again from the ten at T0+13000:
	// at T0+18000 it holds 5000/6000 of a token, and refuses.
	tr = append(append([]req{{Key: 0, T: upstashAt(0), Cost: 1}, {Key: 0, T: upstashAt(3000), Cost: 1}}, burst(13000, 10, 1)...), req{Key: 0, T: upstashAt(18000), Cost: 1})
	checkTimeline(t, r, tr, map[string][]bool{
		"upstash-token:without=cache":                  repeatBools(true, 13),
		"upstash-token:without=cache:without=interval": append(repeatBools(true, 12), false),
		"token:B=10": append(repeatBools(true, 12), false),
	})

	// counts-refused: cost 8 at T0 (2 left), cost 5 at T0+1000 refused but
	// stored: -3 (lines 173, 176). At T0+6000 one refill: -2, and a request
	// of cost 1 is refused (remaining -3, line 450). Without the debt: 2
	// left, 3 at 6000, admitted.
	tr = []req{{Key: 0, T: upstashAt(0), Cost: 8}, {Key: 0, T: upstashAt(1000), Cost: 5}, {Key: 0, T: upstashAt(6000), Cost: 1}}
	checkTimeline(t, r, tr, map[string][]bool{
		"upstash-token:without=cache":                        {true, false, false},
		"upstash-token:without=cache:without=counts-refused": {true, false, true},
	})

	// cache: ten at T0 (0 left), the eleventh at T0+1000 refused with reset
	// refilledAt + interval = T0+6000 (line 170): blocked through that
	// millisecond. At T0+6000 the bucket has a token, the cache refuses;
	// at T0+6001 it passes.
	tr = append(burst(0, 10, 1), req{Key: 0, T: upstashAt(1000), Cost: 1}, req{Key: 0, T: upstashAt(6000), Cost: 1}, req{Key: 0, T: upstashAt(6001), Cost: 1})
	checkTimeline(t, r, tr, map[string][]bool{
		"upstash-token":               append(repeatBools(true, 10), false, false, true),
		"upstash-token:without=cache": append(repeatBools(true, 10), false, true, false),
	})

	// clock: the first request at T0+0.4 ms is at T0 on Date.now(): the
	// refill comes at T0+6000 ms, and a request at T0+6000.2 ms passes; on
	// the exact clock the refill is due at T0+6000.4 ms.
	tr = append(burst(0.4, 10, 1), req{Key: 0, T: upstashAt(6000.2), Cost: 1})
	checkTimeline(t, r, tr, map[string][]bool{
		"upstash-token:without=cache":               append(repeatBools(true, 10), true),
		"upstash-token:without=cache:without=clock": append(repeatBools(true, 10), false),
	})
}

// The default refill mapping: the rule's rate in lowest terms over whole
// milliseconds.
func TestUpstashTokenMapping(t *testing.T) {
	for _, c := range []struct {
		r    algorithms.Rule
		twin string
	}{
		{algorithms.Rule{L: 10, W: int64(time.Minute)}, "token"},
		{algorithms.Rule{L: 7, W: int64(time.Minute)}, "token"},
		{algorithms.Rule{L: 1_000_000, W: int64(24 * time.Hour)}, "token"},
		{algorithms.Rule{L: 3, W: 1001 * upstashMs}, "token"},
	} {
		lim, err := algorithms.New("upstash-token", c.r)
		if err != nil {
			t.Fatal(err)
		}
		if got := lim.(algorithms.Product).Twin(); got != c.twin {
			t.Errorf("upstash-token under %v: twin %q, want %q", c.r, got, c.twin)
		}
	}
	if _, err := algorithms.New("upstash-token", algorithms.Rule{L: 3, W: int64(time.Second) + 1}); err == nil {
		t.Error("upstash-token under a window of 1.000000001s: no error")
	}
}

// Bytes, Idle and Release.
func TestUpstashState(t *testing.T) {
	r := algorithms.Rule{L: 2, W: int64(time.Minute)}
	for _, c := range []struct {
		spec  string
		bytes int64
	}{
		{"upstash", 32}, {"upstash:without=cache", 24},
		{"upstash-fixed", 24}, {"upstash-fixed:without=cache", 16},
		{"upstash-token", 32}, {"upstash-token:without=cache", 24},
	} {
		lim, err := algorithms.New(c.spec, r)
		if err != nil {
			t.Fatal(err)
		}
		lim.Grow(1)
		if lim.Bytes(0) != c.bytes || !lim.FixedSize() {
			t.Errorf("%s: %d bytes, want %d", c.spec, lim.Bytes(0), c.bytes)
		}
		rl := lim.(algorithms.Releaser)
		for i := range 3 {
			if lim.Decide(0, upstashAt(float64(i)), 1) || algorithms.CountsEvery(lim) {
				lim.Record(0, upstashAt(float64(i)), 1)
			}
		}
		if rl.Idle(0, upstashAt(10)) {
			t.Errorf("%s: idle right after its limit", c.spec)
		}
		if !rl.Idle(0, upstashAt(180001)) {
			t.Errorf("%s: not idle three minutes later", c.spec)
		}
		rl.Release(0)
		if !lim.Decide(0, upstashAt(20), 1) {
			t.Errorf("%s: a released key is refused", c.spec)
		}
	}
}
