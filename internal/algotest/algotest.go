// Package algotest holds what the tests of the textbook algorithms
// (package algorithms) and of the deployed products (package products)
// share: fixed timelines on one key, generated traces, replays that
// compare two algorithms request by request, and the catalogue's
// products.
package algotest

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"ratebench/algorithms"
)

// Step is one request of a fixed timeline on one key, and the decision
// expected on it.
type Step struct {
	T, Cost int64
	Admit   bool
}

// RunSteps runs a fixed timeline on key 0 of lim, recording what is
// admitted, and fails at the first wrong decision.
func RunSteps(t testing.TB, lim algorithms.Limiter, steps []Step) {
	t.Helper()
	lim.Grow(1)
	for i, s := range steps {
		if got := lim.Decide(0, s.T, s.Cost); got != s.Admit {
			t.Fatalf("%s step %d (t=%d, cost %d): admit=%v, want %v", lim.Name(), i, s.T, s.Cost, got, s.Admit)
		} else if got {
			lim.Record(0, s.T, s.Cost)
		}
	}
}

// Req is one request of a test trace.
type Req struct {
	Key     int
	T, Cost int64
}

// PropertyRules are the rules the property tests replay: short and long
// windows, small and large limits, a window not a whole second.
var PropertyRules = []algorithms.Rule{
	{L: 5, W: int64(30 * time.Second)},
	{L: 100, W: int64(time.Minute)},
	{L: 7, W: int64(time.Second) + 3},
	{L: 1_000_000, W: int64(24 * time.Hour)},
}

// Poissonish returns a trace of n requests over keys with exponential gaps
// of mean W/L per key (so keys hover around their limit), some bursts of
// simultaneous requests and a few costs above 1.
func Poissonish(rng *rand.Rand, r algorithms.Rule, keys, n int) []Req {
	last := make([]int64, keys)
	for i := range last {
		last[i] = 1_700_000_000_000_000_000 + rng.Int64N(r.W)
	}
	out := make([]Req, 0, n)
	mean := float64(r.W) / float64(r.L) * 0.8
	for range n {
		k := rng.IntN(keys)
		if rng.IntN(20) != 0 {
			last[k] += int64(rng.ExpFloat64() * mean)
		}
		cost := int64(1)
		if rng.IntN(10) == 0 {
			cost = 1 + rng.Int64N(max(3, r.L/40))
		}
		out = append(out, Req{Key: k, T: last[k], Cost: cost})
	}
	return out
}

// EdgeTrace returns a random trace over keys that lingers on the edges of
// rule r's windows (and of N sub-windows): same instants, gaps of exactly W,
// W/N boundaries, gaps of several windows, costs from 1 to above L.
func EdgeTrace(rng *rand.Rand, r algorithms.Rule, keys, n int, start int64) []Req {
	last := make([]int64, keys)
	for i := range last {
		last[i] = start
	}
	out := make([]Req, 0, n)
	for range n {
		k := rng.IntN(keys)
		var gap int64
		switch rng.IntN(10) {
		case 0, 1:
			gap = 0
		case 2:
			gap = r.W
		case 3:
			gap = r.W / int64(1+rng.IntN(8)) // a sub-window width, rounded
		case 4:
			gap = r.W - last[k]%r.W // to the next window boundary
		case 5:
			gap = 1
		case 6:
			gap = r.W * int64(1+rng.IntN(3))
		default:
			gap = rng.Int64N(r.W/int64(1+r.L/4) + 1)
		}
		last[k] += gap
		cost := int64(1)
		if rng.IntN(6) == 0 {
			cost = 1 + rng.Int64N(r.L+1)
		}
		out = append(out, Req{Key: k, T: last[k], Cost: cost})
	}
	return out
}

// Decisions replays trace through spec, recording its own admits (or every
// request under countAll, where that applies), and returns each decision.
func Decisions(t testing.TB, spec string, r algorithms.Rule, trace []Req, countAll bool) []bool {
	t.Helper()
	lim, err := algorithms.New(spec, r)
	if err != nil {
		t.Fatal(err)
	}
	lim.Grow(64)
	out := make([]bool, len(trace))
	for i, q := range trace {
		out[i] = lim.Decide(int32(q.Key), q.T, q.Cost)
		if out[i] || (countAll && lim.CountsRejected()) {
			lim.Record(int32(q.Key), q.T, q.Cost)
		}
	}
	return out
}

// SameDecisions fails unless a and b decide every request of trace alike,
// and the trace both admits and refuses.
func SameDecisions(t testing.TB, a, b string, r algorithms.Rule, trace []Req, countAll bool) {
	t.Helper()
	da, db := Decisions(t, a, r, trace, countAll), Decisions(t, b, r, trace, countAll)
	admitted := 0
	for i := range da {
		if da[i] != db[i] {
			t.Fatalf("%s and %s disagree on request %d of %v: %+v", a, b, i, r, trace[i])
		}
		if da[i] {
			admitted++
		}
	}
	if admitted == 0 || admitted == len(trace) {
		t.Fatalf("%s on %v admitted %d of %d: the trace does not exercise the limit", a, r, admitted, len(trace))
	}
}

// CostTimeline replays (time, cost) pairs on one key through spec and
// returns the decisions as a string of A (admitted) and R (refused).
func CostTimeline(t testing.TB, spec string, r algorithms.Rule, reqs ...[2]int64) string {
	t.Helper()
	l, err := algorithms.New(spec, r)
	if err != nil {
		t.Fatal(err)
	}
	l.Grow(1)
	var b strings.Builder
	for _, q := range reqs {
		if l.Decide(0, q[0], q[1]) {
			l.Record(0, q[0], q[1])
			b.WriteByte('A')
		} else {
			b.WriteByte('R')
		}
	}
	return b.String()
}

// OwnTimeline is CostTimeline counting requests as the limiter itself
// does: every request when it counts every one (algorithms.CountsEvery: a
// product that counts refused requests), otherwise the admitted ones.
func OwnTimeline(t testing.TB, spec string, r algorithms.Rule, reqs ...[2]int64) string {
	t.Helper()
	l, err := algorithms.New(spec, r)
	if err != nil {
		t.Fatal(err)
	}
	l.Grow(1)
	every := algorithms.CountsEvery(l)
	var b strings.Builder
	for _, q := range reqs {
		a := l.Decide(0, q[0], q[1])
		if a || every {
			l.Record(0, q[0], q[1])
		}
		if a {
			b.WriteByte('A')
		} else {
			b.WriteByte('R')
		}
	}
	return b.String()
}

// CheckDeviation checks a deviation dev on a fixed timeline, which
// timeline replays for a spec: the twin (twinSpec) decides twin, spec (the
// product with dev on, alone or not) decides product, and spec with dev
// turned off too decides twin again.
func CheckDeviation(t testing.TB, timeline func(spec string) string, twinSpec, spec, dev, twin, product string) {
	t.Helper()
	if got := timeline(twinSpec); got != twin {
		t.Errorf("%s: the twin %s decides %s, want %s", dev, twinSpec, got, twin)
	}
	if got := timeline(spec); got != product {
		t.Errorf("%s: %s decides %s, want %s", dev, spec, got, product)
	}
	if got := timeline(spec + ":without=" + dev); got != twin {
		t.Errorf("%s off too: %s, want the twin's %s", dev, got, twin)
	}
}

// MustRule parses rule s, failing the test on an error.
func MustRule(t testing.TB, s string) algorithms.Rule {
	t.Helper()
	r, err := algorithms.ParseRule(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Products returns every product of the catalogue under rule r, with its
// default parameters; one that does not build under r fails the test,
// unless mayRefuse names it (a product whose settings cannot express r,
// as AWS WAF's windows of 1 to 10 minutes cannot 3/1s), which is then left
// out. (The catalogue's templates, such as buckets:N or
// PRODUCT:without=NAME, name no single algorithm and are passed over.) The
// products are those registered in the test's binary: its package imports
// package products.
func Products(t testing.TB, r algorithms.Rule, mayRefuse ...string) []algorithms.Product {
	t.Helper()
	var out []algorithms.Product
	for _, c := range algorithms.Catalogue() {
		name, _, _ := strings.Cut(c.Spec, "[")
		if strings.Contains(name, ":") {
			continue
		}
		l, err := algorithms.New(name, r)
		if err != nil && slices.Contains(mayRefuse, name) {
			continue
		}
		if err != nil {
			t.Fatalf("%s, an algorithm of the catalogue, does not build under %v: %v", name, r, err)
		}
		if p, ok := l.(algorithms.Product); ok {
			out = append(out, p)
		}
	}
	return out
}

// WithoutAll is p's spec with every deviation turned off.
func WithoutAll(p algorithms.Product) string {
	spec := p.Name()
	for _, d := range p.Deviations() {
		spec += ":without=" + d.Name
	}
	return spec
}
