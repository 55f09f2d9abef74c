package algorithms_test

import (
	"math/big"
	"math/rand/v2"
	"testing"
	"time"

	"ratebench/algorithms"
)

// poissonish returns a trace of n requests over keys with exponential gaps
// of mean W/L per key (so keys hover around their limit), some bursts of
// simultaneous requests and a few costs above 1.
func poissonish(rng *rand.Rand, r algorithms.Rule, keys, n int) []req {
	last := make([]int64, keys)
	for i := range last {
		last[i] = 1_700_000_000_000_000_000 + rng.Int64N(r.W)
	}
	out := make([]req, 0, n)
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
		out = append(out, req{k, last[k], cost})
	}
	return out
}

// decisions replays trace through spec, recording its own admits (or every
// request under countAll, where that applies), and returns each decision.
func decisions(t *testing.T, spec string, r algorithms.Rule, trace []req, countAll bool) []bool {
	t.Helper()
	lim, err := algorithms.New(spec, r)
	if err != nil {
		t.Fatal(err)
	}
	lim.Grow(64)
	out := make([]bool, len(trace))
	for i, q := range trace {
		out[i] = lim.Decide(int32(q.key), q.t, q.cost)
		if out[i] || (countAll && lim.CountsRejected()) {
			lim.Record(int32(q.key), q.t, q.cost)
		}
	}
	return out
}

func sameDecisions(t *testing.T, a, b string, r algorithms.Rule, trace []req, countAll bool) {
	t.Helper()
	da, db := decisions(t, a, r, trace, countAll), decisions(t, b, r, trace, countAll)
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

var propertyRules = []algorithms.Rule{
	{L: 5, W: int64(30 * time.Second)},
	{L: 100, W: int64(time.Minute)},
	{L: 7, W: int64(time.Second) + 3},
	{L: 1_000_000, W: int64(24 * time.Hour)},
}

func TestBuckets1DecidesAsCounter(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, r := range propertyRules {
		trace := poissonish(rng, r, 20, 20000)
		sameDecisions(t, "counter", "buckets:1", r, trace, false)
		sameDecisions(t, "counter", "buckets:1", r, trace, true)
	}
}

func TestGCRADecidesAsToken(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, r := range propertyRules {
		trace := poissonish(rng, r, 20, 20000)
		sameDecisions(t, "token", "gcra", r, trace, false)
		sameDecisions(t, "token:B=3", "gcra:B=3", r, trace, false)
		sameDecisions(t, "token:B=250", "gcra:B=250", r, trace, false)
	}
}

// admittedBySpan returns, per key, the admitted requests in time order.
func admittedByKey(trace []req, d []bool) map[int][]req {
	out := map[int][]req{}
	for i, q := range trace {
		if d[i] {
			out[q.key] = append(out[q.key], q)
		}
	}
	return out
}

// maxBurst returns the largest admitted cost any span (t-W, t] holds.
func maxBurst(adm []req, w int64) int64 {
	var best, sum int64
	lo := 0
	for _, q := range adm {
		sum += q.cost
		for adm[lo].t <= q.t-w {
			sum -= adm[lo].cost
			lo++
		}
		best = max(best, sum)
	}
	return best
}

func TestBurstBounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, r := range propertyRules {
		trace := poissonish(rng, r, 10, 20000)
		for spec, bound := range map[string]int64{"log": r.L, "fixed": 2 * r.L, "counter": 2 * r.L, "buckets:4": 2 * r.L} {
			worst := int64(0)
			for _, adm := range admittedByKey(trace, decisions(t, spec, r, trace, false)) {
				worst = max(worst, maxBurst(adm, r.W))
			}
			if worst > bound {
				t.Errorf("%s on %v: burst %d above %d", spec, r, worst, bound)
			}
			if spec == "fixed" && r.L <= 100 && worst <= r.L {
				t.Errorf("fixed on %v: burst %d never exceeds L on a trace that pushes the limit", r, worst)
			}
		}
	}
}

// TestTokenSpanBound checks the token bucket's bound on every pair of admitted
// requests: the cost admitted in any closed span of length T is at most
// B + (L/W)*T, i.e. cost*W <= B*W + L*T, in exact integers.
func TestTokenSpanBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, r := range propertyRules[:3] {
		trace := poissonish(rng, r, 4, 4000)
		for _, spec := range []string{"token", "token:B=2", "gcra:B=12"} {
			lim, _ := algorithms.New(spec, r)
			b := lim.(interface{ Capacity() int64 }).Capacity()
			tight := false
			for _, adm := range admittedByKey(trace, decisions(t, spec, r, trace, false)) {
				for i := range adm {
					var sum int64
					for j := i; j < len(adm); j++ {
						sum += adm[j].cost
						span := adm[j].t - adm[i].t
						lhs := new(big.Int).Mul(big.NewInt(sum), big.NewInt(r.W))
						rhs := new(big.Int).Add(new(big.Int).Mul(big.NewInt(b), big.NewInt(r.W)), new(big.Int).Mul(big.NewInt(r.L), big.NewInt(span)))
						switch lhs.Cmp(rhs) {
						case 1:
							t.Fatalf("%s on %v: %d admitted in a span of %dns, above B + L*T/W", spec, r, sum, span)
						case 0:
							tight = true
						}
					}
				}
			}
			if !tight && spec == "token:B=2" {
				t.Errorf("%s on %v: the bound is never reached; the trace does not test it", spec, r)
			}
		}
	}
}
