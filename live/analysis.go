package live

import (
	"ratebench/algorithms"
	"ratebench/summary"
)

// Analysis is what a replay gathered and compared, handed to the
// session's Analyze to add what only its software tells. Every slice is
// indexed by the request's place in the trace.
type Analysis struct {
	Trace *Trace
	// Rule and Spec are the model's: the rule the software ran under and
	// its model's spec.
	Rule algorithms.Rule
	Spec string
	// Real is each request's decision by the software, At the time it
	// decided at, and Order the requests in the order the software
	// decided them.
	Real  []bool
	At    []int64
	Order []int
	// Model is the model's decision fed At in Order, and Limiter the
	// model once it has decided the whole trace so.
	Model   []bool
	Limiter algorithms.Limiter
	// Scaled is each request's trace time at the speed, from the first
	// request's, and Intended the model's decision fed Scaled in the
	// trace's order: both nil when the software's clock is driven.
	Scaled   []int64
	Intended []bool
	// Sent is when each request was handed to its client, in ns since
	// the replay began; DurationNS the replay's length, from its start
	// to the last answer.
	Sent       []int64
	DurationNS int64
	// Result is the replay's result so far, for Analyze to add to.
	Result *summary.Live
}

// Decide replays the trace through spec for the model's rule in order
// at times (DecideInOrder).
func (a *Analysis) Decide(spec string, order []int, times []int64) ([]bool, error) {
	out, _, err := DecideInOrder(spec, a.Rule, a.Trace, order, times, nil)
	return out, err
}

// Agreement sets the software's decisions beside other's (Agreement).
func (a *Analysis) Agreement(against, times string, other []bool) summary.LiveAgreement {
	return Agreement(against, times, a.Real, other, a.Trace)
}
