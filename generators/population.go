package generators

import (
	"math"
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
			{Name: "alpha", Default: 1.5, About: "Pareto tail index of the per-source rates (at least 1.05; smaller is heavier): " +
				"P(rate > x) = (xm/x)^alpha, xm = rate*(alpha-1)/alpha", Min: paretoMinAlpha, Max: noMax},
			{Name: "max", Default: 1000, About: "cap on a source's rate, as a multiple of the mean rate; max*rate at most 1e9 " +
				"(0: no cap below 1e9 per second)", Min: 0, Max: noMax},
		},
		load: func(p Params, v values) (load, error) {
			alpha, c := v["alpha"], v["max"]*p.Rate
			if c == 0 {
				c = MaxRate
			}
			// The mean of min(X, c), X Pareto(xm, alpha): xm + the
			// integral of (xm/x)^alpha from xm to c.
			mean, xm := c, p.Rate*(alpha-1)/alpha
			if c > xm {
				mean = xm * (1 + (1-math.Pow(xm/c, alpha-1))/(alpha-1))
			}
			what := "rate " + ftoa(p.Rate) + " with max=" + ftoa(v["max"]) + ", max*rate for the fastest source"
			return load{mean: mean}, checkPeak(what, c)
		},
		build: func(p Params, v values, _ int, rng *rand.Rand) source {
			alpha := v["alpha"]
			r := distuv.Pareto{Xm: p.Rate * (alpha - 1) / alpha, Alpha: alpha, Src: rng}.Rand()
			if c := v["max"]; c > 0 {
				r = min(r, c*p.Rate)
			} else {
				r = min(r, MaxRate)
			}
			a := newExpArrivals(p.Start, r, rng)
			return &a
		},
	})
}
