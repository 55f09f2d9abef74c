package generators

import (
	"math/rand/v2"
)

func init() {
	register(&Scenario{
		Name:  "poisson",
		About: "constant-rate sources: exponential gaps of mean 1/rate per key",
		load:  steady,
		// With more keys than requests, the sources that send are drawn
		// without the others (addPoissonFirsts).
		memoryless: true,
		build: func(p Params, _ values, _ int, rng *rand.Rand) source {
			a := newExpArrivals(p.Start, p.Rate, rng)
			return &a
		},
	})
}
