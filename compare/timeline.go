package compare

import (
	"ratebench/algorithms"
	"ratebench/internal/slicesx"
	"ratebench/summary"
)

// timelineAcc counts requests, over- and under-admissions per time bin
// (summary.TimelineBins), and finds the bin of each request. The requests
// are the same in every run of a group: the group's timeline counts them,
// once per request (group.add), and a run's counts only its
// disagreements, touching its bins only at a request that changes them;
// when it closes, the run's timeline is the group's merged with its own,
// which is exactly what counting every request in each run gives (bins
// depend only on the span of the times counted: summary.TimelineBins).
// The state all keys hold is counted per window of the rule instead
// (windowGrid), and its series set per bin when the run is summarized.
type timelineAcc struct {
	summary.TimelineBins
	group *timelineAcc // the group's, which counts the requests; nil for the group's own

	lo, hi int64 // the last bin found: [lo, hi) is bin cur, so that a
	cur    int   // request in the same bin as the last skips the division
}

func newTimelineAcc(w int64) *timelineAcc {
	return &timelineAcc{TimelineBins: summary.TimelineBins{Width: w}}
}

func (*timelineAcc) place(*algorithms.Block) {}
func (*timelineAcc) grow(int)                {}
func (*timelineAcc) release(int32)           {}

// observe counts whether the run let the request through or refused it
// against the reference (the group's timeline counts the request).
func (a *timelineAcc) observe(req *observation) {
	if req.admit == req.ref {
		return
	}
	if req.admit {
		a.add(req.t, 0, 1, 0)
	} else {
		a.add(req.t, 0, 0, 1)
	}
}

// close writes the run's timeline: the group's requests, and its own
// disagreements.
func (a *timelineAcc) close(r *summary.Run, _ *closing) {
	if a.group != nil {
		own := a.TimelineBins
		a.TimelineBins = summary.TimelineBins{Width: a.group.Width}
		a.Merge(a.group.TimelineBins)
		a.Merge(own)
		a.group = nil // closed: a second close keeps the merged bins
	}
	r.Timeline = a.Timeline()
}

// add counts dReq requests, dOver over- and dUnder under-admissions (each
// 0 or 1) at t.
func (a *timelineAcc) add(t int64, dReq, dOver, dUnder int64) {
	i := a.bin(t)
	if i >= len(a.Requests) {
		n := i + 1
		a.Requests, a.Over, a.Under = slicesx.Grow(a.Requests, n), slicesx.Grow(a.Over, n), slicesx.Grow(a.Under, n)
	}
	a.Requests[i] += dReq
	a.Over[i] += dOver
	a.Under[i] += dUnder
}

// bin returns the index of t's bin, widening the bins or prepending empty
// ones so that it exists (or is the next after the last).
func (a *timelineAcc) bin(t int64) int {
	if t >= a.lo && t < a.hi {
		return a.cur
	}
	i := a.find(t)
	a.cur, a.lo = i, (a.First+int64(i))*a.Width
	a.hi = a.lo + a.Width
	return i
}

// find is bin without the cache.
func (a *timelineAcc) find(t int64) int {
	b := t / a.Width
	if len(a.Requests) == 0 {
		a.First = b
	}
	for max(b, a.First+int64(len(a.Requests))-1)-min(b, a.First) >= summary.MaxTimelineBins {
		a.Widen()
		b = t / a.Width
	}
	if b < a.First { // a request earlier than any so far (another key's)
		pad := int(a.First - b)
		prepend := func(s []int64) []int64 {
			if len(s) == 0 {
				return s
			}
			return append(make([]int64, pad), s...)
		}
		a.Requests, a.Over, a.Under = prepend(a.Requests), prepend(a.Over), prepend(a.Under)
		a.Memory = prepend(a.Memory)
		for i := range a.Held {
			a.Held[i] = prepend(a.Held[i])
		}
		a.First = b
		a.lo, a.hi = 0, 0
	}
	return int(b - a.First)
}

// cover extends the bins to the one holding t, counting no request there,
// so that state can be sampled up to its end (a shard's timeline covers
// the trace's time beyond its own keys' last request).
func (a *timelineAcc) cover(t int64) {
	if len(a.Requests) == 0 {
		return
	}
	if i := a.bin(t); i >= len(a.Requests) {
		n := i + 1
		a.Requests, a.Over, a.Under = slicesx.Grow(a.Requests, n), slicesx.Grow(a.Over, n), slicesx.Grow(a.Under, n)
	}
}
