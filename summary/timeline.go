package summary

import (
	"fmt"
	"math/bits"

	"ratebench/internal/slicesx"
)

// MaxTimelineBins bounds the bins of a timeline; past it the bin width
// doubles.
const MaxTimelineBins = 512

// Timeline counts requests and disagreements over the trace's time, in
// bins of WidthNS aligned to t = 0: bin i covers [(First+i)*WidthNS,
// (First+i+1)*WidthNS). The width starts at the rule's window and doubles
// whenever the trace would need more than 512 bins, so a timeline has at
// most 512 bins whatever the trace's length; widths of shards merge
// exactly, each a power-of-two multiple of W.
type Timeline struct {
	WidthNS  int64   `json:"width_ns"`
	First    int64   `json:"first"`
	Requests []int64 `json:"requests"`
	Over     []int64 `json:"over"`
	Under    []int64 `json:"under"`
	// Memory is the run's analytic state over all keys at the last instant
	// of each bin (see Memory), trailing zeros cut. It is nil, and absent
	// from the JSON, where the total is not measured
	// (Memory.TotalNotMeasured); a measured series of zeros is empty, [].
	Memory []int64 `json:"memory,omitzero"`
}

// merge adds the parts' timelines as TimelineBins merge them, exactly as
// one pass over all their keys; a merge of parts without requests has the
// rule's window. Its memory series is the sum of theirs, which the run's
// memory then reads (Run.closeMemory).
func (t *Timeline) merge(o *Timeline, m *merging) (*Timeline, error) {
	bins := TimelineBins{Width: m.rule.W}
	if m.part > 0 {
		bins = timelineBinsOf(*t)
	}
	bins.Merge(timelineBinsOf(*o))
	*t = bins.Timeline()
	t.Memory = TrimZeros(nonNil(bins.Memory))
	return t, nil
}

// validate checks that the timeline's bins are the rule's window times a
// power of two, its series are as long as each other (memory at most as
// long), at most MaxTimelineBins, and add up to the run's counts.
func (t *Timeline) validate(v *validator, path string, in *runIn) {
	r, rule := in.run, in.rule
	if t.WidthNS <= 0 || (t.WidthNS != 1<<62 && (t.WidthNS%rule.W != 0 || bits.OnesCount64(uint64(t.WidthNS/rule.W)) != 1)) {
		v.fail(path+".width_ns", "%d is not the window of rule %s (%d ns) times a power of two", t.WidthNS, r.Rule, rule.W)
		return
	}
	n := len(t.Requests)
	if n > MaxTimelineBins {
		v.fail(path+".requests", "%d bins, more than %d", n, MaxTimelineBins)
	}
	if len(t.Over) != n || len(t.Under) != n {
		v.fail(path, "requests, over and under have %d, %d and %d bins, want the same number", n, len(t.Over), len(t.Under))
	}
	if len(t.Memory) > n {
		v.fail(path+".memory", "%d bins, more than requests' %d", len(t.Memory), n)
	}
	if v.err != nil {
		return
	}
	for _, s := range []struct {
		name   string
		bins   []int64
		total  string
		figure int64
	}{{"requests", t.Requests, "requests", r.Requests}, {"over", t.Over, "over", r.Over}, {"under", t.Under, "under", r.Under}} {
		if sum, ok := v.counts(path+"."+s.name, s.bins); ok && sum != s.figure {
			v.fail(path+"."+s.name, "the bins add up to %d, but the run's %s is %d", sum, s.total, s.figure)
		}
	}
	v.counts(path+".memory", t.Memory)
	for i := range t.Requests {
		if t.Over[i] > t.Requests[i]-t.Under[i] {
			v.fail(fmt.Sprintf("%s.over[%d]", path, i), "over %d and under %d are more than the bin's %d requests", t.Over[i], t.Under[i], t.Requests[i])
			return
		}
	}
}

// TimelineBins is a Timeline being taken or merged: requests, over- and
// under-admissions per time bin. Bins are aligned to t = 0 and their width
// is the window times a power of two, so that it depends only on the
// trace's span, and two timelines merge by re-binning to the wider of their
// widths.
//
// Memory and each series of Held sample state at the last instant of each
// bin (its end, (First+i+1)*Width - 1): Memory is Timeline.Memory, Held
// are further series the engine keeps (per candidate, the keys holding
// state). Samples are additive over keys, so they merge by addition too. A
// sample is a function of its instant alone, and the ends of a wider
// grid's bins are ends of the narrower's, so widening keeps the samples at
// the wider bins' ends.
type TimelineBins struct {
	Width                 int64
	First                 int64 // index of bin 0
	Requests, Over, Under []int64
	Memory                []int64
	Held                  [][]int64
}

// timelineBinsOf returns the bins a timeline was closed from, its memory
// series where state samples are kept.
func timelineBinsOf(t Timeline) TimelineBins {
	return TimelineBins{Width: t.WidthNS, First: t.First, Requests: t.Requests, Over: t.Over, Under: t.Under, Memory: t.Memory}
}

// Widen doubles the bin width, folding pairs of bins; state samples keep
// the ends of the wider bins (the ends of the odd bins) and drop the rest.
func (a *TimelineBins) Widen() {
	if a.Width > 1<<61 {
		a.Width = 1 << 62 // one bin holds every time
		return
	}
	nw := 2 * a.Width
	nfirst := (a.First * a.Width) / nw
	fold := func(src []int64) []int64 {
		dst := make([]int64, 0, len(src)/2+1)
		for i, c := range src {
			j := int((a.First+int64(i))*a.Width/nw - nfirst)
			dst = slicesx.Grow(dst, j+1)
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
			if b := a.First + int64(i); b%2 == 1 {
				j := int(b/2 - nfirst)
				dst = slicesx.Grow(dst, j+1)
				dst[j] = c
			}
		}
		return dst
	}
	a.Requests, a.Over, a.Under = fold(a.Requests), fold(a.Over), fold(a.Under)
	a.Memory = keep(a.Memory)
	for i := range a.Held {
		a.Held[i] = keep(a.Held[i])
	}
	a.Width, a.First = nw, nfirst
}

// Merge adds timeline o into a: both are re-binned to the wider width,
// then widened further while the union spans too many bins, exactly as one
// pass over both traces would have. A timeline without requests adds
// nothing.
func (a *TimelineBins) Merge(o TimelineBins) {
	if len(o.Requests) == 0 {
		return
	}
	if len(a.Requests) == 0 {
		*a = o.clone()
		return
	}
	o = o.clone()
	for a.Width < o.Width {
		a.Widen()
	}
	for o.Width < a.Width {
		o.Widen()
	}
	for max(a.First+int64(len(a.Requests)), o.First+int64(len(o.Requests)))-1-min(a.First, o.First) >= MaxTimelineBins {
		a.Widen()
		o.Widen()
	}
	first := min(a.First, o.First)
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
	a.Requests = sum(a.Requests, o.Requests, a.First, o.First)
	a.Over = sum(a.Over, o.Over, a.First, o.First)
	a.Under = sum(a.Under, o.Under, a.First, o.First)
	a.Memory = sum(a.Memory, o.Memory, a.First, o.First)
	a.Held = slicesx.Grow(a.Held, len(o.Held))
	for i := range o.Held {
		a.Held[i] = sum(a.Held[i], o.Held[i], a.First, o.First)
	}
	a.First = first
}

func (a TimelineBins) clone() TimelineBins {
	c := a
	for _, s := range []*[]int64{&c.Requests, &c.Over, &c.Under, &c.Memory} {
		*s = append([]int64(nil), (*s)...)
	}
	c.Held = make([][]int64, len(a.Held))
	for i, h := range a.Held {
		c.Held[i] = append([]int64(nil), h...)
	}
	return c
}

// Timeline returns the counts as a Timeline, without its memory series
// (see Memory.Fill and TrimZeros).
func (a *TimelineBins) Timeline() Timeline {
	return Timeline{WidthNS: a.Width, First: a.First, Requests: nonNil(a.Requests), Over: nonNil(a.Over), Under: nonNil(a.Under)}
}

func nonNil(s []int64) []int64 {
	if s == nil {
		return []int64{}
	}
	return s
}
