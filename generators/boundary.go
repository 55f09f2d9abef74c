package generators

import (
	"math"
	"math/rand/v2"
	"slices"
)

func init() {
	register(&Scenario{
		Name: "boundary",
		About: "an attacker that knows the window: around every window edge each key sends a burst just before it and one just after it; " +
			"the fixed window's 2x case and the counter's blind spot",
		Params: []Param{
			{Name: "burst", Default: 0, About: "requests on each side of an edge, at most requests (0: rate*window/2, so that the mean rate is rate)",
				Min: 0, Max: noMax, Whole: true},
			{Name: "spread", Default: 0.05, About: "how close to the edge, as a fraction of the window: requests fall within spread*window of it " +
				"(at most 0.5, so that the bursts of two edges do not overlap; 0: within 1 ns)", Min: 0, Max: 0.5},
		},
		load: func(p Params, v values) (load, error) {
			burst, what := v["burst"], "burst="+ftoa(v["burst"])
			if burst == 0 {
				burst = max(math.Floor(p.Rate*p.Window.Seconds()/2+0.5), 1)
				what = "rate " + ftoa(p.Rate) + " with window " + p.Window.String() + " (burst 0: rate*window/2 on each side of an edge)"
			}
			l := load{mean: 2 * burst / p.Window.Seconds(), pending: 2 * burst,
				held: "2*burst = " + ftoa(2*burst) + " timestamps per key at each window edge"}
			return l, checkBurst(what, burst, p)
		},
		build: func(p Params, v values, _ int, rng *rand.Rand) source {
			burst := int(v["burst"])
			if burst <= 0 {
				burst = max(int(p.Rate*p.Window.Seconds()/2+0.5), 1)
			}
			spread := max(int64(v["spread"]*float64(p.Window)), 1)
			return &boundary{rng: rng, w: int64(p.Window), burst: burst, spread: spread, edge: p.Start + int64(p.Window)}
		},
	})
}

// boundary emits, around each window edge, burst requests uniformly in
// [edge - spread, edge) and burst in [edge, edge + spread).
type boundary struct {
	rng    *rand.Rand
	w      int64
	burst  int
	spread int64
	edge   int64   // the next edge to attack
	queue  []int64 // times of the current edge's requests, sorted
	i      int     // next of queue to emit
}

func (s *boundary) next() int64 {
	if s.i == len(s.queue) {
		if s.edge > never-s.spread { // past the representable future
			return never
		}
		s.queue, s.i = s.queue[:0], 0
		for range s.burst {
			s.queue = append(s.queue, s.edge-1-s.rng.Int64N(s.spread), s.edge+s.rng.Int64N(s.spread))
		}
		slices.Sort(s.queue)
		if s.edge > never-s.w {
			s.edge = never
		} else {
			s.edge += s.w
		}
	}
	s.i++
	return s.queue[s.i-1]
}
