package generators

import (
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"gonum.org/v1/gonum/stat/distuv"
)

func init() {
	register(&Scenario{
		Name: "retry",
		About: "a retry storm: Poisson background at rate, and every `every` seconds (the first at every/2) all keys at once send a spike " +
			"of burst requests within 1 ms, each re-sent retries times with exponential backoff and jitter: " +
			"burst*(1+retries) requests per key per spike on top of the background",
		Params: []Param{
			{"every", 300, "seconds between spikes, the first at every/2 (<= 0: no spikes, background only)"},
			{"burst", 10, "requests each key sends at each spike, within 1 ms"},
			{"retries", 4, "times each spike request is re-sent"},
			{"base", 1, "delay of the first retry after the original request, seconds, before jitter"},
			{"factor", 2, "backoff growth: the i-th retry (i = 1..retries) comes base*factor^(i-1)*(1+jitter*U) after the attempt before it, U uniform in [0,1) (1: fixed backoff)"},
			{"jitter", 0.5, "relative random extra delay of each retry, see factor (0: none)"},
		},
		build: func(p Params, v values, _ int, rng *rand.Rand) source {
			s := &retry{
				rng:    rng,
				bg:     newExpArrivals(p.Start, p.Rate, distuv.Exponential{Src: rng}),
				every:  int64(v["every"] * 1e9),
				burst:  int(max(v["burst"], 0)),
				jitter: nonNeg(v["jitter"]),
				spike:  never,
			}
			if s.every > 0 && s.burst > 0 {
				s.spike = p.Start + s.every/2
			}
			base, factor := nonNeg(v["base"])*1e9, nonNeg(v["factor"])
			for i := range int(max(v["retries"], 0)) {
				s.delay = append(s.delay, base*math.Pow(factor, float64(i)))
			}
			s.bgT = s.bg.next()
			return s
		},
	})
}

// nonNeg returns x, or 0 when x is negative or NaN.
func nonNeg(x float64) float64 {
	if !(x >= 0) {
		return 0
	}
	return x
}

// retry merges a Poisson background with the pending attempts of the
// spikes so far.
type retry struct {
	rng    *rand.Rand
	bg     expArrivals
	bgT    int64 // the next background request
	spike  int64 // the next spike, or never
	every  int64
	burst  int
	delay  []float64 // base delay of the i-th retry, ns
	jitter float64
	pend   []int64 // attempts of past spikes not yet emitted, sorted from i on
	i      int
}

func (s *retry) next() int64 {
	for {
		head := int64(never)
		if s.i < len(s.pend) {
			head = s.pend[s.i]
		}
		first := min(head, s.bgT)
		if s.spike <= first && s.spike != never {
			s.storm() // a spike's attempts all come at or after it
			continue
		}
		if head <= s.bgT {
			if head != never {
				s.i++
			}
			return head
		}
		s.bgT = s.bg.next()
		return first
	}
}

// storm adds the attempts of the spike at s.spike to the pending ones.
func (s *retry) storm() {
	n := copy(s.pend, s.pend[s.i:])
	s.pend, s.i = s.pend[:n], 0
	for range s.burst {
		t := s.spike + s.rng.Int64N(int64(time.Millisecond))
		s.pend = append(s.pend, t)
		for _, d := range s.delay {
			t = offsetTime(t, d*(1+s.jitter*s.rng.Float64()))
			s.pend = append(s.pend, t)
		}
	}
	slices.Sort(s.pend)
	if s.spike > never-s.every {
		s.spike = never
	} else {
		s.spike += s.every
	}
}
