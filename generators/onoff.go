package generators

import (
	"math/rand/v2"
)

func init() {
	register(&Scenario{
		Name: "onoff",
		About: "bursty sources, a two-state MMPP: each key alternates exponential on and off periods, sending Poisson " +
			"requests at rate*(on+off)/on while on and none while off, so its long-run rate is rate; " +
			"each key starts on with the stationary probability on/(on+off)",
		Params: []Param{
			{Name: "on", Default: 10, About: "mean on period, seconds", Min: 1e-3, Max: maxSeconds},
			{Name: "off", Default: 50, About: "mean off period, seconds (0: always on, plain Poisson)", Min: 0, Max: maxSeconds},
		},
		load: func(p Params, v values) (load, error) {
			on, off := v["on"], v["off"]
			what := "rate " + ftoa(p.Rate) + " with on=" + ftoa(on) + " and off=" + ftoa(off) + ", rate*(on+off)/on while on"
			return load{mean: p.Rate}, checkPeak(what, p.Rate*(on+off)/on)
		},
		build: func(p Params, v values, _ int, rng *rand.Rand) source {
			on, off := v["on"], v["off"]
			rateOn := p.Rate * (on + off) / on // per second
			s := &onoff{
				rng:     rng,
				gapRate: rateOn / 1e9,
				onRate:  1 / (on * 1e9),
				offRate: 1 / (off * 1e9), // off = 0: rate +Inf, periods of 0
				base:    p.Start,
			}
			if rng.Float64() >= on/(on+off) { // starts off: by memorylessness its rest is a whole period
				s.t = expGap(rng, s.offRate)
			}
			d := expGap(rng, s.onRate)
			s.end, s.onNs = s.t+d, d
			return s
		},
	})
}

// onoff is a Poisson process switched on and off by a two-state Markov
// chain. Times are ns since base.
type onoff struct {
	rng                      *rand.Rand
	gapRate, onRate, offRate float64 // per ns: of the gaps while on, of the on and off periods
	base                     int64
	t                        float64 // the last request, or the start of the current on period
	end                      float64 // end of the current on period
	onNs                     float64 // total length of the on periods drawn so far (tests read it)
}

func (s *onoff) next() int64 {
	for {
		// The gap drawn from the start of an on period, or from the last
		// request, is exponential either way (memoryless).
		if t := s.t + expGap(s.rng, s.gapRate); t < s.end {
			s.t = t
			return offsetTime(s.base, t)
		}
		s.t = s.end + expGap(s.rng, s.offRate)
		d := expGap(s.rng, s.onRate)
		s.end = s.t + d
		s.onNs += d
		if s.t >= float64(never-s.base) { // past the representable future
			return never
		}
	}
}
