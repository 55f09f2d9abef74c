package generators

import (
	"math/rand/v2"
	"slices"
)

func init() {
	register(&Scenario{
		Name: "boundary",
		About: "an attacker that knows the window: at every window edge each key sends a burst just before it and one just after it " +
			"(within window/20 of the edge); burst = rate*window/2, so the mean rate is still rate",
		build: func(p Params, _ values, _ int, rng *rand.Rand) source {
			burst := int(p.Rate*p.Window.Seconds()/2 + 0.5)
			return &boundary{rng: rng, w: int64(p.Window), burst: max(burst, 1), edge: p.Start + int64(p.Window)}
		},
	})
}

// boundary emits, around each window edge, burst requests uniformly in
// [edge - W/20, edge) and burst in [edge, edge + W/20).
type boundary struct {
	rng   *rand.Rand
	w     int64
	burst int
	edge  int64   // the next edge to attack
	queue []int64 // times of the current edge's requests, sorted
	i     int     // next of queue to emit
}

func (s *boundary) next() int64 {
	if s.i == len(s.queue) {
		s.queue, s.i = s.queue[:0], 0
		spread := max(s.w/20, 1)
		for range s.burst {
			s.queue = append(s.queue, s.edge-1-s.rng.Int64N(spread), s.edge+s.rng.Int64N(spread))
		}
		slices.Sort(s.queue)
		s.edge += s.w
	}
	s.i++
	return s.queue[s.i-1]
}
