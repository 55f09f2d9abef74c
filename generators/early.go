package generators

import (
	"math"
	"math/rand/v2"
	"slices"
)

func init() {
	register(&Scenario{
		Name: "early",
		About: "traffic clustered at the start of each window (the sliding-window counter's rigid case): " +
			"in every window each key sends burst requests uniformly within the first head of the window",
		Params: []Param{
			{Name: "head", Default: 0.1, About: "fraction of the window, from its start, in which the requests fall (at least 1 ns)", Min: 0, Max: 1},
			{Name: "burst", Default: 0, About: "requests per key per window, at most requests (0: round(rate*window), at least 1)",
				Min: 0, Max: noMax, Whole: true},
		},
		load: func(p Params, v values) (load, error) {
			burst, what := v["burst"], "burst="+ftoa(v["burst"])
			if burst == 0 {
				burst = max(math.Round(p.Rate*p.Window.Seconds()), 1)
				what = "rate " + ftoa(p.Rate) + " with window " + p.Window.String() + " (burst 0: rate*window per window)"
			}
			l := load{mean: burst / p.Window.Seconds(), pending: burst,
				held: "burst = " + ftoa(burst) + " timestamps per key in each window"}
			return l, checkBurst(what, burst, p)
		},
		build: func(p Params, v values, _ int, rng *rand.Rand) source {
			burst := int(v["burst"])
			if burst <= 0 {
				burst = max(int(math.Round(p.Rate*p.Window.Seconds())), 1)
			}
			return &early{rng: rng, w: int64(p.Window), head: earlyHead(v["head"], p.Window.Nanoseconds()), burst: burst, start: p.Start}
		},
	})
}

// earlyHead is the span, in ns, at the start of a window of w ns that the
// requests fall in.
func earlyHead(head float64, w int64) int64 {
	if !(head > 0) {
		return 1
	}
	return max(int64(min(head, 1)*float64(w)), 1)
}

// early emits, in each window [start, start+w), burst requests uniformly
// in [start, start+head).
type early struct {
	rng   *rand.Rand
	w     int64
	head  int64
	burst int
	start int64   // the next window to fill
	queue []int64 // the current window's requests, sorted
	i     int     // next of queue to emit
}

func (s *early) next() int64 {
	if s.i == len(s.queue) {
		if s.start > never-s.w {
			return never
		}
		s.queue, s.i = s.queue[:0], 0
		for range s.burst {
			s.queue = append(s.queue, s.start+s.rng.Int64N(s.head))
		}
		slices.Sort(s.queue)
		s.start += s.w
	}
	s.i++
	return s.queue[s.i-1]
}
