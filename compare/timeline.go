package compare

import (
	"math"

	"ratebench/summary"
)

// maxTimelineBins bounds the bins of a timeline; past it the bin width
// doubles.
const maxTimelineBins = 512

// timelineAcc counts requests, over- and under-admissions per time bin.
// Bins are aligned to t = 0 and their width is the window times a power of
// two, so that it depends only on the trace's span, and two timelines merge
// by re-binning to the wider of their widths.
//
// A reference's timeline also samples state at the last instant of each
// bin (its end, (first+i+1)*width - 1): mem is the bytes of the exact
// log's entries and sums there (see stateSeries), held[c] the keys whose
// state in the group's candidate c is not back to its initial value there
// (group.settle). Samples are additive over keys, so they merge by addition
// too. A sample is a function of its instant alone, and the ends of a
// wider grid's bins are ends of the narrower's, so widening keeps the
// samples at the wider bins' ends.
type timelineAcc struct {
	width                 int64
	first                 int64 // index of bin 0
	requests, over, under []int64
	mem                   []int64
	held                  [][]int64

	lo, hi int64 // the last bin found: [lo, hi) is bin cur, so that a
	cur    int   // request in the same bin as the last skips the division
}

func newTimelineAcc(w int64) timelineAcc { return timelineAcc{width: w} }

// add counts one request at t; dOver and dUnder are 0 or 1.
func (a *timelineAcc) add(t int64, dOver, dUnder int64) {
	i := a.bin(t)
	if i >= len(a.requests) {
		n := i + 1
		a.requests, a.over, a.under = grow(a.requests, n), grow(a.over, n), grow(a.under, n)
	}
	a.requests[i]++
	a.over[i] += dOver
	a.under[i] += dUnder
}

// bin returns the index of t's bin, widening the bins or prepending empty
// ones so that it exists (or is the next after the last).
func (a *timelineAcc) bin(t int64) int {
	if t >= a.lo && t < a.hi {
		return a.cur
	}
	i := a.find(t)
	a.cur, a.lo = i, (a.first+int64(i))*a.width
	a.hi = a.lo + a.width
	return i
}

// find is bin without the cache.
func (a *timelineAcc) find(t int64) int {
	b := t / a.width
	if len(a.requests) == 0 {
		a.first = b
	}
	for max(b, a.first+int64(len(a.requests))-1)-min(b, a.first) >= maxTimelineBins {
		a.widen()
		b = t / a.width
	}
	if b < a.first { // a request earlier than any so far (another key's)
		pad := int(a.first - b)
		prepend := func(s []int64) []int64 {
			if len(s) == 0 {
				return s
			}
			return append(make([]int64, pad), s...)
		}
		a.requests, a.over, a.under = prepend(a.requests), prepend(a.over), prepend(a.under)
		a.mem = prepend(a.mem)
		for i := range a.held {
			a.held[i] = prepend(a.held[i])
		}
		a.first = b
		a.lo, a.hi = 0, 0
	}
	return int(b - a.first)
}

// end returns the end of t's bin, the first sampling instant at or after
// t, and whether t is still in the window of length w ending there: the
// one instant of the sampling grid at which an entry recorded at t is in
// the window (bins are at least w wide, so there is at most one).
func (a *timelineAcc) end(t, w int64) (s int64, ok bool) {
	if t >= a.lo && t < a.hi && a.hi > a.lo { // t was just added: its bin is the cached one
		s = a.hi - 1
	} else {
		s = binEnd(t, a.width)
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
	return binEnd((a.first+int64(len(a.requests))-1)*a.width, a.width)
}

// sample adds v to the state sampled at s, the end of a bin that exists.
func (a *timelineAcc) sample(series *[]int64, s, v int64) {
	i := int(s/a.width - a.first)
	if i >= len(*series) {
		*series = grow(*series, i+1)
	}
	(*series)[i] += v
}

// cover extends the bins to the one holding t, counting no request there,
// so that state can be sampled up to its end (a shard's timeline covers
// the trace's time beyond its own keys' last request).
func (a *timelineAcc) cover(t int64) {
	if len(a.requests) == 0 {
		return
	}
	if i := a.bin(t); i >= len(a.requests) {
		n := i + 1
		a.requests, a.over, a.under = grow(a.requests, n), grow(a.over, n), grow(a.under, n)
	}
}

// widen doubles the bin width, folding pairs of bins; state samples keep
// the ends of the wider bins (the ends of the odd bins) and drop the rest.
func (a *timelineAcc) widen() {
	if a.width > 1<<61 {
		a.width = 1 << 62 // one bin holds every time
		return
	}
	nw := 2 * a.width
	nfirst := (a.first * a.width) / nw
	fold := func(src []int64) []int64 {
		dst := make([]int64, 0, len(src)/2+1)
		for i, c := range src {
			j := int((a.first+int64(i))*a.width/nw - nfirst)
			dst = grow(dst, j+1)
			dst[j] += c
		}
		return dst
	}
	keep := func(src []int64) []int64 {
		if len(src) == 0 {
			return src
		}
		dst := make([]int64, 0, len(src)/2+1)
		for i, c := range src {
			if b := a.first + int64(i); b%2 == 1 {
				j := int(b/2 - nfirst)
				dst = grow(dst, j+1)
				dst[j] = c
			}
		}
		return dst
	}
	a.requests, a.over, a.under = fold(a.requests), fold(a.over), fold(a.under)
	a.mem = keep(a.mem)
	for i := range a.held {
		a.held[i] = keep(a.held[i])
	}
	a.width, a.first = nw, nfirst
	a.lo, a.hi = 0, 0
}

// merge adds timeline o into a: both are re-binned to the wider width,
// then widened further while the union spans too many bins, exactly as one
// pass over both traces would have.
func (a *timelineAcc) merge(o timelineAcc) {
	if len(o.requests) == 0 {
		return
	}
	if len(a.requests) == 0 {
		*a = o.clone()
		return
	}
	o = o.clone()
	for a.width < o.width {
		a.widen()
	}
	for o.width < a.width {
		o.widen()
	}
	for max(a.first+int64(len(a.requests)), o.first+int64(len(o.requests)))-1-min(a.first, o.first) >= maxTimelineBins {
		a.widen()
		o.widen()
	}
	first := min(a.first, o.first)
	sum := func(x, y []int64, xf, yf int64) []int64 {
		n := max(int(xf-first)+len(x), int(yf-first)+len(y))
		if len(x) == 0 && len(y) == 0 {
			return nil
		}
		out := make([]int64, n)
		for i, v := range x {
			out[int(xf-first)+i] += v
		}
		for i, v := range y {
			out[int(yf-first)+i] += v
		}
		return out
	}
	a.requests = sum(a.requests, o.requests, a.first, o.first)
	a.over = sum(a.over, o.over, a.first, o.first)
	a.under = sum(a.under, o.under, a.first, o.first)
	a.mem = sum(a.mem, o.mem, a.first, o.first)
	a.held = grow(a.held, len(o.held))
	for i := range o.held {
		a.held[i] = sum(a.held[i], o.held[i], a.first, o.first)
	}
	a.first = first
	a.lo, a.hi = 0, 0
}

func (a timelineAcc) clone() timelineAcc {
	c := a
	for _, s := range []*[]int64{&c.requests, &c.over, &c.under, &c.mem} {
		*s = append([]int64(nil), (*s)...)
	}
	c.held = make([][]int64, len(a.held))
	for i, h := range a.held {
		c.held[i] = append([]int64(nil), h...)
	}
	return c
}

func (a *timelineAcc) summary() summary.Timeline {
	return summary.Timeline{WidthNS: a.width, First: a.first, Requests: nonNil(a.requests), Over: nonNil(a.over), Under: nonNil(a.under)}
}

func nonNil(s []int64) []int64 {
	if s == nil {
		return []int64{}
	}
	return s
}
