package products_test

import (
	"math/rand/v2"
	"testing"

	"ratebench/algorithms"
	"ratebench/algorithms/products"
)

// t2023 is a whole second of 2023, where microtime's float64 seconds tell
// every microsecond apart.
const t2023 = int64(1_700_000_000) * sec

// FixedWindowLimiter's arithmetic for limit 2, interval 60
// (FixedWindowLimiter.php:50-100, Window.php:51-85, InMemoryStorage.php:23-60).
func TestSymfonyFixedWindowTimeline(t *testing.T) {
	l := mustNew(t, "symfony", "2/1m")
	p := l.(algorithms.Product)
	if p.Twin() != "fixed" || !algorithms.CountsEvery(l) || l.Bytes(0) != 24 || len(p.Deviations()) != 5 {
		t.Fatalf("twin %q, counts every %v, %d bytes, deviations %v", p.Twin(), algorithms.CountsEvery(l), l.Bytes(0), p.Deviations())
	}
	t0 := t2023
	play(t, l, true, []step{
		{T: t0 + 500*ms, Cost: 1, Admit: true},               // a new window, timer t0+0.5
		{T: t0 + 30*sec, Cost: 1, Admit: true},               // hitCount 2
		{T: t0 + 40*sec, Cost: 1, Admit: false},              // wait ceil(20.5) = 21 s: refused, not added
		{T: t0 + 60*sec + 500*ms, Cost: 1, Admit: false},     // now - timer = 60, not > 60: wait 0, added all the same
		{T: t0 + 60*sec + 500*ms + us, Cost: 1, Admit: true}, // a new window from here
		{T: t0 + 61*sec, Cost: 3, Admit: false},              // above the limit: reserve throws
		{T: t0 + 62*sec, Cost: 1, Admit: true},               // hitCount 2
		{T: t0 + 200*sec, Cost: 2, Admit: true},              // a new window, saved once, at its start
		{T: t0 + 260*sec, Cost: 1, Admit: true},              // expireAt t0+260 <= now: the storage dropped it
		{T: t0 + 261*sec, Cost: 1, Admit: true},
		{T: t0 + 262*sec, Cost: 1, Admit: false},
	})
	// A costly request refused at the end instant uses up the room of a
	// cheaper one at the same instant (limit 3).
	l = mustNew(t, "symfony", "3/1m")
	play(t, l, true, []step{
		{T: t0, Cost: 1, Admit: true},
		{T: t0 + sec, Cost: 1, Admit: true},
		{T: t0 + 60*sec, Cost: 2, Admit: false}, // room 1, wait 0: hitCount 4
		{T: t0 + 60*sec, Cost: 1, Admit: false},
		{T: t0 + 60*sec + us, Cost: 3, Admit: true},
	})
}

// SlidingWindowLimiter's arithmetic for limit 4, interval 10
// (SlidingWindowLimiter.php:62-87, SlidingWindow.php:46-101).
func TestSymfonySlidingWindowTimeline(t *testing.T) {
	l := mustNew(t, "symfony:policy=sliding_window", "4/10s")
	p := l.(algorithms.Product)
	if p.Twin() != "counter" || algorithms.CountsEvery(l) || l.Bytes(0) != 32 || len(p.Deviations()) != 6 {
		t.Fatalf("twin %q, counts every %v, %d bytes, deviations %v", p.Twin(), algorithms.CountsEvery(l), l.Bytes(0), p.Deviations())
	}
	t0 := t2023
	play(t, l, false, []step{
		{T: t0 + sec, Cost: 1, Admit: true}, // windowEndAt t0+11
		{T: t0 + 2*sec, Cost: 1, Admit: true},
		{T: t0 + 3*sec, Cost: 2, Admit: true},
		{T: t0 + 5*sec, Cost: 1, Admit: false},
		{T: t0 + 11*sec, Cost: 1, Admit: false},          // not expired at its end: the previous count weighs 0, hitCount 4
		{T: t0 + 13*sec + 500*ms, Cost: 1, Admit: true},  // the next window, to t0+21: floor(4*0.75) = 3; expireAt +17 s
		{T: t0 + 16*sec, Cost: 1, Admit: true},           // floor(4*0.5 + 1) = 3
		{T: t0 + 16*sec + 500*ms, Cost: 1, Admit: true},  // floor(4*0.45 + 2) = 3: floored, 3.8 + 1 > 4 all the same
		{T: t0 + 16*sec + 600*ms, Cost: 1, Admit: false}, // floor(1.76 + 3) = 4
		{T: t0 + 30*sec + 500*ms, Cost: 4, Admit: true},  // expireAt 16.5 + (int)14.5 = 30.5: dropped, a new window to t0+40.5
		{T: t0 + 40*sec + 500*ms, Cost: 1, Admit: false}, // its end instant
		{T: t0 + 41*sec, Cost: 2, Admit: false},          // floor(4*0.95) = 3
		{T: t0 + 41*sec, Cost: 1, Admit: true},
	})
}

// TokenBucketLimiter's arithmetic for limit 10 and the rate of 10/1m, 1
// token every 6 s (TokenBucketLimiter.php:54-111, TokenBucket.php:79-94,
// Rate.php:75-112).
func TestSymfonyTokenBucketTimeline(t *testing.T) {
	l := mustNew(t, "symfony:policy=token_bucket", "10/1m")
	p := l.(algorithms.Product)
	if p.Twin() != "token" || algorithms.CountsEvery(l) || l.CountsRejected() || l.Bytes(0) != 24 {
		t.Fatalf("twin %q, counts every %v, %d bytes", p.Twin(), algorithms.CountsEvery(l), l.Bytes(0))
	}
	if a, s := l.(*products.Symfony).Refill(); a != 1 || s != 6 {
		t.Fatalf("10/1m refills %d tokens every %d s, want 1 every 6", a, s)
	}
	t0 := t2023
	play(t, l, false, []step{
		{T: t0 + 500*ms, Cost: 10, Admit: true}, // timer t0+0.5
		{T: t0 + 5*sec, Cost: 1, Admit: false},
		{T: t0 + 6*sec + 500*ms, Cost: 1, Admit: true}, // one interval: timer t0+6.5
		{T: t0 + 12*sec, Cost: 1, Admit: false},
		{T: t0 + 20*sec, Cost: 1, Admit: true}, // two intervals: timer t0+18.5, one token left; expireAt t0+80
		{T: t0 + 20*sec, Cost: 1, Admit: true},
		{T: t0 + 24*sec, Cost: 1, Admit: false},
		{T: t0 + 80*sec, Cost: 11, Admit: false}, // above the burst: reserve throws
		{T: t0 + 80*sec, Cost: 10, Admit: true},  // dropped: a new bucket, full, its timer t0+80
		{T: t0 + 85*sec + 500*ms, Cost: 1, Admit: false},
		{T: t0 + 86*sec, Cost: 1, Admit: true},
	})
	if a, s := mustNew(t, "symfony:policy=token_bucket", "5/1s").(*products.Symfony).Refill(); a != 5 || s != 1 {
		t.Errorf("5/1s refills %d tokens every %d s, want 5 every 1", a, s)
	}
}

// Each deviation, alone, changes a decision of the twin on a timeline
// worked out from the source; turned off too, the timeline is the twin's
// again.
func TestSymfonyEachDeviationAloneChangesADecision(t *testing.T) {
	const ns = int64(1)
	for _, c := range []struct {
		name, rule, spec string // spec: the product with dev on, every other off
		reqs             [][2]int64
		twin, product    string
	}{
		// anchor: a window from 0.5 s holds the request at 1.2 s; the
		// epoch's second window does not.
		{"anchor", "1/1s", "symfony:without=closed:without=counts-refused:without=clock:without=float",
			[][2]int64{{500 * ms, 1}, {1200 * ms, 1}}, "AA", "AR"},
		// closed: the epoch's window [0, 1] holds the request at 1 s (the
		// last save at 0.5 s: expireAt 1.5 s).
		{"closed", "1/1s", "symfony:without=anchor:without=counts-refused:without=clock:without=float",
			[][2]int64{{500 * ms, 1}, {sec, 1}}, "AA", "AR"},
		// float: 1 ns before the epoch's second is, in float64 seconds of
		// 2023, the second itself.
		{"float", "1/1s", "symfony:without=anchor:without=closed:without=counts-refused:without=clock",
			[][2]int64{{t2023 + 500*ms, 1}, {t2023 + sec - ns, 1}}, "AR", "AA"},
		// sliding, anchor: at 1.6 s the epoch's windows weigh the two
		// requests by 0.4, the windows from 0.5 s by 0.9.
		{"anchor", "2/1s", "symfony:policy=sliding_window:without=closed:without=floor:without=expiry:without=clock:without=float",
			[][2]int64{{500 * ms, 1}, {600 * ms, 1}, {1600 * ms, 1}}, "AAA", "AAR"},
		// sliding, closed: the request at 1 s counts in the window [0, 1];
		// at 1.5 s both weigh a half.
		{"closed", "2/1s", "symfony:policy=sliding_window:without=anchor:without=floor:without=expiry:without=clock:without=float",
			[][2]int64{{500 * ms, 1}, {sec, 1}, {1500 * ms, 1}}, "AAR", "AAA"},
		// sliding, floor: 2*0.6 = 1.2 floors to 1.
		{"floor", "2/1s", "symfony:policy=sliding_window:without=anchor:without=closed:without=expiry:without=clock:without=float",
			[][2]int64{{500 * ms, 1}, {600 * ms, 1}, {1400 * ms, 1}}, "AAR", "AAA"},
		// sliding, expiry: saved at 0.5 s, the window ending at 1 s
		// expires at 0.5 + (int)1.5 = 1.5 s, before its hit stops counting.
		{"expiry", "1/1s", "symfony:policy=sliding_window:without=anchor:without=closed:without=floor:without=clock:without=float",
			[][2]int64{{500 * ms, 1}, {1700 * ms, 1}}, "AR", "AA"},
		// sliding, clock: 3*(1 - 0.3333334) + 1 <= 3, but on whole
		// microseconds 3*(1 - 0.333333) + 1 > 3.
		{"clock", "3/1s", "symfony:policy=sliding_window:without=anchor:without=closed:without=floor:without=expiry:without=float",
			[][2]int64{{500 * ms, 1}, {500 * ms, 1}, {500 * ms, 1}, {1_333_333_400 * ns, 1}}, "AAAA", "AAAR"},
		// sliding, float: 100 ns before the middle of the window is, in
		// float64 seconds of 2023, the middle itself: 2*0.5 + 1 <= 2.
		{"float", "2/1s", "symfony:policy=sliding_window:without=anchor:without=closed:without=floor:without=expiry:without=clock",
			[][2]int64{{t2023 + 500*ms, 1}, {t2023 + 500*ms, 1}, {t2023 + 1500*ms - 100*ns, 1}}, "AAR", "AAA"},
		// token, interval: half a second refills 2.5 tokens continuously,
		// none in whole intervals of a second.
		{"interval", "5/1s", "symfony:policy=token_bucket:without=clock:without=float",
			[][2]int64{{0, 5}, {500 * ms, 1}}, "AA", "AR"},
		// token, clock: the bucket's time is 0 µs, not 500 ns: a token is
		// back at 1 s + 200 ns.
		{"clock", "1/1s", "symfony:policy=token_bucket:without=interval:without=float",
			[][2]int64{{500 * ns, 1}, {sec + 200*ns, 1}}, "AR", "AA"},
	} {
		r := mustRule(t, c.rule)
		twin := mustNewRule(t, c.spec, r).(algorithms.Product).Twin()
		checkDeviation(t, func(spec string) string { return ownTimeline(t, spec, r, c.reqs...) }, twin, c.spec, c.name, c.twin, c.product)
	}
}

// The deviations that show only beside another: the fixed window's clock
// (with anchor: the window starts on a whole microsecond) and
// counts-refused (with closed, at the end instant, with costs), the token
// bucket's float (with its whole intervals, counted in float64 seconds).
func TestSymfonyDeviationsBesideAnother(t *testing.T) {
	const ns = int64(1)
	for _, c := range []struct {
		name, rule, spec string // spec: the product with dev on
		reqs             [][2]int64
		off, on          string // spec without dev, and spec
	}{
		// clock, with anchor: the window starts at 0 µs, not 500 ns, and
		// has ended at 1 s + 200 ns.
		{"clock", "1/1s", "symfony:without=closed:without=counts-refused:without=float",
			[][2]int64{{500 * ns, 1}, {sec + 200*ns, 1}}, "AR", "AA"},
		// counts-refused, with closed: at the end instant of [0, 1], a
		// request of cost 2 is refused (room 1) and added.
		{"counts-refused", "3/1s", "symfony:without=anchor:without=clock:without=float",
			[][2]int64{{0, 1}, {500 * ms, 1}, {sec, 2}, {sec, 1}}, "AARA", "AARR"},
		// token float, with interval: 100 ns after a second of 2023 is
		// the second in float64, so 1 s + 50 ns later a whole interval.
		{"float", "1/1s", "symfony:policy=token_bucket:without=clock",
			[][2]int64{{t2023 + 100*ns, 1}, {t2023 + sec + 50*ns, 1}}, "AR", "AA"},
	} {
		r := mustRule(t, c.rule)
		if got := ownTimeline(t, c.spec, r, c.reqs...); got != c.on {
			t.Errorf("%s: %s decides %s, want %s", c.name, c.spec, got, c.on)
		}
		if got := ownTimeline(t, c.spec+":without="+c.name, r, c.reqs...); got != c.off {
			t.Errorf("%s off: %s, want %s", c.name, got, c.off)
		}
	}
	// The fixed window's clock alone changes nothing: the epoch's windows
	// of whole seconds are the same on whole microseconds.
	rng := rand.New(rand.NewPCG(35, 1))
	for _, r := range productRules {
		trace := edgeTrace(rng, r, 8, 4000, 0)
		sameDecisions(t, "symfony:without=anchor:without=closed:without=counts-refused:without=float", "fixed", r, trace, false)
	}
}

// With every deviation off, each policy decides as its twin (the default
// policy is also in TestProductsWithoutDeviationsDecideAsTheirTwins).
func TestSymfonyPoliciesWithoutDeviationsDecideAsTheirTwins(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 2))
	for _, r := range productRules {
		for _, policy := range []string{"fixed_window", "sliding_window", "token_bucket"} {
			p := mustNewRule(t, "symfony:policy="+policy, r).(algorithms.Product)
			for _, trace := range [][]req{poissonish(rng, r, 10, 8000), edgeTrace(rng, r, 6, 4000, t2023)} {
				sameDecisions(t, p.Twin(), withoutAll(p), r, trace, false)
			}
		}
	}
}

// Specs: the policies by name, the fixed window the default; an interval
// of whole seconds, at least one.
func TestSymfonySpecs(t *testing.T) {
	checkSpecs(t, mustRule(t, "10/1m"), map[string]string{
		"symfony":                                       "symfony",
		"symfony:policy=fixed_window":                   "symfony",
		"symfony:policy=sliding_window":                 "symfony:policy=sliding_window",
		"symfony:policy=token_bucket:without=float":     "symfony:policy=token_bucket:without=float",
		"symfony:without=counts-refused:without=anchor": "symfony:without=anchor:without=counts-refused",
	}, []string{"symfony:", "symfony:policy=", "symfony:policy=moving_window", "symfony:limit=3", "symfony:policy=token_bucket:without=floor"})
	for _, rule := range []string{"5/1500ms", "5/500ms"} {
		checkSpecs(t, mustRule(t, rule), nil, []string{"symfony", "symfony:policy=token_bucket"}, "whole seconds")
	}
}

// Idle holds only when the next request would find the key as a new one:
// a replay that releases idle keys decides as one that never does.
func TestSymfonyIdleIsFresh(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 3))
	for _, rule := range []string{"3/1s", "10/1m", "7/3s"} {
		r := mustRule(t, rule)
		for _, policy := range []string{"fixed_window", "sliding_window", "token_bucket"} {
			p := mustNewRule(t, "symfony:policy="+policy, r).(algorithms.Product)
			for _, spec := range []string{p.Name(), p.Name() + ":without=float", withoutAll(p)} {
				idleIsFresh(t, rng, spec, r, 0)
				idleIsFresh(t, rng, spec, r, t2023+123_456_789)
			}
		}
	}
}
