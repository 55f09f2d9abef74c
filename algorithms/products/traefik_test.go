package products_test

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"golang.org/x/time/rate"

	"ratebench/algorithms"
	"ratebench/algorithms/products"
)

// Each of Traefik's deviations, alone, changes a decision of its twin, the
// token bucket of capacity burst, on a timeline worked out from
// rate_limiter.go, in_memory_limiter.go and ttlmap.go; turned off, the
// timeline is the twin's again.
func TestTraefikEachDeviationAloneChangesADecision(t *testing.T) {
	ms, s := int64(time.Millisecond), int64(time.Second)
	only := func(spec, dev string) string {
		for _, d := range []string{"maxdelay", "float", "ttl", "cost"} {
			if d != dev {
				spec += ":without=" + d
			}
		}
		return spec
	}
	for _, c := range []struct {
		name, rule, spec string
		reqs             [][2]int64
		twin, product    string
	}{
		// 10/1s, burst 1: maxDelay = 1s/(10*2) = 50 ms. At 60 ms the
		// bucket holds 0.6: the wait for the token, 40 ms, is served;
		// the bucket is then 0.4 in debt, and at 61 ms the wait is
		// 139 ms.
		{"maxdelay", "10/1s", "traefik:burst=1",
			[][2]int64{{0, 1}, {60 * ms, 1}, {61 * ms, 1}}, "ARR", "AAR"},
		// 3/1s, burst 1: 333,333,333 ns after the first request the
		// bucket holds 0.999999999, short of one; in float64 the
		// shortfall is about 1e-9 tokens, whose wait, a third of a
		// nanosecond, truncates to none.
		{"float", "3/1s", "traefik:burst=1",
			[][2]int64{{0, 1}, {333_333_333, 1}}, "AR", "AA"},
		// 1/1s, burst 10: ttl 2 s. Ten requests at 0.9 s empty the
		// bucket, which expires at Unix second 0 + 2: at 2.0 s, 1.1 s
		// later, a new bucket holds 10; the twin's holds 1.1.
		{"ttl", "1/1s", "traefik:burst=10",
			[][2]int64{{900 * ms, 1}, {900 * ms, 1}, {900 * ms, 1}, {900 * ms, 1}, {900 * ms, 1}, {900 * ms, 1}, {900 * ms, 1},
				{900 * ms, 1}, {900 * ms, 1}, {900 * ms, 1}, {2 * s, 1}, {2 * s, 1}, {2 * s, 1}},
			"AAAAAAAAAAARR", "AAAAAAAAAAAAA"},
		// 10/1m, burst 10: a request of cost 10 takes one token, so a
		// second one finds nine.
		{"cost", "10/1m", "traefik",
			[][2]int64{{0, 10}, {s, 1}}, "AR", "AA"},
	} {
		r, err := algorithms.ParseRule(c.rule)
		if err != nil {
			t.Fatal(err)
		}
		spec := only(c.spec, c.name)
		l, err := algorithms.New(spec, r)
		if err != nil {
			t.Fatal(err)
		}
		twin := l.(algorithms.Product).Twin()
		checkDeviation(t, func(spec string) string { return costTimeline(t, spec, r, c.reqs...) }, twin, spec, c.name, c.twin, c.product)
	}
}

// maxDelay and the TTL as rate_limiter.go computes them: the rate
// truncated to whole requests per second in maxDelay (2.5 r/s waits up to
// 250 ms, not 200), 500 ms and 1 + int(1/rate) s below 1 r/s.
func TestTraefikMaxDelayAndTTL(t *testing.T) {
	for _, c := range []struct {
		rule     string
		maxDelay time.Duration
		ttl      int64
	}{
		{"10/1s", 50 * time.Millisecond, 2},
		{"3/1s", 166_666_666, 2},
		{"25/10s", 250 * time.Millisecond, 2},
		{"1/1s", 500 * time.Millisecond, 2},
		{"10/1m", 500 * time.Millisecond, 7},
		{"1/1h", 500 * time.Millisecond, 3601},
		{"100/1m", 500 * time.Millisecond, 2},
		{"60/1m", 500 * time.Millisecond, 2},
		{"59/1m", 500 * time.Millisecond, 2},
		{"1/3s", 500 * time.Millisecond, 4},
	} {
		r, err := algorithms.ParseRule(c.rule)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := products.NewTraefik(r, "")
		if err != nil {
			t.Fatal(err)
		}
		rtl, md, ttl := traefikSettings(r)
		if tr.MaxDelay() != c.maxDelay || md != c.maxDelay {
			t.Errorf("%s: maxDelay %v (the source's formula: %v), want %v", c.rule, tr.MaxDelay(), md, c.maxDelay)
		}
		if tr.TTL() != c.ttl || int64(ttl) != c.ttl {
			t.Errorf("%s: ttl %d (the source's formula: %d), want %d", c.rule, tr.TTL(), ttl, c.ttl)
		}
		if rtl <= 0 {
			t.Errorf("%s: rate %v", c.rule, rtl)
		}
	}
}

// traefikSettings is rate_limiter.go:64-101 for average L, period W: the
// rate in requests per second, maxDelay and the TTL in seconds.
func traefikSettings(r algorithms.Rule) (rate.Limit, time.Duration, int) {
	average, period := r.L, time.Duration(r.W)
	rtl := float64(average*int64(time.Second)) / float64(period)
	var maxDelay time.Duration
	if rtl < 1 {
		maxDelay = 500 * time.Millisecond
	} else {
		maxDelay = time.Second / (time.Duration(rtl) * 2)
	}
	ttl := 1
	if rtl >= 1 {
		ttl++
	} else if rtl > 0 {
		ttl += int(1 / rtl)
	}
	return rate.Limit(rtl), maxDelay, ttl
}

// The spec: burst=N (from 1) and maxdelay=D (from 0), in the name when
// they are not the defaults; anything else is refused, naming traefik.
func TestTraefikSpecs(t *testing.T) {
	r, _ := algorithms.ParseRule("10/1m")
	checkSpecs(t, r, map[string]string{
		"traefik":                              "traefik",
		"traefik:burst=10":                     "traefik",
		"traefik:burst=1":                      "traefik:burst=1",
		"traefik:maxdelay=0s":                  "traefik:maxdelay=0s",
		"traefik:maxdelay=2s:burst=20":         "traefik:burst=20:maxdelay=2s",
		"traefik:burst=2:without=float":        "traefik:burst=2:without=float",
		"traefik:without=ttl:without=maxdelay": "traefik:without=maxdelay:without=ttl",
	}, []string{"traefik:", "traefik:burst=0", "traefik:burst=-1", "traefik:burst=x", "traefik:maxdelay=-1s", "traefik:maxdelay=x", "traefik:period=1s"}, "traefik")
	if _, err := algorithms.New("traefik", algorithms.Rule{L: 1 << 40, W: int64(time.Second)}); err == nil {
		t.Error("a rule whose average*1e9 overflows is accepted")
	}
	l, _ := algorithms.New("traefik:burst=3", r)
	if tw := l.(algorithms.Product).Twin(); tw != "token:B=3" {
		t.Errorf("traefik:burst=3's twin is %s, want token:B=3", tw)
	}
	// maxdelay=D sets the wait served: 10/1s, burst 1, a request at
	// 60 ms waits 40 ms for its token.
	r, _ = algorithms.ParseRule("10/1s")
	for spec, want := range map[string]string{"traefik:burst=1:maxdelay=39ms": "AR", "traefik:burst=1:maxdelay=40ms": "AA"} {
		if got := timeline(t, spec, r, 0, 60*int64(time.Millisecond)); got != want {
			t.Errorf("%s decides %s, want %s", spec, got, want)
		}
	}
}

// A source whose bucket is full again is idle, and released it decides as
// a new one; a source in debt is not.
func TestTraefikIdle(t *testing.T) {
	r, _ := algorithms.ParseRule("10/1s")
	for _, spec := range []string{"traefik", "traefik:without=float"} {
		l, _ := algorithms.New(spec, r)
		l.Grow(1)
		rel := l.(algorithms.Releaser)
		if !rel.Idle(0, 0) {
			t.Errorf("%s: a new source is not idle", spec)
		}
		for range 10 {
			l.Decide(0, 0, 1)
			l.Record(0, 0, 1)
		}
		if rel.Idle(0, int64(time.Second)-1) {
			t.Errorf("%s: a source 1 ns short of refilled is idle", spec)
		}
		if !rel.Idle(0, int64(time.Second)) {
			t.Errorf("%s: a refilled source is not idle", spec)
		}
	}
}

// The model decides as golang.org/x/time/rate driven by the middleware's
// own calls, request by request. The Traefik module cannot be built here
// on its own (its ratelimiter package imports Traefik's configuration,
// observability and provider packages, and the module's replace
// directives), so the test reproduces inMemoryRateLimiter.Allow and
// ServeHTTP's test (in_memory_limiter.go:45-70, rate_limiter.go:158-167)
// and ttlmap's expiry in whole Unix seconds (ttlmap.go:37-96): the bucket
// is the real x/time/rate, the wrapper is this reproduction. In a
// testing/synctest bubble time.Now is the bubble's clock, which sleeping
// moves to each request's instant; Reserve, Delay and Cancel read it
// there. Costs go to the model only: the middleware takes one token.
func TestTraefikMatchesXRate(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 2))
	var delayed, refused, renewed int
	for _, c := range []struct {
		rule, arg string
		keys      int
		gaps      []int64 // one key's requests this far apart, in turn, instead of a random trace
	}{
		{"10/1s", "", 6, nil},
		{"3/1s", "burst=1", 4, nil},
		{"1/1s", "burst=5", 4, nil},
		{"25/10s", "", 5, nil},
		{"10/1m", "burst=3", 6, nil},
		{"100/1m", "burst=10", 3, nil},
		{"7/7s", "", 5, nil},
		// Waits a fraction of a nanosecond beyond maxDelay (166,666,666
		// ns at 3 r/s), which x/time/rate truncates to maxDelay, and
		// gaps a nanosecond short of a token.
		{"3/1s", "burst=1", 1, []int64{166_666_667, 333_333_333, 1, 166_666_667, 166_666_667, 500_000_000}},
	} {
		r, err := algorithms.ParseRule(c.rule)
		if err != nil {
			t.Fatal(err)
		}
		trace := poissonish(rng, r, c.keys, 3000)
		// Quiet spells, so that sources expire with some tokens spent.
		for i := range trace {
			trace[i].T += int64(i/300) * 3 * r.W
		}
		if c.gaps != nil {
			trace = make([]req, 3000)
			for i := 1; i < len(trace); i++ {
				trace[i] = req{T: trace[i-1].T + c.gaps[i%len(c.gaps)], Cost: 1}
			}
		}
		slices.SortStableFunc(trace, func(a, b req) int { return cmp.Compare(a.T, b.T) })
		spec := "traefik"
		if c.arg != "" {
			spec += ":" + c.arg
		}
		synctest.Test(t, func(t *testing.T) {
			model, err := algorithms.New(spec, r)
			if err != nil {
				t.Fatal(err)
			}
			model.Grow(c.keys)
			burst := int(model.(*products.Traefik).Burst())
			rtl, maxDelay, ttl := traefikSettings(r)
			type entry struct {
				lim    *rate.Limiter
				expiry int64
			}
			buckets := map[string]*entry{}
			start := time.Now()
			admitted := 0
			for i, q := range trace {
				at := start.Add(time.Duration(q.T - trace[0].T))
				time.Sleep(time.Until(at))
				source := fmt.Sprint("k", q.Key)
				// inMemoryRateLimiter.Allow: Get (an expired entry is
				// removed), NewLimiter if absent, Set (expiry refreshed),
				// Reserve, Delay, Cancel beyond maxDelay.
				e, ok := buckets[source]
				if ok && e.expiry <= time.Now().Unix() {
					delete(buckets, source)
					ok = false
					if e.lim.Tokens() < float64(burst) {
						renewed++
					}
				}
				if !ok {
					e = &entry{lim: rate.NewLimiter(rtl, burst)}
					buckets[source] = e
				}
				e.expiry = time.Now().Add(time.Duration(ttl) * time.Second).Unix()
				res := e.lim.Reserve()
				if !res.OK() {
					t.Fatalf("%s: a reservation of one token refused", spec)
				}
				delay := res.Delay()
				if delay > maxDelay {
					res.Cancel()
				}
				real := delay <= maxDelay // ServeHTTP: 429 beyond maxDelay, else served after delay
				switch {
				case !real:
					refused++
				case delay > 0:
					delayed++
				}
				tm := at.UnixNano()
				got := model.Decide(int32(q.Key), tm, q.Cost)
				if got {
					model.Record(int32(q.Key), tm, q.Cost)
					admitted++
				}
				if got != real {
					t.Fatalf("%s under %s, request %d (key %d, %s after the start): the model admits %v, the middleware %v (delay %v, maxDelay %v)", spec, c.rule, i, q.Key, time.Duration(q.T-trace[0].T), got, real, delay, maxDelay)
				}
			}
			if admitted == 0 || admitted == len(trace) {
				t.Fatalf("%s under %s: %d of %d admitted: the trace does not exercise the limit", spec, c.rule, admitted, len(trace))
			}
		})
	}
	if delayed == 0 || refused == 0 || renewed == 0 {
		t.Errorf("the traces served %d requests late, refused %d and renewed %d partly spent buckets: each must happen", delayed, refused, renewed)
	}
	t.Logf("%d requests served late, %d refused, %d partly spent buckets renewed", delayed, refused, renewed)
}

// traefik:sources=N keeps ttlmap's capacity. Alone, its eviction changes a
// decision: under 1/1s with burst 5 and a map of 2 entries, source 0
// spends its 5 tokens at 0.95 s (expiry Unix second 2), source 1 comes at
// 1.0 s (expiry 3), and source 2 at 1.05 s finds the map full and evicts
// the nearest expiry, source 0's, whose next request at 1.1 s gets a new,
// full bucket; the twin's bucket holds 0.15. Turned off, or without the
// parameter, the timeline is the twin's. With every deviation off it
// decides as the twin on a trace of 40 sources.
func TestTraefikSourcesEviction(t *testing.T) {
	ms := int64(time.Millisecond)
	r, _ := algorithms.ParseRule("1/1s")
	trace := []req{{Key: 0, T: 950 * ms, Cost: 1}, {Key: 0, T: 950 * ms, Cost: 1}, {Key: 0, T: 950 * ms, Cost: 1}, {Key: 0, T: 950 * ms, Cost: 1}, {Key: 0, T: 950 * ms, Cost: 1},
		{Key: 1, T: 1000 * ms, Cost: 1}, {Key: 2, T: 1050 * ms, Cost: 1}, {Key: 0, T: 1100 * ms, Cost: 1}}
	base := "traefik:burst=5:sources=2:without=maxdelay:without=float:without=ttl:without=cost"
	str := func(d []bool) string {
		var b strings.Builder
		for _, a := range d {
			if a {
				b.WriteByte('A')
			} else {
				b.WriteByte('R')
			}
		}
		return b.String()
	}
	for spec, want := range map[string]string{
		"token:B=5":                 "AAAAAAAR",
		base:                        "AAAAAAAA",
		base + ":without=eviction":  "AAAAAAAR",
		"traefik:burst=5:sources=3": "AAAAAAAR", // room for three: nothing evicted (and 1.1 s is before second 2)
		"traefik:burst=5:sources=2:without=maxdelay": "AAAAAAAA",
	} {
		if got := str(decisions(t, spec, r, trace, false)); got != want {
			t.Errorf("%s decides %s, want %s", spec, got, want)
		}
	}
	for spec, couples := range map[string]bool{"traefik": false, "traefik:sources": true, "traefik:sources=2:without=eviction": false} {
		l, err := algorithms.New(spec, r)
		if err != nil {
			t.Fatal(err)
		}
		if algorithms.CouplesKeys(l) != couples {
			t.Errorf("%s couples keys: %v, want %v", spec, !couples, couples)
		}
		want := 4
		if strings.Contains(spec, "sources") {
			want = 5
		}
		if n := len(l.(algorithms.Product).Deviations()); n != want {
			t.Errorf("%s has %d deviations", spec, n)
		}
	}
	for spec, want := range map[string]string{"traefik:sources": "traefik:sources", "traefik:sources=65536": "traefik:sources", "traefik:sources=7:burst=2": "traefik:burst=2:sources=7"} {
		if l, err := algorithms.New(spec, r); err != nil || l.Name() != want {
			t.Errorf("%s: %v, want the name %s", spec, err, want)
		}
	}
	for _, spec := range []string{"traefik:sources=0", "traefik:sources=x", "traefik:sources="} {
		if _, err := algorithms.New(spec, r); err == nil {
			t.Errorf("%s accepted", spec)
		}
	}
	rng := rand.New(rand.NewPCG(43, 2))
	for _, rule := range []string{"10/1s", "10/1m"} {
		r, _ := algorithms.ParseRule(rule)
		tr := poissonish(rng, r, 40, 20000)
		slices.SortStableFunc(tr, func(a, b req) int { return cmp.Compare(a.T, b.T) })
		sameDecisions(t, "token", "traefik:sources=5:without=maxdelay:without=float:without=ttl:without=cost:without=eviction", r, tr, false)
		// and the evictions, on, do change decisions there
		if slices.Equal(decisions(t, "token", r, tr, false), decisions(t, "traefik:sources=5:without=maxdelay:without=float:without=ttl:without=cost", r, tr, false)) {
			t.Errorf("%s: a map of 5 entries for 40 sources changes no decision", rule)
		}
	}
}
