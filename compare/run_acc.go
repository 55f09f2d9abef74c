package compare

import (
	"fmt"
	"ratebench/algorithms"
	"ratebench/summary"
)

// runAcc accumulates the metrics of one run, one request at a time.
type runAcc struct {
	rule algorithms.Rule
	lim  algorithms.Limiter // whose memory is measured

	requests, admitted, admittedCost, cost int64
	over, under                            int64
	rows                                   runRows      // per key: its counts, burst and client state
	timeline                               *timelineAcc // one of its metrics, which the group's state series cover to the end

	// The metrics that follow the requests (requestObserver), each called
	// by add in this order, without an interface call per run and request.
	phase   *phaseAcc
	burst   *burstAcc   // nil without ownHistory
	client  *clientAcc  // nil without ownHistory
	bound   *boundAcc   // nil but for token and gcra with ownHistory
	rateErr *rateErrAcc // nil where the rate error is not measured

	metrics        []runMetric     // the run's figures beyond its counts
	groupObservers []groupObserver // those of them that weigh its decisions against another run's
}

// runMetric is one figure of a run beyond its counts, a type in a file of
// its own (burst.go, bound.go, memory.go, client_side.go, rate_error.go,
// peer.go, product.go). The run calls it at the events of a replay's life;
// a metric that follows the requests (requestObserver) sees each one, with
// the key's rows, in an observation; one that weighs the run against
// another run of its group (groupObserver) settles once every run has
// decided. What it keeps per key is in keyRun and ownRun (key_rows.go),
// which the release ledger keeps for a key that leaves (runRows.kept), or
// in the worker's block (place). Adding a figure is a type here, its
// summary type (with its merge and checks, in summary's runFigures beside
// its field of summary.Run) and its report column; newRunAcc (or the
// group's pairing, pairPeers and addCompanions) says which runs measure
// it. The run's own counts (requests, admissions, over and under) are
// runAcc.add's.
type runMetric interface {
	place(b *algorithms.Block)        // put what it keeps per key in the worker's block, if it can (before any key)
	grow(n int)                       // make ids below n valid
	release(id int32)                 // forget key id, whose state is back to initial
	close(r *summary.Run, c *closing) // write the metric's part of the run's summary
}

// closing is what a run's metrics read when they close.
type closing struct {
	keys     *keyTable
	state    *windowGrid   // the group's counts of the state held per window
	held     []int64       // this run's keys holding state per window (nil for the reference)
	retained []*fullRecord // the records of released keys that keep their rows
	run      int           // this run's index in the records
	pass     *keyPass      // what the run keeps of the live keys (closeKeys)
}

// newRunAcc returns the accumulator of a run of lim. rateErr says whether
// the run measures its estimate's error; ownHistory whether lim records
// what it admits itself (not a candidate that records the log's admissions
// in shadow mode): only then are its admissions a traffic a deployment
// would let through, whose burst, token bound and client side mean
// something.
func newRunAcc(rule algorithms.Rule, lim algorithms.Limiter, rateErr, ownHistory bool) *runAcc {
	a := &runAcc{rule: rule, lim: lim, timeline: newTimelineAcc(rule.W), phase: &phaseAcc{w: rule.W}}
	a.addMetric(a.phase)
	a.addMetric(a.timeline) // before the memory, which fills it when they close
	a.addMetric(&memoryAcc{lim: lim})
	if ownHistory {
		a.burst = &burstAcc{w: rule.W, l: rule.L, rows: &a.rows}
		a.client = newClientAcc(lim, &a.rows)
		a.addMetric(a.burst)
		a.addMetric(a.client)
		if a.bound = newBoundAcc(rule, lim); a.bound != nil {
			a.addMetric(a.bound)
		}
	}
	if rateErr {
		a.rateErr = newRateErrAcc(rule)
		a.addMetric(a.rateErr)
	}
	return a
}

// countKey counts a key with o over- and u under-admissions in the keys
// over, under and disagreeing, and reports whether it disagreed at all.
func countKey(r *summary.Run, o, u int64) bool {
	if o > 0 {
		r.KeysOver++
	}
	if u > 0 {
		r.KeysUnder++
	}
	if o+u == 0 {
		return false
	}
	r.KeysDisagree++
	return true
}

// needsFullRecord reports whether a key whose rows in the run keep h needs
// a full record when it is released (its name and its rows), rather than be
// told apart from the reference's figures: it disagreed, its burst passed
// L, or a run of rejections is still open.
func (a *runAcc) needsFullRecord(h keptRun) bool {
	return h.over+h.under > 0 || h.peak > a.rule.L || h.rejSince != 0
}

// release resets key id's accumulators (its figures were saved in the
// release ledger).
func (a *runAcc) release(id int32) {
	for _, m := range a.metrics { // before the rows, which hold the burst's handle
		m.release(id)
	}
	a.rows.reset(id)
}

// addMetric adds m to the run's metrics (newRunAcc adds its own, the
// group's pairings theirs), and to its groupObservers if it is one. A
// metric that follows the requests (requestObserver) is one of the run's
// own fields, which add calls: another is a programming error.
func (a *runAcc) addMetric(m runMetric) {
	a.metrics = append(a.metrics, m)
	if o, ok := m.(requestObserver); ok && !a.follows(o) {
		panic(fmt.Sprintf("compare: %T follows the requests but is not one of the run's metrics that add calls", m))
	}
	if s, ok := m.(groupObserver); ok {
		a.groupObservers = append(a.groupObservers, s)
	}
}

// place puts what the run's metrics keep per key in b, where they can.
func (a *runAcc) place(b *algorithms.Block) {
	for _, m := range a.metrics {
		m.place(b)
	}
}

// grow makes ids below n valid in the accumulators the run keeps itself
// (the engine grows the key rows).
func (a *runAcc) grow(n int) {
	for _, m := range a.metrics {
		m.grow(n)
	}
}

// add counts one request, req, and shows it to the run's metrics that
// follow the requests.
func (a *runAcc) add(req *observation) {
	a.requests++
	a.cost += req.cost
	if req.admit {
		a.admitted++
		a.admittedCost += req.cost
	}
	if req.admit != req.ref {
		if req.admit {
			a.over++
		} else {
			a.under++
		}
		a.rows.count(req.h, req.id, !req.admit)
	}
	a.phase.observe(req)
	a.timeline.observe(req)
	if a.burst != nil {
		a.burst.observe(req)
	}
	if a.client != nil {
		a.client.observe(req)
	}
	if a.bound != nil {
		a.bound.observe(req)
	}
	if a.rateErr != nil {
		a.rateErr.observe(req)
	}
}

// follows reports whether o is one of the metrics that add calls.
func (a *runAcc) follows(o requestObserver) bool {
	switch o := o.(type) {
	case *phaseAcc:
		return o == a.phase
	case *timelineAcc:
		return o == a.timeline
	case *burstAcc:
		return o == a.burst
	case *clientAcc:
		return o == a.client
	case *boundAcc:
		return o == a.bound
	case *rateErrAcc:
		return o == a.rateErr
	}
	return false
}

// summary closes the accumulator into a Run; pass is what it keeps of the
// live keys (closeKeys), retained are the records of released keys that
// disagreed, with this run's index in them. state is the group's state
// counts, whose held are this run's keys holding state (nil for the
// reference, whose are the log's).
func (a *runAcc) summary(keys *keyTable, pass *keyPass, state *windowGrid, held []int64, retained []*fullRecord, run int) summary.Run {
	r := summary.Run{
		Algorithm:    a.lim.Name(),
		Requests:     a.requests,
		Admitted:     a.admitted,
		Rejected:     a.requests - a.admitted,
		AdmittedCost: a.admittedCost,
		RejectedCost: a.cost - a.admittedCost,
		Over:         a.over,
		Under:        a.under,
		Disagree:     a.over + a.under,
		Keys:         int64(keys.len()),
	}
	c := &closing{keys: keys, state: state, held: held, retained: retained, run: run, pass: pass}
	for _, m := range a.metrics {
		m.close(&r, c)
	}
	if a.requests > 0 {
		r.DisagreeRate = float64(r.Disagree) / float64(a.requests)
		r.OverRate = float64(r.Over) / float64(a.requests)
		r.UnderRate = float64(r.Under) / float64(a.requests)
	}
	r.KeysOver, r.KeysUnder, r.KeysDisagree = pass.keys.KeysOver, pass.keys.KeysUnder, pass.keys.KeysDisagree
	top := pass.top
	for _, f := range retained {
		h := &f.runs[run]
		if !countKey(&r, h.over, h.under) || !top.Admits(h.over+h.under, f.name) {
			continue
		}
		ks := summary.KeyStat{Key: f.name, Requests: f.requests, Disagree: h.over + h.under, Over: h.over, Under: h.under}
		if a.burst != nil {
			ks.Burst = &h.peak
		}
		top.Offer(ks)
	}
	r.TopKeys = top.Keys()
	return r
}
