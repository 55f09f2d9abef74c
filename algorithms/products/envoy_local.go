package products

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"
	"time"

	"ratebench/algorithms"
)

func init() {
	algorithms.Register(algorithms.Kind{Spec: "envoy-local[:max=N:fill=N:interval=D:phase=D]", Place: 3, About: "Envoy's local rate limit filter: max tokens (default L), fill tokens every interval (>= 50ms, default the exact L/W), one token per request",
		Build: func(c algorithms.Call, r algorithms.Rule) (algorithms.Limiter, error) {
			return newEnvoyLocalSpec(c.Spec, c.Arg, c.HasArg, r)
		}})
}

// EnvoyLocal is Envoy's local rate limit filter (github.com/envoyproxy/envoy,
// source/extensions/filters/common/local_ratelimit/local_ratelimit_impl.cc
// at commit 016c0c8007133da7f1b1e22a1809f76fa40ae912), one token bucket per
// key (a descriptor per key), modelled exactly from the source:
//
//   - The bucket is filled by a timer, not lazily: the constructor refuses a
//     fill_interval below 50 ms (lines 89-91), fills the bucket to
//     max_tokens and arms the timer for fill_interval (lines 93-100), and
//     each firing adds tokens_per_fill, capped at max_tokens:
//     new_tokens_value = std::min(bucket.max_tokens_, expected_tokens +
//     tokens_per_fill) (onFillTimerHelper, line 183), then re-arms itself
//     (onFillTimer, lines 156-166). fill_interval is whole milliseconds
//     (a std::chrono::milliseconds, line 79).
//   - A request is allowed iff the bucket holds a token: `if
//     (expected_tokens == 0) return false`, else it takes one token
//     (requestAllowedHelper, lines 208-222). A request takes one token
//     whatever its cost: the filter has no hits_addend at this commit.
//
// The model fires the timer at the instants phase + k*fill_interval of the
// trace's clock (k any integer): the configuration is taken to have loaded
// at a time congruent to phase, before the trace (default phase 0: at the
// multiples of fill_interval from the trace's time 0; keys interact through
// no other state, so the phase is the same for every key and independent of
// which key comes first). A firing at the instant of a request comes first.
// Every key starts full, as a descriptor does when the configuration loads
// (line 125), and a full bucket stays full. The timer's drift (it is
// re-armed after each callback) is not modelled. In shadow mode the harness
// may record a request without a token; the bucket then owes it (negative
// tokens), as token does, which the product's uint32 never does.
//
// Default mapping of a rule L/W: max_tokens = L, and the smallest
// tokens_per_fill with tokens_per_fill/fill_interval = L/W exactly, the
// interval a whole number of milliseconds of at least 50 ms; a rule with no
// such pair (or one needing tokens_per_fill > L, whose fills the cap would
// cut) is refused.
//
// As a Product its twin is token:B=max, the continuous token bucket of
// rate tokens_per_fill/fill_interval, when that rate is the rule's L/W (as
// by default; otherwise no spec expresses it and Twin is ""). Its
// deviations:
//
//   - timer-fill: tokens come in whole fills at the timer's ticks, not
//     continuously (off: the bucket refills tokens_per_fill per
//     fill_interval continuously, as token on that rate).
//   - one-token: a request takes one token whatever its cost, and passes
//     with one token in the bucket (off: it needs and takes cost tokens).
//
// Memory: the token count and the timer's tick of its last update, 16 bytes
// per key.
type EnvoyLocal struct {
	algorithms.DeviationSet
	max, fill, interval, phase int64
	named                      bool // parameters given explicitly
	st                         algorithms.PerKey[envoyLocalState]
	twin                       string
	tk                         *algorithms.Token // the continuous bucket, without timer-fill
}

const (
	envoyLocalTimerFill = iota
	envoyLocalOneToken
)

// envoyLocalState is a key's deficit max_tokens - tokens (the zero value is
// a full bucket) and the index of the last timer tick applied to it.
type envoyLocalState struct {
	deficit, tick int64
}

// envoyLocalMinInterval is the shortest fill_interval Envoy accepts.
const envoyLocalMinInterval = 50 * int64(time.Millisecond)

// NewEnvoyLocal returns the local rate limit filter with max_tokens max,
// tokens_per_fill fill every interval ns, ticking at phase mod interval.
func NewEnvoyLocal(max, fill, interval, phase int64) (*EnvoyLocal, error) {
	switch {
	case max < 1 || fill < 1:
		return nil, fmt.Errorf("algorithm \"envoy-local\": max and fill must be positive integers")
	case max+fill > 1<<32-1:
		return nil, fmt.Errorf("algorithm \"envoy-local\": max+fill must stay within Envoy's 32-bit token count")
	case interval%int64(time.Millisecond) != 0 || interval < envoyLocalMinInterval:
		return nil, fmt.Errorf("algorithm \"envoy-local\": the fill interval must be a whole number of milliseconds, at least 50ms, not %s", algorithms.FormatWindow(interval))
	case phase < 0 || phase >= interval:
		return nil, fmt.Errorf("algorithm \"envoy-local\": the phase must be in [0, interval)")
	}
	el := &EnvoyLocal{max: max, fill: fill, interval: interval, phase: phase}
	el.SetDeviations(
		algorithms.Deviation{Name: "timer-fill", About: "adds tokens_per_fill at each tick of a timer every fill_interval, not continuously"},
		algorithms.Deviation{Name: "one-token", About: "a request takes one token whatever its cost, and passes with one token left"})
	el.tk = algorithms.NewToken(algorithms.Rule{L: fill, W: interval}, max)
	return el, nil
}

// EnvoyLocalFill returns the default tokens_per_fill and fill_interval for
// rule r: the smallest tokens_per_fill n with n*W/L a whole number of
// milliseconds of at least 50 ms, or an error when n would exceed L.
func EnvoyLocalFill(r algorithms.Rule) (fill, interval int64, err error) {
	ms := int64(time.Millisecond)
	// n*W/L whole ms <=> n*W divisible by L*ms <=> n a multiple of
	// L*ms/GCD(W, L*ms). L*ms below 2^63 for L < 9.2e12.
	bad := fmt.Errorf("algorithm \"envoy-local\": the rule %s has no tokens_per_fill <= %d with a fill interval of whole milliseconds, at least 50ms; give envoy-local:max=N:fill=N:interval=D", r, r.L)
	if r.L > (1<<63-1)/ms {
		return 0, 0, bad
	}
	lm := r.L * ms
	step := lm / algorithms.GCD(r.W, lm)
	for n := step; n <= r.L; n += step {
		q, _, ok := algorithms.DivMod(n, r.W, r.L) // exact: n*W divisible by L
		if !ok {
			break
		}
		if q >= envoyLocalMinInterval {
			return n, q, nil
		}
	}
	return 0, 0, bad
}

// newEnvoyLocalSpec reads the parameters of envoy-local[:max=N:fill=N:
// interval=D:phase=D] for rule r.
func newEnvoyLocalSpec(spec, arg string, hasArg bool, r algorithms.Rule) (algorithms.Limiter, error) {
	max, fill, interval, phase := r.L, int64(0), int64(0), int64(0)
	if hasArg {
		for _, kv := range strings.Split(arg, ":") {
			k, v, _ := strings.Cut(strings.TrimSpace(kv), "=")
			var err error
			switch k {
			case "max", "fill":
				var n int64
				n, err = strconv.ParseInt(v, 10, 64)
				if err == nil && n < 1 {
					err = fmt.Errorf("not positive")
				}
				if k == "max" {
					max = n
				} else {
					fill = n
				}
			case "interval", "phase":
				var d time.Duration
				d, err = time.ParseDuration(v)
				if k == "interval" {
					if err == nil && d <= 0 { // else 0 would read as none given: the rule's default
						return nil, fmt.Errorf("algorithm %q: %s: the fill interval must be a whole number of milliseconds, at least 50ms", spec, kv)
					}
					interval = int64(d)
				} else {
					phase = int64(d)
				}
			default:
				err = fmt.Errorf("unknown")
			}
			if err != nil {
				return nil, fmt.Errorf("algorithm %q: want envoy-local[:max=N:fill=N:interval=D:phase=D] with N positive integers and D durations (%q)", spec, kv)
			}
		}
	}
	if (fill == 0) != (interval == 0) {
		return nil, fmt.Errorf("algorithm %q: give fill and interval together", spec)
	}
	if fill == 0 {
		var err error
		if fill, interval, err = EnvoyLocalFill(r); err != nil {
			return nil, err
		}
	}
	el, err := NewEnvoyLocal(max, fill, interval, phase)
	if err != nil {
		return nil, err
	}
	el.named = hasArg
	if hi, lo := bits.Mul64(uint64(fill), uint64(r.W)); hi == 0 && lo < 1<<63 {
		if hi2, lo2 := bits.Mul64(uint64(r.L), uint64(interval)); hi2 == hi && lo2 == lo {
			el.twin = algorithms.BucketSpec("token", max, r) // the rule's rate
		}
	}
	return el, nil
}

// Twin is token:B=max when the fill rate is the rule's, else "".
func (el *EnvoyLocal) Twin() string { return el.twin }

func (el *EnvoyLocal) Name() string {
	if !el.named {
		return "envoy-local" + el.Suffix()
	}
	s := "envoy-local:max=" + itoa(el.max) + ":fill=" + itoa(el.fill) + ":interval=" + algorithms.FormatWindow(el.interval)
	if el.phase != 0 {
		s += ":phase=" + algorithms.FormatWindow(el.phase)
	}
	return s + el.Suffix()
}

// Grow grows the timer's buckets, or the continuous one without timer-fill.
func (el *EnvoyLocal) Grow(n int) {
	if el.OnAt(envoyLocalTimerFill) {
		el.st.Grow(n)
	} else {
		el.tk.Grow(n)
	}
}

func (*EnvoyLocal) Bytes(int32) int64    { return 16 }
func (*EnvoyLocal) FixedSize() bool      { return true }
func (*EnvoyLocal) CountsRejected() bool { return false }

// Params returns max_tokens, tokens_per_fill, fill_interval and phase.
func (el *EnvoyLocal) Params() (max, fill, interval, phase int64) {
	return el.max, el.fill, el.interval, el.phase
}

// refill applies the timer's ticks in (last, t]: the tick index of t is
// floor((t-phase)/interval); each tick adds fill tokens up to max.
func (el *EnvoyLocal) refill(s *envoyLocalState, t int64) {
	n := algorithms.FloorDiv(t-el.phase, el.interval)
	if k := n - s.tick; k > 0 && s.deficit > 0 {
		if k >= (s.deficit+el.fill-1)/el.fill { // ceil(deficit/fill) ticks fill it
			s.deficit = 0
		} else {
			s.deficit -= k * el.fill // k*fill < deficit: no overflow
		}
	}
	if n > s.tick || s.deficit == 0 {
		s.tick = n
	}
}

// tokens returns what a request of cost takes: one (one-token), or cost.
func (el *EnvoyLocal) tokens(cost int64) int64 {
	if el.OnAt(envoyLocalOneToken) {
		return 1
	}
	return cost
}

// Decide admits iff the bucket holds the tokens the request takes: for one
// token, tokens > 0.
func (el *EnvoyLocal) Decide(id int32, t, cost int64) bool {
	c := el.tokens(cost)
	if !el.OnAt(envoyLocalTimerFill) {
		return el.tk.Decide(id, t, c)
	}
	s := el.st.At(id)
	el.refill(s, t)
	return c <= el.max-s.deficit // for c = 1: tokens > 0
}

func (el *EnvoyLocal) Record(id int32, t, cost int64) {
	c := el.tokens(cost)
	if !el.OnAt(envoyLocalTimerFill) {
		el.tk.Record(id, t, c)
		return
	}
	s := el.st.At(id)
	el.refill(s, t)
	s.deficit = algorithms.SatAdd(s.deficit, c)
}

// Idle: the bucket is full at t.
func (el *EnvoyLocal) Idle(id int32, t int64) bool {
	if !el.OnAt(envoyLocalTimerFill) {
		return el.tk.Idle(id, t)
	}
	s := el.st.At(id)
	el.refill(s, t)
	return s.deficit == 0
}

func (el *EnvoyLocal) Release(id int32) {
	if !el.OnAt(envoyLocalTimerFill) {
		el.tk.Release(id)
		return
	}
	*el.st.At(id) = envoyLocalState{}
}

func (el *EnvoyLocal) Warm(id int32) uint64 {
	if !el.OnAt(envoyLocalTimerFill) {
		return el.tk.Warm(id)
	}
	return uint64(el.st.At(id).deficit)
}
