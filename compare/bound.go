package compare

import (
	"ratebench/algorithms"
	"ratebench/summary"
)

// boundAcc checks the token bucket's bound (docs/definitions.md §16.4) on the admitted requests of token and
// gcra: in any span of length T a key admits at most B + (L/W)*T. A
// sequence keeps that bound over every span exactly when an exact token
// bucket of capacity B and rate L/W, fed the sequence, never lacks a token;
// so the check is such a bucket that records every admitted request (going
// into debt where one does not fit) and counts the admissions that did not.
// The token bucket's own admissions need no check: the check would be the
// run's own bucket, fed the same requests (a run with a history of its
// own records exactly what it admits), which admitted each of them, so
// that none breaks the bound; the run keeps none (check nil).
type boundAcc struct {
	b          int64
	check      *algorithms.Token // nil for the token bucket's own run
	violations int64
}

// newBoundAcc checks the bound for the algorithms it is about, those with
// a capacity B (token and gcra); nil for the others.
func newBoundAcc(rule algorithms.Rule, lim algorithms.Limiter) *boundAcc {
	if tk, own := lim.(*algorithms.Token); own {
		return &boundAcc{b: tk.Capacity()}
	}
	if c, ok := lim.(interface{ Capacity() int64 }); ok {
		return &boundAcc{b: c.Capacity(), check: algorithms.NewToken(rule, c.Capacity())}
	}
	return nil
}

func (a *boundAcc) place(b *algorithms.Block) {
	if a.check != nil {
		a.check.Place(b)
	}
}

func (a *boundAcc) grow(n int) {
	if a.check != nil {
		a.check.Grow(n)
	}
}

func (a *boundAcc) release(id int32) {
	if a.check != nil {
		a.check.Release(id)
	}
}

// idle reports whether the check holds nothing for key id at now.
func (a *boundAcc) idle(id int32, now int64) bool { return a.check == nil || a.check.Idle(id, now) }

func (a *boundAcc) close(r *summary.Run, _ *closing) {
	r.Bound = &summary.Bound{B: a.b, Violations: a.violations}
}

// observe counts a request the run admitted.
func (a *boundAcc) observe(req *observation) {
	if !req.admit || a.check == nil {
		return
	}
	if !a.check.Decide(req.id, req.t, req.cost) {
		a.violations++
	}
	a.check.Record(req.id, req.t, req.cost)
}
