package products

import (
	"math"
	"time"
)

// PyTime is CPython's time.time() at ns nanoseconds since the epoch: the
// whole seconds converted exactly when ns is a multiple of 1e9, else
// float64(ns) / 1e9 (Python/pytime.c, _PyTime_AsSecondsDouble).
func PyTime(ns int64) float64 {
	if ns%1_000_000_000 == 0 {
		return float64(ns / 1_000_000_000)
	}
	return float64(ns) / 1e9
}

// pyTimeReach bounds how far PyTime(ns) lies from ns/1e9: farther than any
// float64 rounding of time.time() reaches (a few microseconds at 2^63 ns).
const pyTimeReach = int64(time.Millisecond)

// pyTimeGuess is how far from c·1e9 PyTimeAtMost first looks for the
// instant: several times the float64 steps of ns and of ns/1e9 at any
// time a trace holds (512 ns and 238 ns at 2^61 ns).
const pyTimeGuess = int64(4096)

// PyTimeAtMost returns the largest ns whose PyTime is at most c, for c
// within a millisecond of PyTime(near): the last instant a float bound
// computed near near still covers. PyTime never decreases as ns grows, so
// the instant is where PyTime passes c in any range it passes c in: the
// search starts from pyTimeGuess either side of c·1e9 when PyTime passes c
// there (checked), about 13 halvings where the 4 ms around near take 22.
func PyTimeAtMost(c float64, near int64) int64 {
	lo, hi := near-2*pyTimeReach, near+2*pyTimeReach // PyTime(lo) <= c < PyTime(hi)
	if near < math.MinInt64+2*pyTimeReach {
		lo = math.MinInt64
	}
	if near > math.MaxInt64-2*pyTimeReach {
		hi = math.MaxInt64
	}
	if g := c * 1e9; g > float64(lo) && g < float64(hi) {
		if l, h := int64(g)-pyTimeGuess, int64(g)+pyTimeGuess; l > lo && h < hi && PyTime(l) <= c && c < PyTime(h) {
			lo, hi = l, h
		}
	}
	for hi-lo > 1 {
		if mid := lo + (hi-lo)/2; PyTime(mid) <= c {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}
