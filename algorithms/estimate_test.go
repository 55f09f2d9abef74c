package algorithms_test

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"ratebench/algorithms"
)

// The estimate a window algorithm reports is the exact rational it decides
// on: after Decide, admit iff estimate + cost <= L (counter-lt: estimate <
// L), on every request of traces that linger on window edges.
func TestEstimateIsWhatDecides(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, r := range modelRules {
		for _, start := range []int64{0, 1_700_000_000_123_456_789} {
			trace := edgeTrace(rng, r, 3, 400, start)
			for _, spec := range []string{"log", "counter", "counter-lt", "counter-floor", "fixed", "buckets:1", "buckets:3", "buckets:7"} {
				lim, err := algorithms.New(spec, r)
				if err != nil {
					t.Fatal(err)
				}
				est := lim.(algorithms.Estimator)
				lim.Grow(3)
				for i, q := range trace {
					admit := lim.Decide(int32(q.Key), q.T, q.Cost)
					e := est.Estimate(int32(q.Key), q.T)
					if e.Den <= 0 || e.Frac < 0 || e.Frac >= e.Den || (spec == "counter-floor" || spec == "fixed" || spec == "log") && e.Frac != 0 {
						t.Fatalf("%s %v: request %d: estimate %+v is not Whole + Frac/Den with 0 <= Frac < Den", spec, r, i, e)
					}
					v := new(big.Rat).SetFrac(new(big.Int).SetUint64(e.Whole), big.NewInt(1))
					v.Add(v, big.NewRat(e.Frac, e.Den))
					want := v.Cmp(rat(r.L-q.Cost)) <= 0
					if spec == "counter-lt" {
						want = v.Cmp(rat(r.L)) < 0
					}
					if admit != want {
						t.Fatalf("%s %v: request %d %+v: admit %v, estimate %s", spec, r, i, q, admit, v.FloatString(6))
					}
					if admit || i%3 == 0 { // some rejected requests counted too
						lim.Record(int32(q.Key), q.T, q.Cost)
					}
				}
			}
		}
	}
}
