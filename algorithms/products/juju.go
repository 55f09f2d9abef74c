package products

import (
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"
	"time"

	"ratebench/algorithms"
)

func init() {
	algorithms.Register(algorithms.Kind{Spec: "juju[:rate][:capacity=N][:quantum=N:interval=D]", Place: 11, About: "github.com/juju/ratelimit: quantum tokens every whole interval from the key's first request, capacity N (default L, and the exact rate L/W; rate: as NewBucketWithRate, within 1%)",
		Build: func(c algorithms.Call, r algorithms.Rule) (algorithms.Limiter, error) {
			return newJujuSpec(c.Spec, c.Arg, c.HasArg, r)
		}})
}

// Juju is github.com/juju/ratelimit v1.0.2 (commit
// f60b32039441cd828005f82f3a54aafd00bc9882), one Bucket per key created at
// the key's first request, a request admitted iff TakeMaxDuration(cost, 0)
// reports true; modelled exactly from ratelimit.go:
//
//   - The bucket starts full (availableTokens = capacity) at startTime, the
//     clock's Now() when it is created (NewBucketWithQuantumAndClock, lines
//     143-165).
//   - Time is whole ticks from the start: tick = (now - startTime) /
//     fillInterval (currentTick, lines 305-307), and each tick adds quantum
//     tokens, capped at capacity (adjustavailableTokens, lines 312-323): the
//     tokens come in quanta at the ticks, not continuously.
//   - take (lines 275-301) admits iff availableTokens - count >= 0 after the
//     adjustment, and then takes count tokens; otherwise the wait until
//     endTick is positive (the next tick is after now), so with maxWait 0 it
//     reports false and takes nothing. A count <= 0 is admitted untouched
//     (lines 276-278). TakeAvailable(1) == 0 (lines 229-242) decides alike
//     for cost 1.
//
// Default mapping of a rule L/W: capacity L and the exact rate with the
// smallest quantum, quantum = L/GCD(W, L) tokens every fillInterval =
// W/GCD(W, L) (quantum 1 every W/L when W/L is a whole number of
// nanoseconds, as NewBucketWithQuantum(W/L, L, 1)). juju:rate maps it as
// NewBucketWithRate(L per W in seconds, L) does instead: the first quantum
// of 1, 1.1, 1.21, ... (nextQuantum, lines 125-131) with fillInterval =
// time.Duration(1e9*quantum/rate) whose rate 1e9*quantum/fillInterval is
// within 1% of the asked one (lines 104-120), which for most rules is not
// exactly L/W (then Twin is ""). juju:capacity=N:quantum=N:interval=D gives
// the bucket's parameters.
//
// Deviations from token:B=capacity (under a rate quantum/fillInterval equal
// to L/W): "anchor" (off: ticks counted from the epoch) and "whole-interval"
// (off: tokens refilled continuously at quantum/fillInterval, as
// token; anchor then changes nothing). With both off it decides as token.
//
// Memory: the Bucket, 88 bytes per key on 64-bit (clock 16, startTime 24,
// capacity, quantum, fillInterval, a mutex, availableTokens, latestTick 8
// each).
type Juju struct {
	algorithms.DeviationSet
	rule                    algorithms.Rule
	capacity, quantum, fill int64
	name                    string
	cont                    *algorithms.Token // the continuous refill, "whole-interval" off
	st                      algorithms.PerKey[jujuState]
}

// jujuState is a key's bucket: its start, latest tick and tokens; seen is
// false before the first request.
type jujuState struct {
	start, tick, avail int64
	seen               bool
}

const (
	jujuAnchor = iota
	jujuWhole
)

// NewJuju returns the bucket with capacity, quantum tokens every fill ns.
func NewJuju(r algorithms.Rule, capacity, quantum, fill int64) (*Juju, error) {
	if capacity < 1 || quantum < 1 || fill < 1 {
		return nil, fmt.Errorf("algorithm \"juju\": capacity, quantum and interval must be positive")
	}
	j := &Juju{rule: r, capacity: capacity, quantum: quantum, fill: fill,
		cont: algorithms.NewToken(algorithms.Rule{L: quantum, W: fill}, capacity)}
	j.SetDeviations(
		algorithms.Deviation{Name: "anchor", About: "counts its fill intervals from the key's first request (the bucket's creation), not from the epoch"},
		algorithms.Deviation{Name: "whole-interval", About: "adds its tokens in quanta at the end of each whole fill interval, not continuously"},
	)
	j.name = "juju:capacity=" + itoa(capacity) + ":quantum=" + itoa(quantum) + ":interval=" + algorithms.FormatWindow(fill)
	return j, nil
}

// JujuExact returns the default mapping of rule r: quantum L/GCD(W, L)
// every W/GCD(W, L).
func JujuExact(r algorithms.Rule) (quantum, fill int64) {
	g := algorithms.GCD(r.W, r.L)
	return r.L / g, r.W / g
}

// JujuRate returns the quantum and fill interval NewBucketWithRate chooses
// for rate tokens per second (ratelimit.go:104-120), in its float64
// operations, or an error where it panics.
func JujuRate(rate float64) (quantum, fill int64, err error) {
	for q := int64(1); q < 1<<50; q = jujuNextQuantum(q) {
		fi := time.Duration(1e9 * float64(q) / rate)
		if fi <= 0 {
			continue
		}
		if got := 1e9 * float64(q) / float64(fi); math.Abs(got-rate)/rate <= 0.01 {
			return q, int64(fi), nil
		}
	}
	return 0, 0, fmt.Errorf("algorithm \"juju:rate\": NewBucketWithRate finds no quantum for %g tokens per second", rate)
}

func jujuNextQuantum(q int64) int64 {
	q1 := q * 11 / 10
	if q1 == q {
		q1++
	}
	return q1
}

// newJujuSpec reads juju[:rate][:capacity=N][:quantum=N:interval=D].
func newJujuSpec(spec, arg string, hasArg bool, r algorithms.Rule) (algorithms.Limiter, error) {
	capacity, quantum, fill, rate := r.L, int64(0), int64(0), false
	if hasArg {
		for _, kv := range strings.Split(arg, ":") {
			k, v, _ := strings.Cut(strings.TrimSpace(kv), "=")
			var err error
			switch k {
			case "rate":
				if v != "" {
					err = fmt.Errorf("no value")
				}
				rate = true
			case "capacity", "quantum":
				var n int64
				if n, err = strconv.ParseInt(v, 10, 64); err == nil && n < 1 {
					err = fmt.Errorf("not positive")
				}
				if k == "capacity" {
					capacity = n
				} else {
					quantum = n
				}
			case "interval":
				var d time.Duration
				if d, err = time.ParseDuration(v); err == nil && d <= 0 {
					err = fmt.Errorf("not positive")
				}
				fill = int64(d)
			default:
				err = fmt.Errorf("unknown")
			}
			if err != nil {
				return nil, fmt.Errorf("algorithm %q: want juju[:rate][:capacity=N][:quantum=N:interval=D] with N positive integers and D a positive duration (%q)", spec, kv)
			}
		}
	}
	if (quantum == 0) != (fill == 0) {
		return nil, fmt.Errorf("algorithm %q: give quantum and interval together", spec)
	}
	if rate && quantum != 0 {
		return nil, fmt.Errorf("algorithm %q: rate chooses the quantum and interval; give either", spec)
	}
	switch {
	case rate:
		var err error
		if quantum, fill, err = JujuRate(float64(r.L) / (float64(r.W) / 1e9)); err != nil {
			return nil, err
		}
	case quantum == 0:
		quantum, fill = JujuExact(r)
	}
	j, err := NewJuju(r, capacity, quantum, fill)
	if err != nil {
		return nil, err
	}
	if !hasArg {
		j.name = "juju"
	} else if rate && capacity == r.L {
		j.name = "juju:rate"
	}
	return j, nil
}

func (j *Juju) Name() string { return j.name + j.Suffix() }

// Twin is token:B=capacity when quantum/fillInterval is exactly L/W.
func (j *Juju) Twin() string {
	h1, l1 := bits.Mul64(uint64(j.quantum), uint64(j.rule.W))
	h2, l2 := bits.Mul64(uint64(j.rule.L), uint64(j.fill))
	if h1 != h2 || l1 != l2 {
		return ""
	}
	return algorithms.BucketSpec("token", j.capacity, j.rule)
}

// Params returns capacity, quantum and fillInterval.
func (j *Juju) Params() (capacity, quantum, fill int64) { return j.capacity, j.quantum, j.fill }

func (j *Juju) Grow(n int) {
	j.st.Grow(n)
	j.cont.Grow(n)
}

func (*Juju) Bytes(int32) int64    { return 88 }
func (*Juju) FixedSize() bool      { return true }
func (*Juju) CountsRejected() bool { return false }
func (j *Juju) Warm(id int32) uint64 {
	if !j.OnAt(jujuWhole) {
		return j.cont.Warm(id)
	}
	return uint64(j.st.At(id).avail)
}

// adjust creates the bucket at the key's first request and adds the ticks'
// quanta (adjustavailableTokens).
func (j *Juju) adjust(s *jujuState, t int64) {
	if !s.seen {
		*s = jujuState{start: t, avail: j.capacity, seen: true}
		if !j.OnAt(jujuAnchor) {
			s.start = 0
		}
		s.tick = algorithms.FloorDiv(t-s.start, j.fill)
		return
	}
	tick := algorithms.FloorDiv(t-s.start, j.fill)
	last := s.tick
	s.tick = tick
	if s.avail >= j.capacity {
		return
	}
	// (tick-last)*quantum, capped: the short tokens need
	// ceil(short/quantum) = (short-1)/quantum + 1 ticks.
	short := j.capacity - s.avail
	if d := tick - last; d > (short-1)/j.quantum {
		s.avail = j.capacity
	} else {
		s.avail += d * j.quantum
	}
}

func (j *Juju) Decide(id int32, t, cost int64) bool {
	if !j.OnAt(jujuWhole) {
		return j.cont.Decide(id, t, cost)
	}
	s := j.st.At(id)
	j.adjust(s, t)
	return cost <= 0 || s.avail-cost >= 0
}

func (j *Juju) Record(id int32, t, cost int64) {
	if !j.OnAt(jujuWhole) {
		j.cont.Record(id, t, cost)
		return
	}
	s := j.st.At(id)
	j.adjust(s, t)
	if cost > 0 {
		s.avail -= cost
	}
}
