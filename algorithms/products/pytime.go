package products

import "time"

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
