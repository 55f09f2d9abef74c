package compare

// maxTimelineBins bounds the bins of a timeline; past it the bin width
// doubles.
const maxTimelineBins = 512

// timelineAcc counts requests, over- and under-admissions per time bin.
// Bins are aligned to t = 0 and their width is the window times a power of
// two, so that it depends only on the trace's span, and two timelines merge
// by re-binning to the wider of their widths.
type timelineAcc struct {
	width                 int64
	first                 int64 // index of bin 0
	requests, over, under []int64
}

func newTimelineAcc(w int64) timelineAcc { return timelineAcc{width: w} }

// add counts one request at t; dOver and dUnder are 0 or 1.
func (a *timelineAcc) add(t int64, dOver, dUnder int64) {
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
		a.requests = append(make([]int64, pad), a.requests...)
		a.over = append(make([]int64, pad), a.over...)
		a.under = append(make([]int64, pad), a.under...)
		a.first = b
	}
	i := int(b - a.first)
	if i >= len(a.requests) {
		n := i + 1
		a.requests, a.over, a.under = grow(a.requests, n), grow(a.over, n), grow(a.under, n)
	}
	a.requests[i]++
	a.over[i] += dOver
	a.under[i] += dUnder
}

// widen doubles the bin width, folding pairs of bins.
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
	a.requests, a.over, a.under = fold(a.requests), fold(a.over), fold(a.under)
	a.width, a.first = nw, nfirst
}

func (a *timelineAcc) summary() Timeline {
	return Timeline{WidthNS: a.width, First: a.first, Requests: nonNil(a.requests), Over: nonNil(a.over), Under: nonNil(a.under)}
}

func nonNil(s []int64) []int64 {
	if s == nil {
		return []int64{}
	}
	return s
}
