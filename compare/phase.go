package compare

import "math/bits"

// PhaseBins is the number of bins of the phase histograms (docs/definitions.md §16.2).
const PhaseBins = 20

// phaseBin returns floor(PhaseBins * e/W) for the time e = t mod W elapsed
// in t's fixed window: where in the window a request falls.
func phaseBin(t, w int64) int {
	e := t % w
	hi, lo := bits.Mul64(uint64(e), PhaseBins)
	q, _ := bits.Div64(hi, lo, uint64(w)) // e < W, so q < PhaseBins
	return int(q)
}
