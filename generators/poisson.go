package generators

import (
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"
)

func init() {
	register(&Scenario{
		Name:  "poisson",
		About: "constant-rate sources: exponential gaps of mean 1/rate per key",
		build: func(p Params, _ values, _ int, rng *rand.Rand) source {
			s := &poisson{gap: distuv.Exponential{Rate: p.Rate, Src: rng}}
			s.t = float64(p.Start) + s.gap.Rand()*1e9
			return s
		},
	})
}

// poisson is a Poisson process of rate p.Rate per second.
type poisson struct {
	gap distuv.Exponential // in seconds
	t   float64            // next time, ns (float to keep sub-ns gaps)
}

func (s *poisson) next() int64 {
	t := int64(s.t)
	s.t += s.gap.Rand() * 1e9
	return t
}
