package generators

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"ratebench/internal/minheap"
)

func init() {
	register(&Scenario{
		Name: "retry",
		About: "a retry storm: Poisson background at rate, and every `every` seconds (the first at every/2) all keys at once send a spike " +
			"of burst requests within 1 ms, each re-sent retries times with exponential backoff and jitter: " +
			"burst*(1+retries) requests per key per spike on top of the background",
		Params: []Param{
			{Name: "every", Default: 300, About: "seconds between spikes, the first at every/2, at least 0.001 (0: no spikes, background only)",
				Min: 0, Max: maxSeconds},
			{Name: "burst", Default: 10, About: "requests each key sends at each spike, within 1 ms, at most requests", Min: 0, Max: noMax, Whole: true},
			{Name: "retries", Default: 4, About: "times each spike request is re-sent, at most requests", Min: 0, Max: noMax, Whole: true},
			{Name: "base", Default: 1, About: "delay of the first retry after the original request, seconds, before jitter", Min: 0, Max: maxSeconds},
			{Name: "factor", Default: 2, About: "backoff growth: the i-th retry (i = 1..retries) comes base*factor^(i-1)*(1+jitter*U) after the attempt before it, " +
				"U uniform in [0,1) (1: fixed backoff)", Min: 0, Max: noMax},
			{Name: "jitter", Default: 0.5, About: "relative random extra delay of each retry, see factor (0: none)", Min: 0, Max: noMax},
		},
		load: func(p Params, v values) (load, error) {
			every, burst, retries := v["every"], v["burst"], v["retries"]
			if every > 0 && every < 1e-3 {
				return load{}, fmt.Errorf("every=%s: spikes must come at least 0.001 s (the length of one) apart (0: no spikes)", ftoa(every))
			}
			if every == 0 || burst == 0 {
				return load{mean: p.Rate}, nil
			}
			if err := checkBurst("burst="+ftoa(burst), burst, p); err != nil {
				return load{}, err
			}
			if err := checkBurst("retries="+ftoa(retries)+" re-sending each request", retries, p); err != nil {
				return load{}, err
			}
			// A spike's attempts are pending until its last retry, at most
			// (1+jitter)*base*(1+factor+...+factor^(retries-1)) after it,
			// so they overlap those of that many spikes more; but no more
			// than come in the trace, which lasts at most as long as these
			// keys take to send requests with their background and spike
			// requests alone (or the duration).
			f := v["factor"]
			sum := retries
			if f != 1 {
				sum = (math.Pow(f, retries) - 1) / (f - 1)
			}
			last := (1 + v["jitter"]) * v["base"] * sum // seconds
			span := float64(p.Requests) / (float64(p.Keys) * (p.Rate + burst/every))
			if end, ok := p.limited(); ok {
				span = min(span, float64(end-p.Start)/1e9)
			}
			perSpike := burst * (1 + retries)
			l := load{mean: p.Rate + perSpike/every}
			l.pending = perSpike * (1 + math.Floor(min(last, span)/every))
			l.held = "burst*(1+retries) = " + ftoa(perSpike) + " attempts per key at each spike"
			if l.pending > perSpike {
				l.held += fmt.Sprintf(", pending over %.4g spikes at once (a spike's retries last up to %.4g s)", l.pending/perSpike, last)
			}
			return l, nil
		},
		build: func(p Params, v values, _ int, rng *rand.Rand) source {
			s := &retry{
				rng:    rng,
				bg:     newExpArrivals(p.Start, p.Rate, rng),
				every:  int64(v["every"] * 1e9),
				burst:  int(v["burst"]),
				jitter: v["jitter"],
				spike:  never,
			}
			if s.every > 0 && s.burst > 0 {
				s.spike = p.Start + s.every/2
				base, factor := v["base"]*1e9, v["factor"]
				for i := range int(v["retries"]) {
					s.delay = append(s.delay, base*math.Pow(factor, float64(i)))
				}
			}
			s.bgT = s.bg.next()
			return s
		},
	})
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
	pend   []int64 // attempts of past spikes not yet emitted, a min-heap
}

func (s *retry) next() int64 {
	for {
		head := int64(never)
		if len(s.pend) > 0 {
			head = s.pend[0]
		}
		first := min(head, s.bgT)
		if s.spike <= first && s.spike != never {
			s.storm() // a spike's attempts all come at or after it
			continue
		}
		if head <= s.bgT {
			if head != never {
				s.pop()
			}
			return head
		}
		s.bgT = s.bg.next()
		return first
	}
}

// storm adds the attempts of the spike at s.spike to the pending ones.
func (s *retry) storm() {
	for range s.burst {
		// Attempts past the end of int64 time never come: they are not
		// kept (but their random draws are made all the same).
		t := offsetTime(s.spike, float64(s.rng.Int64N(int64(time.Millisecond))))
		if t != never {
			s.push(t)
		}
		for _, d := range s.delay {
			if t = offsetTime(t, d*(1+s.jitter*s.rng.Float64())); t != never {
				s.push(t)
			}
		}
	}
	if s.spike > never-s.every {
		s.spike = never
	} else {
		s.spike += s.every
	}
}

// push adds t to the pending attempts: a time of equal attempts does not
// depend on which of them is taken first, so a heap emits what a sorted
// list would, without sorting every pending attempt at every spike.
func (s *retry) push(t int64) { s.pend = minheap.Push(s.pend, t, cmp.Less[int64]) }

// pop removes the earliest pending attempt.
func (s *retry) pop() { _, s.pend = minheap.Pop(s.pend, cmp.Less[int64]) }
