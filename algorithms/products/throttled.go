package products

import (
	"fmt"
	"strconv"
	"strings"

	"ratebench/algorithms"
)

func init() {
	algorithms.Register(algorithms.Kind{Spec: "throttled[:burst=N]", Place: 8, About: "throttled/throttled v2 with its memory store: GCRA in integer ns, emission interval W/L truncated, MaxBurst N (default L-1) admitting N+1 at once",
		Build: func(c algorithms.Call, r algorithms.Rule) (algorithms.Limiter, error) {
			return NewThrottled(r, c.Arg, c.HasArg)
		}})
}

// Throttled is github.com/throttled/throttled/v2 v2.15.0 (module sum
// h1:7XLCECtmEx+Yz/e5opBNff9cPGpH0ia0xEj5kyDPotI=; line numbers below are
// that version's rate.go; the decision lines are the same at commit
// 9e814f2763334cb3ce7b72a17b6c4052105922e6 of throttled/throttled, v2.13.0,
// which lacks only the quantity-0 peek), GCRARateLimiterCtx over its memory
// store, with RateQuota{MaxRate: PerDuration(L, W), MaxBurst: M}. The spec
// is "throttled[:burst=M]", M = MaxBurst (default L-1).
//
// # Configuration (rate.go lines 118, 150-165)
//
// PerDuration(L, W) keeps period = W / L as a time.Duration: whole
// nanoseconds, truncated (line 118). NewGCRARateLimiterCtx sets
// emissionInterval = period and delayVariationTolerance =
// period * (MaxBurst + 1) (line 159): MaxBurst + 1 requests at once, so
// that MaxBurst = L-1 admits L, the burst of GCRA with B = L. A period of
// 0 (W < L nanoseconds) is refused by the library (line 154), and here.
//
// # Decision (RateLimitCtx, lines 183-274)
//
//	tat = stored TAT, or now if none                      (lines 197-206)
//	increment = quantity * emissionInterval                (line 215)
//	newTat = max(tat, now) + increment                     (lines 216-220)
//	allowAt = newTat - delayVariationTolerance             (line 223)
//	refused iff now - allowAt < 0                          (line 224)
//
// all in integer nanoseconds. A refused request breaks out before the store
// is touched (lines 229-232; CountsRejected is false); an admitted one
// stores newTat (lines 245-249). So it admits iff
// max(tat, now) - now + cost*period <= (MaxBurst+1)*period: GCRA with
// B = MaxBurst + 1 and the emission interval period. The twin is
// gcra:B=MaxBurst+1. The memory store (store/memstore/memstore.go) ignores
// the TTL (lines 77-80, 109-112) and takes its clock from SetTimeNow (line
// 59), so now is the trace's time, exact to the nanosecond.
//
// # Deviations
//
//   - rate-truncation: the emission interval W/L truncated to whole
//     nanoseconds; off, exact W/L.
//
// The library's int64 nanoseconds would wrap where cost*period or the TAT
// passes 2^63 ns (past 2262); the model keeps GCRA's 128-bit TAT there.
//
// Memory: 8 bytes per key, the TAT as int64 nanoseconds (the memory store
// keeps a *int64 per key in a map, with the key's string).
type Throttled struct {
	algorithms.DeviationSet
	rule     algorithms.Rule
	maxBurst int64
	named    bool
	trunc    *algorithms.GCRA // GCRA with emission interval period, burst MaxBurst+1
	exact    *algorithms.GCRA // GCRA with W/L, burst MaxBurst+1
}

// Deviation indices of Throttled.
const throttledTruncation = 0

// NewThrottled returns throttled for rule r from the parameters of the
// spec "throttled[:burst=M]" (arg is what follows "throttled:").
func NewThrottled(r algorithms.Rule, arg string, hasArg bool) (*Throttled, error) {
	th := &Throttled{rule: r, maxBurst: r.L - 1}
	if hasArg {
		v, ok := strings.CutPrefix(strings.TrimSpace(arg), "burst=")
		n, err := strconv.ParseInt(v, 10, 64)
		if !ok || err != nil || n < 0 || n >= 1<<62 {
			return nil, fmt.Errorf("algorithm \"throttled:%s\": want throttled:burst=N with N, MaxBurst, a whole number from 0 to %d", arg, int64(1)<<62-1)
		}
		th.maxBurst, th.named = n, true
	}
	period := r.W / r.L
	if period == 0 {
		return nil, fmt.Errorf("algorithm throttled: rule %s: W/L is below one nanosecond, a rate throttled refuses (its period is whole nanoseconds)", r)
	}
	th.SetDeviations(
		algorithms.Deviation{Name: "rate-truncation", About: "the emission interval W/L truncated to whole nanoseconds (PerDuration), so it admits slightly faster than the rule"},
	)
	b := th.maxBurst + 1
	th.trunc = algorithms.NewGCRA(algorithms.Rule{L: 1, W: period}, b)
	th.exact = algorithms.NewGCRA(r, b)
	return th, nil
}

func (th *Throttled) Name() string {
	name := "throttled"
	if th.named {
		name += ":burst=" + itoa(th.maxBurst)
	}
	return name + th.Suffix()
}

// Twin is GCRA with B = MaxBurst + 1 under the same rule.
func (th *Throttled) Twin() string { return algorithms.BucketSpec("gcra", th.maxBurst+1, th.rule) }

// core is the GCRA the product runs with its deviations as set.
func (th *Throttled) core() *algorithms.GCRA {
	if th.OnAt(throttledTruncation) {
		return th.trunc
	}
	return th.exact
}

// Period returns the emission interval as throttled keeps it, W/L truncated.
func (th *Throttled) Period() int64 { return th.trunc.Rule().W }

// MaxBurst returns RateQuota.MaxBurst.
func (th *Throttled) MaxBurst() int64 { return th.maxBurst }

func (th *Throttled) Grow(n int)                       { th.core().Grow(n) }
func (*Throttled) Bytes(int32) int64                   { return 8 }
func (*Throttled) FixedSize() bool                     { return true }
func (*Throttled) CountsRejected() bool                { return false }
func (th *Throttled) Decide(id int32, t, c int64) bool { return th.core().Decide(id, t, c) }

// Record stores newTat, as an admission does (lines 245-249). A refused
// request is not recorded by the library; recording one (shadow mode)
// stores it the same way.
func (th *Throttled) Record(id int32, t, c int64) { th.core().Record(id, t, c) }
func (th *Throttled) Warm(id int32) uint64        { return th.core().Warm(id) }
func (th *Throttled) Idle(id int32, t int64) bool { return th.core().Idle(id, t) }
func (th *Throttled) Release(id int32)            { th.core().Release(id) }
