package generators

import (
	"math"
	"math/rand/v2"
)

// paretoMinAlpha is the smallest tail index pareto accepts: the mean gap,
// and so the rate, exist only for alpha > 1.
const paretoMinAlpha = 1.05

func init() {
	register(&Scenario{
		Name: "pareto",
		About: "heavy-tailed inter-arrival times: each key is a renewal process with Pareto(xm, alpha) gaps, " +
			"xm = (alpha-1)/(alpha*rate) so the mean gap is 1/rate; long silences between dense clusters " +
			"(below alpha 2 the gap variance is infinite)",
		Params: []Param{
			{Name: "alpha", Default: 1.5, About: "tail index: P(gap > x) = (xm/x)^alpha for x >= xm; the mean gap exists above 1, and alpha must be at least 1.05",
				Min: paretoMinAlpha, Max: noMax},
		},
		load: steady,
		build: func(p Params, v values, _ int, rng *rand.Rand) source {
			alpha := v["alpha"]
			s := &pareto{rng: rng, xm: (alpha - 1) / (alpha * p.Rate) * 1e9, alpha: alpha, base: p.Start}
			s.t = s.gap()
			return s
		},
	})
}

// pareto is a renewal process with Pareto gaps; times are ns since base.
type pareto struct {
	rng       *rand.Rand
	xm, alpha float64 // of the gaps, xm in ns
	base      int64
	t         float64 // next request
}

// gap draws a Pareto(xm, alpha) gap: exactly what gonum's
// distuv.Pareto{Xm: xm, Alpha: alpha, Src: rng}.Rand() returns (see expGap).
func (s *pareto) gap() float64 { return s.xm * math.Exp(s.rng.ExpFloat64()/s.alpha) }

func (s *pareto) next() int64 {
	t := offsetTime(s.base, s.t)
	s.t += s.gap()
	return t
}
