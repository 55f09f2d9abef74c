package algorithms_test

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"ratebench/algorithms"
)

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
			out[q.Key] = append(out[q.Key], q)
		}
	}
	return out
}

// maxBurst returns the largest admitted cost any span (t-W, t] holds.
func maxBurst(adm []req, w int64) int64 {
	var best, sum int64
	lo := 0
	for _, q := range adm {
		sum += q.Cost
		for adm[lo].T <= q.T-w {
			sum -= adm[lo].Cost
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
						sum += adm[j].Cost
						span := adm[j].T - adm[i].T
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
