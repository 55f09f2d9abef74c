package compare

import (
	"math"

	"ratebench/internal/slicesx"
	"ratebench/summary"
)

// timelineAcc counts requests, over- and under-admissions per time bin
// (summary.TimelineBins), and finds the bin of each request.
//
// A reference's timeline also samples state at the last instant of each
// bin: Memory is the bytes of the exact log's entries and sums there (see
// stateSeries), Held[c] the keys whose state in the group's candidate c is
// not back to its initial value there (group.settle).
type timelineAcc struct {
	summary.TimelineBins

	lo, hi int64 // the last bin found: [lo, hi) is bin cur, so that a
	cur    int   // request in the same bin as the last skips the division
}

func newTimelineAcc(w int64) timelineAcc {
	return timelineAcc{TimelineBins: summary.TimelineBins{Width: w}}
}

// add counts one request at t; dOver and dUnder are 0 or 1.
func (a *timelineAcc) add(t int64, dOver, dUnder int64) {
	i := a.bin(t)
	if i >= len(a.Requests) {
		n := i + 1
		a.Requests, a.Over, a.Under = slicesx.Grow(a.Requests, n), slicesx.Grow(a.Over, n), slicesx.Grow(a.Under, n)
	}
	a.Requests[i]++
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

// end returns the end of t's bin, the first sampling instant at or after
// t, and whether t is still in the window of length w ending there: the
// one instant of the sampling grid at which an entry recorded at t is in
// the window (bins are at least w wide, so there is at most one).
func (a *timelineAcc) end(t, w int64) (s int64, ok bool) {
	if t >= a.lo && t < a.hi && a.hi > a.lo { // t was just added: its bin is the cached one
		s = a.hi - 1
	} else {
		s = binEnd(t, a.Width)
	}
	return s, s-t < w
}

// binEnd returns the last instant of the bin of width w that holds t (the
// end of int64 time for the last bin).
func binEnd(t, w int64) int64 {
	lo := t / w * w
	if lo > math.MaxInt64-(w-1) {
		return math.MaxInt64
	}
	return lo + w - 1
}

// lastEnd returns the end of the last bin: the last sampling instant.
func (a *timelineAcc) lastEnd() int64 {
	return binEnd((a.First+int64(len(a.Requests))-1)*a.Width, a.Width)
}

// sample adds v to the state sampled at s, the end of a bin that exists.
func (a *timelineAcc) sample(series *[]int64, s, v int64) {
	i := int(s/a.Width - a.First)
	if i >= len(*series) {
		*series = slicesx.Grow(*series, i+1)
	}
	(*series)[i] += v
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
