package generators

import (
	"math/rand/v2"
	"slices"
)

func init() {
	register(&Scenario{
		Name: "boundary",
		About: "an attacker that knows the window: around every window edge each key sends a burst just before it and one just after it; " +
			"the fixed window's 2x case and the counter's blind spot",
		Params: []Param{
			{"burst", 0, "requests on each side of an edge (0: rate*window/2, so that the mean rate is rate)"},
			{"spread", 0.05, "how close to the edge, as a fraction of the window: requests fall within spread*window of it"},
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
		s.queue, s.i = s.queue[:0], 0
		for range s.burst {
			s.queue = append(s.queue, s.edge-1-s.rng.Int64N(s.spread), s.edge+s.rng.Int64N(s.spread))
		}
		slices.Sort(s.queue)
		s.edge += s.w
	}
	s.i++
	return s.queue[s.i-1]
}
