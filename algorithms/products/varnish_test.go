package products_test

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"ratebench/algorithms"
	"ratebench/algorithms/products"
)

// Each of vsthrottle's deviations, alone, changes a decision of its twin,
// the token bucket; turned off too, the timeline is the twin's.
func TestVsthrottleEachDeviationAloneChangesADecision(t *testing.T) {
	ms := int64(time.Millisecond)
	for _, c := range []struct {
		name, spec    string
		times         []int64
		twin, product string
	}{
		// 5/1s: four requests at 0 leave one token. At 100 ms the exact
		// bucket has 1.5 and admits (0.5 left); vsthrottle adds floor(0.5)
		// = 0, admits with its last token and restarts the refill at 100
		// ms. At 300 ms both have one token more and admit (0.5 left, and
		// 0 with the refill restarted at 300 ms). At 400 ms the exact
		// bucket has 0.5 + 0.5 = 1 and admits; vsthrottle, counting from
		// 300 ms, adds floor(0.5) = 0 and refuses.
		{"refill-truncation", "varnish:without=float:without=one-hit",
			[]int64{0, 0, 0, 0, 100 * ms, 300 * ms, 400 * ms}, "AAAAAAA", "AAAAAAR"},
		// 5/1s: five requests at 300 ms take every token. At 500 ms the
		// exact bucket has one token back; in doubles VTIM_mono reads
		// 0.30000000000000004 and 0.5, delta = 0.19999999999999996 and
		// delta/1.0*5 = 0.9999999999999998, less than a token.
		{"float", "varnish:without=refill-truncation:without=one-hit",
			[]int64{300 * ms, 300 * ms, 300 * ms, 300 * ms, 300 * ms, 500 * ms}, "AAAAAA", "AAAAAR"},
	} {
		r := algorithms.Rule{L: 5, W: int64(time.Second)}
		checkDeviation(t, func(spec string) string { return timeline(t, spec, r, c.times...) }, "token", c.spec, c.name, c.twin, c.product)
		// The source, every deviation on, decides as the deviation alone
		// on these timelines.
		if got := timeline(t, "varnish", r, c.times...); got != c.product {
			t.Errorf("%s: vsthrottle decides %s, want %s", c.name, got, c.product)
		}
	}
	// one-hit: 5/1s, two requests of cost 3 at 0: the twin takes 3 tokens
	// and has 2 left for the second; is_denied takes one token a call,
	// and admits both.
	r := algorithms.Rule{L: 5, W: int64(time.Second)}
	reqs := [][2]int64{{0, 3}, {0, 3}}
	checkDeviation(t, func(spec string) string { return costTimeline(t, spec, r, reqs...) }, "token", "varnish:without=refill-truncation:without=float", "one-hit", "AR", "AA")
	if got := costTimeline(t, "varnish", r, reqs...); got != "AA" {
		t.Errorf("one-hit: vsthrottle decides %s, want AA", got)
	}
}

// At 5/1s, a request every 190 ms gets nothing back between two
// admissions (0.95 of a token, truncated, the refill restarted): the five
// tokens go on the first five, then a refused request leaves the refill
// counting from the last admission, 380 ms back, 1.9 tokens: one, and
// every other request is refused. The exact bucket, losing only 0.05 of a
// token per request, admits them all.
func TestVsthrottleLosesTheFractionAtEachAdmission(t *testing.T) {
	r := algorithms.Rule{L: 5, W: int64(time.Second)}
	times := make([]int64, 12)
	for i := range times {
		times[i] = int64(i) * 190 * int64(time.Millisecond)
	}
	for spec, want := range map[string]string{"varnish": "AAAAARARARAR", "varnish:without=float": "AAAAARARARAR", "token": "AAAAAAAAAAAA"} {
		if got := timeline(t, spec, r, times...); got != want {
			t.Errorf("%s: %s, want %s", spec, got, want)
		}
	}
}

// With one-hit off, a request of cost c is c calls at one instant, all
// admitted or none: with two tokens left a request of cost 3 is refused
// and takes nothing.
func TestVsthrottleCost(t *testing.T) {
	r := algorithms.Rule{L: 5, W: int64(time.Second)}
	for _, spec := range []string{"varnish:without=one-hit", "varnish:without=float:without=one-hit", "varnish:without=refill-truncation:without=one-hit"} {
		if got := costTimeline(t, spec, r, [2]int64{0, 3}, [2]int64{0, 3}, [2]int64{0, 2}, [2]int64{0, 1}, [2]int64{0, 6}); got != "ARARR" {
			t.Errorf("%s: %s, want ARARR", spec, got)
		}
	}
}

// The period is the double VCL's compiler makes of W: whole seconds
// exactly, else W's milliseconds with three decimals times 0.001, which
// for 9 ms is 0.009000000000000001, not the double nearest 0.009.
func TestVCLDuration(t *testing.T) {
	ms, us := int64(time.Millisecond), int64(time.Microsecond)
	for _, c := range []struct {
		w       int64
		literal string
		period  float64
	}{
		{int64(time.Second), "1s", 1},
		{int64(time.Hour), "3600s", 3600},
		{1500 * ms, "1500.000ms", 1.5},
		{9 * ms, "9.000ms", 0.009000000000000001},
		{250 * us, "0.250ms", 0.00025},
	} {
		lit, p, err := products.VCLDuration(c.w)
		if err != nil || lit != c.literal || p != c.period {
			t.Errorf("%s: %q %v %v; want %q %v", algorithms.FormatWindow(c.w), lit, p, err, c.literal, c.period)
		}
	}
	for _, w := range []int64{0, -1, int64(time.Second) + 3, 1500} {
		if _, _, err := products.VCLDuration(w); err == nil {
			t.Errorf("%d ns: no error", w)
		}
	}
}

func TestVsthrottleSpecs(t *testing.T) {
	r := algorithms.Rule{L: 5, W: int64(time.Second)}
	l, err := algorithms.New("varnish", r)
	if err != nil {
		t.Fatal(err)
	}
	p := l.(algorithms.Product)
	if p.Name() != "varnish" || p.Twin() != "token" || l.CountsRejected() || !l.FixedSize() || l.Bytes(0) != 16 {
		t.Errorf("name %q twin %q counts refused %v fixed %v bytes %d", p.Name(), p.Twin(), l.CountsRejected(), l.FixedSize(), l.Bytes(0))
	}
	for _, spec := range []string{"varnish:", "varnish:B=3", "varnish:without=clock"} {
		if _, err := algorithms.New(spec, r); err == nil {
			t.Errorf("New(%q) accepted", spec)
		}
	}
	for _, bad := range []algorithms.Rule{{L: 5, W: int64(time.Second) + 3}, {L: 1_000_000_000_000_000, W: int64(time.Second)}} {
		if _, err := algorithms.New("varnish", bad); err == nil || !strings.Contains(err.Error(), "varnish") {
			t.Errorf("%v: %v, want an error naming vsthrottle", bad, err)
		}
	}
}

// Idle holds exactly when the next request decides and stores as on a new
// bucket: a replay that releases idle keys decides as one that never
// does, with each deviation on or off.
func TestVsthrottleIdleIsFresh(t *testing.T) {
	r := algorithms.Rule{L: 4, W: int64(time.Second)}
	rng := rand.New(rand.NewPCG(4, 7))
	for _, spec := range []string{"varnish", "varnish:without=float", "varnish:without=refill-truncation", "varnish:without=refill-truncation:without=float", "varnish:without=one-hit"} {
		kept, freed := newLimiter(t, spec, r), newLimiter(t, spec, r)
		rel := freed.(algorithms.Releaser)
		now, released := int64(0), 0
		for i := range 20000 {
			now += rng.Int64N(int64(600 * time.Millisecond))
			cost := 1 + rng.Int64N(2)
			if rel.Idle(0, now) {
				rel.Release(0)
				released++
			}
			a, b := kept.Decide(0, now, cost), freed.Decide(0, now, cost)
			if a != b {
				t.Fatalf("%s: request %d at %d: kept %v, released %v", spec, i, now, a, b)
			}
			if a {
				kept.Record(0, now, cost)
				freed.Record(0, now, cost)
			}
		}
		if released == 0 {
			t.Errorf("%s: never idle", spec)
		}
	}
}

func newLimiter(t *testing.T, spec string, r algorithms.Rule) algorithms.Limiter {
	t.Helper()
	l, err := algorithms.New(spec, r)
	if err != nil {
		t.Fatal(err)
	}
	l.Grow(1)
	return l
}

// With ban=D (is_denied's block) and every deviation off, vsthrottle
// decides as its twin, the token bucket behind a refusal cache of D.
func TestVsthrottleBanWithoutDeviationsIsTheRefusalCache(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 2))
	for _, r := range []algorithms.Rule{{L: 5, W: int64(time.Second)}, {L: 10, W: int64(time.Minute)}} {
		l, err := algorithms.New("varnish:ban=2s", r)
		if err != nil {
			t.Fatal(err)
		}
		p := l.(algorithms.Product)
		if p.Twin() != "token:block=2s" || len(p.Deviations()) != 4 || l.Bytes(0) != 24 {
			t.Fatalf("twin %q, deviations %v, bytes %d", p.Twin(), p.Deviations(), l.Bytes(0))
		}
		sameDecisions(t, p.Twin(), withoutAll(p), r, poissonish(rng, r, 20, 20000), false)
	}
	for _, spec := range []string{"varnish:ban=", "varnish:ban=0s", "varnish:ban=-1s", "varnish:ban=3ns", "varnish:bann=1s"} {
		if _, err := algorithms.New(spec, algorithms.Rule{L: 5, W: int64(time.Second)}); err == nil {
			t.Errorf("New(%q) accepted", spec)
		}
	}
	if l, err := algorithms.New("varnish:ban=1500ms:without=blocked-takes", algorithms.Rule{L: 5, W: int64(time.Second)}); err != nil || l.Name() != "varnish:ban=1500ms:without=blocked-takes" {
		t.Errorf("name %v, %v", l, err)
	}
}

// 5/1s, ban=500ms: five requests at 0 take every token; at 100 ms the
// bucket has half a token, so the request is refused and bans the key till
// 600 ms. At 300 ms the ban refuses; vsthrottle still refills (1.5 tokens
// on the exact bucket) and takes one, where the twin's refusal cache
// leaves the bucket alone. At 600 ms the ban is over: the twin has 3
// tokens and admits three, the exact bucket behind vsthrottle's ban 2 (0.5
// + 1.5), and it refuses the third, which bans the key again. The source,
// every deviation on, has 1 token back at 300 ms (1.5 truncated) and 1 at
// 600 ms (300 ms from the ban's call, which restarted the refill).
func TestVsthrottleBlockedTakesAloneChangesADecision(t *testing.T) {
	ms := int64(time.Millisecond)
	r := algorithms.Rule{L: 5, W: int64(time.Second)}
	times := []int64{0, 0, 0, 0, 0, 100 * ms, 300 * ms, 600 * ms, 600 * ms, 600 * ms}
	for spec, want := range map[string]string{
		"token:block=500ms": "AAAAARRAAA",
		"varnish:ban=500ms:without=refill-truncation:without=float":                       "AAAAARRAAR",
		"varnish:ban=500ms:without=refill-truncation:without=float:without=blocked-takes": "AAAAARRAAA",
		"varnish:ban=500ms": "AAAAARRARR",
	} {
		if got := timeline(t, spec, r, times...); got != want {
			t.Errorf("%s: %s, want %s", spec, got, want)
		}
	}
}
