package generators

import "math/rand/v2"

// offsetTime returns base + off, off in ns, or never when that does not
// fit in an int64 (or off is NaN). Sources keep their time as a float
// offset from Start rather than as an absolute float: near 2024 in ns a
// float64 has a 256 ns step, from Start it keeps sub-ns gaps for years.
func offsetTime(base int64, off float64) int64 {
	if !(off < float64(never-base)) {
		return never
	}
	return base + int64(off)
}

// expGap is an exponential gap of the given rate drawn from rng: exactly
// what gonum's distuv.Exponential{Rate: rate, Src: rng}.Rand() returns
// (it draws rand.New(rng).ExpFloat64(), which takes the same Uint64s of
// rng), without its *rand.Rand wrapper and interface calls.
func expGap(rng *rand.Rand, rate float64) float64 { return rng.ExpFloat64() / rate }

// expArrivals is a Poisson process after base: exponential gaps, in ns.
type expArrivals struct {
	rng  *rand.Rand
	rate float64 // per ns
	base int64
	off  float64 // ns since base of the next arrival
}

// newExpArrivals returns the Poisson process of rate per second that starts
// at base (its first arrival is one gap after base), drawing from rng.
func newExpArrivals(base int64, rate float64, rng *rand.Rand) expArrivals {
	s := expArrivals{rng: rng, rate: rate / 1e9, base: base}
	s.off = expGap(rng, s.rate)
	return s
}

func (s *expArrivals) next() int64 {
	t := offsetTime(s.base, s.off)
	s.off += expGap(s.rng, s.rate)
	return t
}
