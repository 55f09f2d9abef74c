package compare

import (
	"math/bits"

	"ratebench/algorithms"
	"ratebench/summary"
)

// PhaseBins is the number of bins of the phase histograms (docs/definitions.md §16.2).
const PhaseBins = 20

// phaseAcc counts a run's over- and under-admissions by where in its
// fixed window of the rule each falls.
type phaseAcc struct {
	w           int64
	over, under [PhaseBins]int64
}

func (*phaseAcc) place(*algorithms.Block) {}
func (*phaseAcc) grow(int)                {}
func (*phaseAcc) release(int32)           {}

func (a *phaseAcc) observe(req *observation) {
	switch {
	case req.admit && !req.ref:
		a.over[phaseBin(req.t, a.w)]++
	case !req.admit && req.ref:
		a.under[phaseBin(req.t, a.w)]++
	}
}

func (a *phaseAcc) close(r *summary.Run, _ *closing) {
	r.Phase = summary.Phase{Bins: PhaseBins, Over: a.over[:], Under: a.under[:]}
}

// phaseBin returns floor(PhaseBins * e/W) for the time e = t mod W elapsed
// in t's fixed window: where in the window a request falls.
func phaseBin(t, w int64) int {
	e := t % w
	hi, lo := bits.Mul64(uint64(e), PhaseBins)
	q, _ := bits.Div64(hi, lo, uint64(w)) // e < W, so q < PhaseBins
	return int(q)
}
