package compare

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"ratebench/summary"
)

// A timeline keeps every request whatever the order and span, in at most
// summary.MaxTimelineBins bins of a power-of-two multiple of W aligned to t = 0.
func TestTimeline(t *testing.T) {
	t.Parallel()
	const w = 1000
	rng := rand.New(rand.NewPCG(1, 2))
	for _, span := range []int64{10 * w, 512 * w, 513 * w, 1_000_000 * w} {
		a := newTimelineAcc(w)
		var over int64
		base := int64(5_000_000_000)
		for i := range 5000 {
			tt := base + rng.Int64N(span) // not in time order: keys interleave
			o := int64(i % 7 / 6)
			over += o
			a.add(tt, 1, o, 0)
		}
		s := a.Timeline()
		if len(s.Requests) > summary.MaxTimelineBins || len(s.Requests) != len(s.Over) {
			t.Fatalf("span %d: %d bins", span, len(s.Requests))
		}
		var n, no int64
		for i := range s.Requests {
			n += s.Requests[i]
			no += s.Over[i]
		}
		if n != 5000 || no != over {
			t.Errorf("span %d: %d requests, %d over; want 5000, %d", span, n, no, over)
		}
		if s.WidthNS%w != 0 || (s.WidthNS/w)&(s.WidthNS/w-1) != 0 {
			t.Errorf("width %d is not W times a power of two", s.WidthNS)
		}
		if span <= 511*w && s.WidthNS != w {
			t.Errorf("span %d fits 512 bins of W, but width is %d", span, s.WidthNS)
		}
	}
}

// A run's timeline made of its group's requests and its own
// disagreements, counted only where it disagrees, is the timeline that
// counts every request in the run: over spans that widen the bins or not,
// in any order, with disagreements clustered in a corner of the span or
// absent.
func TestTimelineSharedRequests(t *testing.T) {
	t.Parallel()
	const w = 1000
	rng := rand.New(rand.NewPCG(3, 4))
	for _, span := range []int64{10 * w, 512 * w, 513 * w, 1_000_000 * w} {
		for _, share := range []int{0, 1, 50} { // percent of requests disagreeing, in the span's first tenth
			whole := newTimelineAcc(w)
			group := newTimelineAcc(w)
			run := newTimelineAcc(w)
			run.group = group
			base := int64(7_000_000_000)
			for range 5000 {
				tt := base + rng.Int64N(span)
				var over, under int64
				if tt-base < span/10 && rng.IntN(100) < share {
					if rng.IntN(2) == 0 {
						over = 1
					} else {
						under = 1
					}
				}
				whole.add(tt, 1, over, under)
				group.add(tt, 1, 0, 0)
				run.observe(&observation{t: tt, admit: under == 0, ref: over == 0})
			}
			end := base + span + 3*w
			whole.cover(end)
			group.cover(end)
			var got, want summary.Run
			run.close(&got, nil)
			whole.close(&want, nil)
			if !reflect.DeepEqual(got.Timeline, want.Timeline) {
				t.Errorf("span %d, %d%% disagreeing: shared %+v, counted in the run %+v", span, share, got.Timeline, want.Timeline)
			}
		}
	}
}
