package summary

import (
	"math/rand/v2"
	"testing"

	"ratebench/algorithms"
)

// BenchmarkRateErrors adds the errors a counter's estimates make (a
// fraction over its window, den W) and those of an integer estimate (a
// fixed window's, a bucket's), against exact counts around L = 100.
func BenchmarkRateErrors(b *testing.B) {
	const w = 60_000_000_000 // 1m in ns: the counter's denominator
	rng := rand.New(rand.NewPCG(1, 2))
	type sample struct {
		est   algorithms.Rational
		exact int64
	}
	for _, c := range []struct {
		name string
		den  uint64
	}{{"fraction", w}, {"integer", 1}} {
		samples := make([]sample, 4096)
		for i := range samples {
			exact := 50 + rng.Int64N(100)
			est := algorithms.Rational{Whole: uint64(exact + rng.Int64N(21) - 10), Den: int64(c.den)}
			if c.den > 1 {
				est.Frac = rng.Int64N(int64(c.den))
			}
			samples[i] = sample{est, exact}
		}
		b.Run(c.name, func(b *testing.B) {
			a := NewRateErrors(100)
			for i := 0; b.Loop(); i++ {
				s := samples[i&4095]
				a.Add(s.est, s.exact)
			}
		})
	}
}
