package compare

import (
	"ratebench/algorithms"
	"ratebench/summary"
)

// rateErrAcc measures a run's estimate against the exact count of the log
// (docs/definitions.md §16.5): at each request, the estimate the run read
// before recording it (observation.est) against the cost the log held in
// (t-W, t]. It keeps nothing per key.
type rateErrAcc struct {
	d *summary.RateErrors
}

func newRateErrAcc(rule algorithms.Rule) *rateErrAcc {
	return &rateErrAcc{d: summary.NewRateErrors(rule.L)}
}

func (*rateErrAcc) place(*algorithms.Block) {}
func (*rateErrAcc) grow(int)                {}
func (*rateErrAcc) release(int32)           {}

func (a *rateErrAcc) observe(req *observation) { a.d.Add(req.est, req.exact) }

func (a *rateErrAcc) close(r *summary.Run, _ *closing) { r.RateError = a.d.RateError() }
