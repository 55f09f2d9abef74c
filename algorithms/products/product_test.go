package products_test

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"ratebench/algorithms"
)

// productRules are rules that every product can express with its default
// parameters or refuses (whole seconds and minutes, rates in whole
// requests per second or minute).
var productRules = []algorithms.Rule{
	{L: 10, W: int64(time.Minute)},
	{L: 3, W: int64(time.Second)},
	{L: 60, W: int64(time.Minute)},
	{L: 100, W: int64(time.Second)},
}

// narrowProducts are the products whose settings cannot express every
// rule of productRules, and refuse those: AWS WAF's evaluation window is
// 1, 2, 5 or 10 minutes and its limit at least 10, a Cloudflare rule's
// period 10 s, 1, 2, 5 or 10 minutes or an hour (both take 10/1m and
// 60/1m).
var narrowProducts = []string{"aws-waf", "cloudflare-waf"}

// With every deviation off, a product decides as its twin, request by
// request: the deviations are all that sets it apart.
func TestProductsWithoutDeviationsDecideAsTheirTwins(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 1))
	tested := map[string]bool{}
	for _, r := range productRules {
		for _, p := range catalogueProducts(t, r, narrowProducts...) {
			if p.Twin() == "" {
				t.Errorf("%s under %s: no twin with its default parameters", p.Name(), r)
				continue
			}
			tested[p.Name()] = true
			trace := poissonish(rng, r, 20, 20000)
			sameDecisions(t, p.Twin(), withoutAll(p), r, trace, false)
		}
	}
	for _, name := range append([]string{"nginx"}, narrowProducts...) {
		if !tested[name] {
			t.Errorf("%s not tested (products: %v)", name, tested)
		}
	}
}

// A product's spec with deviations off reads back as given, each off once.
func TestProductWithoutRoundTrips(t *testing.T) {
	r := algorithms.Rule{L: 10, W: int64(time.Minute)}
	for _, p := range catalogueProducts(t, r) {
		for _, d := range p.Deviations() {
			spec := p.Name() + ":without=" + d.Name
			l, err := algorithms.New(spec, r)
			if err != nil {
				t.Fatalf("%s: %v", spec, err)
			}
			if l.Name() != spec || !l.(algorithms.Product).Off(d.Name) {
				t.Errorf("%s: name %q, off %v", spec, l.Name(), l.(algorithms.Product).Off(d.Name))
			}
			if d.About == "" || strings.ContainsAny(d.Name, " :,=") {
				t.Errorf("%s: deviation %+v", p.Name(), d)
			}
		}
		if _, err := algorithms.New(p.Name()+":without=nonesuch", r); err == nil || !strings.Contains(err.Error(), "known:") {
			t.Errorf("%s: an unknown deviation: %v", p.Name(), err)
		}
	}
}

// timeline replays requests of cost 1 at the given times (one key) through
// spec, and returns the decisions as a string of A and R (see costTimeline).
func timeline(t *testing.T, spec string, r algorithms.Rule, times ...int64) string {
	t.Helper()
	reqs := make([][2]int64, len(times))
	for i, at := range times {
		reqs[i] = [2]int64{at, 1}
	}
	return costTimeline(t, spec, r, reqs...)
}

// Each of nginx's deviations, alone, changes a decision of its twin. The
// expected values are worked out from limit_req's arithmetic (see Nginx).
func TestNginxEachDeviationAloneChangesADecision(t *testing.T) {
	ms := int64(time.Millisecond)
	for _, c := range []struct {
		name, rule, spec string
		times            []int64
		twin, product    string
	}{
		// 10r/s, burst 0: the second request comes 99.1 ms after the
		// first, too early for the exact bucket (0.991 drained), but
		// 100 ms later on nginx's clock (0.9 ms floors to 0).
		{"clock", "10/1s", "nginx:burst=0:without=rate-truncation:without=drain-truncation:without=one-hit",
			[]int64{9 * ms / 10, 100 * ms}, "AR", "AA"},
		// 10r/m is 166 milli-requests per second, not 166.67: after 6 s
		// the exact bucket has drained one request, nginx 996/1000.
		{"rate-truncation", "10/1m", "nginx:burst=0:without=clock:without=drain-truncation:without=one-hit",
			[]int64{0, 6000 * ms}, "AA", "AR"},
		// 3r/s, burst 1, on a nanosecond clock: 1 ns drains nothing
		// (0.003 milli-requests truncated), and 333333333 ns later
		// 999.999999 truncates to 999, one short of the exact bucket.
		{"drain-truncation", "3/1s", "nginx:burst=1:without=clock:without=rate-truncation:without=one-hit",
			[]int64{0, 1, 333_333_334}, "AAA", "AAR"},
	} {
		r, err := algorithms.ParseRule(c.rule)
		if err != nil {
			t.Fatal(err)
		}
		l, err := algorithms.New(c.spec, r)
		if err != nil {
			t.Fatal(err)
		}
		twin := l.(algorithms.Product).Twin()
		checkDeviation(t, func(spec string) string { return timeline(t, spec, r, c.times...) }, twin, c.spec, c.name, c.twin, c.product)
	}
	// one-hit: under 2/1s (2r/s, burst 1, the twin token), a request of
	// cost 2, then one of cost 1 a millisecond later: the twin's bucket of
	// 2 has 0.002 of a token back and refuses it; limit_req counted the
	// first as one request (excess 0), and at 1 ms excess' = 0 - 2*1/1000
	// + 1000 = 1000 <= burst*1000 admits it.
	r := mustRule(t, "2/1s")
	reqs := [][2]int64{{0, 2}, {ms, 1}}
	spec := "nginx:without=clock:without=rate-truncation:without=drain-truncation"
	checkDeviation(t, func(spec string) string { return costTimeline(t, spec, r, reqs...) }, "token", spec, "one-hit", "AR", "AA")
	if got := costTimeline(t, "nginx", r, reqs...); got != "AA" {
		t.Errorf("one-hit: nginx decides %s, want AA", got)
	}
}
