package generators

import "gonum.org/v1/gonum/stat/distuv"

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

// expArrivals is a Poisson process after base: exponential gaps, in ns.
type expArrivals struct {
	gap  distuv.Exponential // Rate per ns
	base int64
	off  float64 // ns since base of the next arrival
}

// newExpArrivals returns the Poisson process of rate per second that starts
// at base (its first arrival is one gap after base).
func newExpArrivals(base int64, rate float64, src distuv.Exponential) expArrivals {
	src.Rate = rate / 1e9
	s := expArrivals{gap: src, base: base}
	s.off = s.gap.Rand()
	return s
}

func (s *expArrivals) next() int64 {
	t := offsetTime(s.base, s.off)
	s.off += s.gap.Rand()
	return t
}
