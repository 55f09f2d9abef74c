package generators

import (
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"
)

func init() {
	register(&Scenario{
		Name: "population",
		About: "a large population of sources whose rates follow a heavy-tailed (Pareto) distribution with mean rate: " +
			"most stay well under any limit, a few cross it (the model of Cloudflare's 400M requests from 270,000 sources); " +
			"each source is Poisson at its own rate",
		Params: []Param{
			{"alpha", 1.5, "Pareto tail index of the per-source rates (> 1; smaller is heavier): P(rate > x) = (xm/x)^alpha, xm = rate*(alpha-1)/alpha"},
			{"max", 1000, "cap on a source's rate, as a multiple of the mean rate (0: no cap)"},
		},
		build: func(p Params, v values, _ int, rng *rand.Rand) source {
			alpha := max(v["alpha"], 1.05)
			r := distuv.Pareto{Xm: p.Rate * (alpha - 1) / alpha, Alpha: alpha, Src: rng}.Rand()
			if c := v["max"]; c > 0 {
				r = min(r, c*p.Rate)
			}
			a := newExpArrivals(p.Start, r, distuv.Exponential{Src: rng})
			return &a
		},
	})
}
