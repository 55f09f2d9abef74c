package generators

import (
	"fmt"
	"math"
	"math/rand/v2"
)

func init() {
	register(&Scenario{
		Name: "diurnal",
		About: "a daily cycle: Poisson requests whose rate follows rate(t) = rate*(1 + amplitude*sin(2π((t-start)/period + phase))), " +
			"the same phase for every key, drawn by thinning a Poisson process at the peak rate",
		Params: []Param{
			{Name: "period", Default: 86400, About: "length of the cycle, seconds, at least 0.001 (0: no modulation)", Min: 0, Max: maxSeconds},
			{Name: "amplitude", Default: 0.8, About: "relative swing of the rate around its mean", Min: 0, Max: 1},
			{Name: "phase", Default: 0, About: "where in the cycle the trace starts, as a fraction of the period, taken modulo 1 (0: rising through the mean)",
				Min: -noMax, Max: noMax},
		},
		load: func(p Params, v values) (load, error) {
			period, amp := v["period"], v["amplitude"]
			if period == 0 {
				return load{mean: p.Rate}, nil
			}
			if period < 1e-3 {
				return load{}, fmt.Errorf("period=%s: a cycle must last at least 0.001 s (0: no modulation)", ftoa(period))
			}
			what := "rate " + ftoa(p.Rate) + " with amplitude=" + ftoa(amp) + ", rate*(1+amplitude) at the peak"
			return load{mean: p.Rate}, checkPeak(what, p.Rate*(1+amp))
		},
		build: func(p Params, v values, _ int, rng *rand.Rand) source {
			period, amp, phase := v["period"], v["amplitude"], v["phase"]
			if !(period > 0) {
				period, amp = 1, 0
			}
			s := &diurnal{
				cand:  p.Rate * (1 + amp) / 1e9,
				rng:   rng,
				base:  p.Start,
				omega: 2 * math.Pi / (period * 1e9),
				phi:   2 * math.Pi * (phase - math.Floor(phase)),
				amp:   amp,
			}
			return s
		},
	})
}

// diurnal thins a Poisson process at the peak rate (Lewis and Shedler): a
// candidate at t is kept with probability rate(t)/peak. Times are ns since
// base.
type diurnal struct {
	cand  float64 // rate per ns of the candidates, the peak rate rate*(1+amp)
	rng   *rand.Rand
	base  int64
	t     float64 // the last candidate
	omega float64 // radians per ns
	phi   float64 // radians
	amp   float64
}

func (s *diurnal) next() int64 {
	for {
		s.t += expGap(s.rng, s.cand)
		if s.amp == 0 || s.rng.Float64()*(1+s.amp) < 1+s.amp*math.Sin(s.omega*s.t+s.phi) {
			return offsetTime(s.base, s.t)
		}
	}
}
