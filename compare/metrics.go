package compare

import (
	"ratebench/algorithms"
	"ratebench/internal/slicesx"
	"ratebench/summary"
)

// runAcc accumulates the metrics of one run, one request at a time.
type runAcc struct {
	rule algorithms.Rule
	lim  algorithms.Limiter // whose memory is measured

	requests, admitted, admittedCost, cost int64
	over, under                            int64
	rows                                   runRows // per key: its counts, burst and client state
	phaseOver, phaseUnder                  [PhaseBins]int64
	timeline                               timelineAcc

	burst   *burstAcc // nil without ownHistory
	bound   boundAcc
	memory  memoryAcc
	rateErr *summary.RateErrors   // nil where not measured
	peer    *summary.Peer         // a peer library's checks; nil for the others
	vsTok   *summary.Disagreement // disagreement with the token run it is paired with (peers, leaky)
	client  *clientAcc            // nil without ownHistory
}

// newRunAcc returns the accumulator of a run of lim. rateErr says whether
// the run measures its estimate's error; ownHistory whether lim records
// what it admits itself (not a candidate that records the log's admissions
// in shadow mode): only then are its admissions a traffic a deployment
// would let through, whose burst, seed 002 bound and client side mean
// something.
func newRunAcc(rule algorithms.Rule, lim algorithms.Limiter, rateErr, ownHistory bool) *runAcc {
	a := &runAcc{rule: rule, lim: lim, memory: memoryAcc{lim: lim}, timeline: newTimelineAcc(rule.W)}
	if ownHistory {
		a.bound = newBoundAcc(rule, lim)
		a.burst = &burstAcc{w: rule.W, rows: &a.rows}
		a.client = newClientAcc(lim, &a.rows)
	}
	if rateErr {
		a.rateErr = summary.NewRateErrors(rule.L)
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

// remarkable reports whether a key whose row in the run is h must keep
// its row when released, rather than be told apart from the reference's
// figures: it disagreed, its burst passed L, or a run of rejections is
// still open.
func (a *runAcc) remarkable(h *keyRun) bool {
	return h.over+h.under > 0 || h.peak > a.rule.L || h.rejSince != 0
}

// release resets key id's accumulators (its figures were saved in the
// release ledger).
func (a *runAcc) release(id int32) {
	*a.rows.at(id) = keyRun{}
	if a.burst != nil {
		a.burst.release(id)
	}
	if a.bound.check != nil {
		a.bound.check.Release(id)
	}
}

// grow makes ids below n valid in the accumulators the run keeps itself
// (the engine grows the key rows).
func (a *runAcc) grow(n int) {
	if a.burst != nil {
		a.burst.grow(n)
	}
	a.bound.grow(n)
}

// add counts one request of key id, whose row in the run is h, that the
// run decided admit and the reference ref.
func (a *runAcc) add(h *keyRun, id int32, t, cost int64, admit, ref bool) {
	a.requests++
	a.cost += cost
	if admit {
		a.admitted++
		a.admittedCost += cost
		a.bound.add(id, t, cost)
	}
	if a.burst != nil {
		a.burst.observe(h, id, t, cost, admit, ref)
	}
	var dOver, dUnder int64
	if admit != ref {
		if admit {
			a.over++
			h.over++
			a.phaseOver[phaseBin(t, a.rule.W)]++
			dOver = 1
		} else {
			a.under++
			h.under++
			a.phaseUnder[phaseBin(t, a.rule.W)]++
			dUnder = 1
		}
	}
	a.timeline.add(t, dOver, dUnder)
}

// summary closes the accumulator into a Run; retained are the records of
// released keys that disagreed, with this run's index in them.
// state is the group's timeline, whose samples held are this run's keys
// holding state (nil for the reference, whose are the log's).
func (a *runAcc) summary(keys *keyTable, topN int, state *timelineAcc, held []int64, retained []*fullRecord, run int) summary.Run {
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
		Phase:        summary.Phase{Bins: PhaseBins, Over: a.phaseOver[:], Under: a.phaseUnder[:]},
		Timeline:     a.timeline.Timeline(),
		RateError:    a.rateErr.RateError(),
	}
	r.Memory, r.Timeline.Memory = a.memory.summary(keys.len(), state, held)
	r.Peer = a.peerSummary()
	r.VsToken = a.vsTokenSummary()
	if a.client != nil {
		r.Client = a.client.summary(keys, retained, run)
	}
	if a.requests > 0 {
		r.DisagreeRate = float64(r.Disagree) / float64(a.requests)
		r.OverRate = float64(r.Over) / float64(a.requests)
		r.UnderRate = float64(r.Under) / float64(a.requests)
	}
	var top []int32
	for id := range int32(a.rows.ids()) {
		if h := a.rows.at(id); countKey(&r, h.over, h.under) {
			top = append(top, id)
		}
	}
	for _, f := range retained {
		countKey(&r, f.runs[run].over, f.runs[run].under)
	}
	if a.burst != nil {
		r.Burst = a.burst.summary(keys, a.rule.L, retained, run)
	}
	if a.bound.check != nil {
		r.Bound = &summary.Bound{B: a.bound.b, Violations: a.bound.violations}
	}
	r.TopKeys = []summary.KeyStat{}
	for _, id := range top {
		h := a.rows.at(id)
		r.TopKeys = append(r.TopKeys, summary.KeyStat{
			Key:      keys.names[id],
			Requests: keys.state[id].requests,
			Disagree: h.over + h.under,
			Over:     h.over,
			Under:    h.under,
		})
		if a.burst != nil {
			p := h.peak
			r.TopKeys[len(r.TopKeys)-1].Burst = &p
		}
	}
	for _, f := range retained {
		if h := &f.runs[run]; h.over+h.under > 0 {
			ks := summary.KeyStat{Key: f.name, Requests: f.requests, Disagree: h.over + h.under, Over: h.over, Under: h.under}
			if a.burst != nil {
				ks.Burst = &h.peak
			}
			r.TopKeys = append(r.TopKeys, ks)
		}
	}
	summary.SortTopKeys(r.TopKeys)
	if len(r.TopKeys) > topN {
		r.TopKeys = r.TopKeys[:topN]
	}
	return r
}

// burstAcc measures the largest admitted cost in any span (t-W, t], per
// key, evaluated at each admission (the maximum over spans is reached at an
// admission time). It has three ways to know the admitted cost of the span:
//
//   - log set: a sliding log that records exactly the run's admissions (the
//     reference under count accepted) already holds it;
//   - ref set: the run's admissions differ from those of a reference log
//     (count accepted) only where they disagree, so the span holds the
//     reference's admitted cost, minus what the run refused and the log
//     admitted (under), plus what the run admitted and the log refused
//     (over). Only the disagreements are kept, per key, in one window of
//     signed costs (+ over, - under) whose sum is the difference, and a
//     key none of whose disagreements is recent costs one read of lastDis;
//   - otherwise a sliding sum of the run's own admissions per key.
type burstAcc struct {
	rows *runRows // the run's: each key's peak and latest disagreement
	log  *algorithms.Log
	ref  *algorithms.Log
	w    int64

	relMax int64  // the largest peak of the keys released
	relKey string // and its key (the least name of those with it)

	dis []algorithms.WindowSum // ref set: the disagreements, +cost over, -cost under
	win []algorithms.WindowSum // the run's admissions (neither log nor ref)
}

func (b *burstAcc) grow(n int) {
	switch {
	case b.log != nil:
	case b.ref != nil:
		b.dis = slicesx.Grow(b.dis, n)
	default:
		b.win = slicesx.Grow(b.win, n)
	}
}

// observe counts a request of key id, whose row in the run is h, that the
// run decided admit and the reference ref; log and ref must already have
// recorded it.
func (b *burstAcc) observe(h *keyRun, id int32, t, cost int64, admit, ref bool) {
	var span int64
	switch {
	case b.log != nil:
		if !admit {
			return
		}
		span = b.log.Sum(id)
	case b.ref != nil:
		if admit != ref {
			d := &b.dis[id]
			d.Expire(t - b.w)
			if admit {
				d.Add(t, cost)
			} else {
				d.Add(t, -cost)
			}
			h.lastDis = t
		}
		if !admit {
			return
		}
		span = b.ref.Sum(id)
		if h.lastDis > t-b.w { // else every disagreement has left the span
			d := &b.dis[id]
			d.Expire(t - b.w)
			span += d.Sum()
		}
	default:
		if !admit {
			return
		}
		ws := &b.win[id]
		ws.Expire(t - b.w)
		ws.Add(t, cost)
		span = ws.Sum()
	}
	h.peak = max(h.peak, span)
}

// release forgets key id's burst windows (its peak, saved or folded, is
// cleared with the run's keyRun).
func (b *burstAcc) release(id int32) {
	switch {
	case b.log != nil:
	case b.ref != nil:
		b.dis[id] = algorithms.WindowSum{}
	default:
		b.win[id] = algorithms.WindowSum{}
	}
}

// fold counts the peak of a released key towards the largest burst.
func (b *burstAcc) fold(p int64, name string) {
	if p > b.relMax || (p == b.relMax && p > 0 && name < b.relKey) {
		b.relMax, b.relKey = p, name
	}
}

func (b *burstAcc) summary(keys *keyTable, l int64, retained []*fullRecord, run int) *summary.Burst {
	out := &summary.Burst{Max: b.relMax, Key: b.relKey}
	consider := func(p int64, name string) {
		if p > out.Max || (p == out.Max && p > 0 && name < out.Key) {
			out.Max, out.Key = p, name
		}
	}
	for id := range int32(b.rows.ids()) {
		p := b.rows.at(id).peak
		if p > l {
			out.KeysOverL++
		}
		if p > 0 {
			consider(p, keys.names[id])
		}
	}
	for _, f := range retained {
		if f.runs[run].peak > l {
			out.KeysOverL++
		}
	}
	if out.Max == 0 {
		out.Key = ""
	}
	out.Ratio = float64(out.Max) / float64(l)
	return out
}

// boundAcc checks seed 002's bound on the admitted requests of token and
// gcra: in any span of length T a key admits at most B + (L/W)*T. A
// sequence keeps that bound over every span exactly when an exact token
// bucket of capacity B and rate L/W, fed the sequence, never lacks a token;
// so the check is such a bucket that records every admitted request (going
// into debt where one does not fit) and counts the admissions that did not.
type boundAcc struct {
	b          int64
	check      *algorithms.Token // nil where the bound is not checked
	violations int64
}

// newBoundAcc checks the bound for the algorithms it is about, those with
// a capacity B (token and gcra).
func newBoundAcc(rule algorithms.Rule, lim algorithms.Limiter) boundAcc {
	if c, ok := lim.(interface{ Capacity() int64 }); ok {
		return boundAcc{b: c.Capacity(), check: algorithms.NewToken(rule, c.Capacity())}
	}
	return boundAcc{}
}

func (a *boundAcc) grow(n int) {
	if a.check != nil {
		a.check.Grow(n)
	}
}

func (a *boundAcc) add(id int32, t, cost int64) {
	if a.check == nil {
		return
	}
	if !a.check.Decide(id, t, cost) {
		a.violations++
	}
	a.check.Record(id, t, cost)
}

// memoryAcc reports the analytic state size of a run's limiter: per key,
// a fixed size, or, for the log, the largest size each key reached (the
// limiter follows it); in total, the state all keys held together at the
// end of each bin of the timeline (stateSeries).
type memoryAcc struct {
	lim algorithms.Limiter
}

// memoryReporter is a limiter whose state size varies, which follows each
// key's largest size.
type memoryReporter interface {
	Memory() (peakPerKey, sumOfPeaks int64)
}

// summary returns the memory of the run and its series at the ends of the
// timeline's bins, from the group's samples tl: the log's, or held, the
// keys holding state in this run.
func (m *memoryAcc) summary(keys int, tl *timelineAcc, held []int64) (summary.Memory, []int64) {
	var out summary.Memory
	var series []int64
	if r, ok := m.lim.(memoryReporter); ok && !m.lim.FixedSize() {
		out.Model = modelLog
		out.PeakPerKey, out.SumOfPeaks = r.Memory()
		series = append(series, tl.Memory...)
	} else {
		b := m.lim.Bytes(0)
		out.Model = modelFixed
		out.PeakPerKey, out.SumOfPeaks = b, b*int64(keys)
		series = make([]int64, len(held))
		for i, n := range held {
			series[i] = b * n
		}
	}
	series = summary.TrimZeros(series)
	out.Fill(keys, series)
	return out, series
}

// The memory models, as summary.json names them.
const (
	modelLog   = "per entry in the window, pruned when the key is next seen; total: entries in the window at the end of each timeline bin"
	modelFixed = "fixed per key; total: keys whose state is not back to its initial value at the end of each timeline bin"
)
