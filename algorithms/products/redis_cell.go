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
	algorithms.Register(algorithms.Kind{Spec: "redis-cell[:burst=N]", Place: 13, About: "redis-cell's CL.THROTTLE: GCRA in nanoseconds, max_burst N (default L-1, so L at once), emission interval period/count truncated, the period whole seconds",
		Build: func(c algorithms.Call, r algorithms.Rule) (algorithms.Limiter, error) {
			return newRedisCellSpec(c.Spec, c.Arg, c.HasArg, r)
		}})
}

// RedisCell is redis-cell's CL.THROTTLE command, modelled from
// github.com/brandur/redis-cell at commit
// 4d4233870d3caa7cf51ee90b0ee778d12969e99a (line numbers below are that
// version's), called as CL.THROTTLE key max_burst count period [quantity]
// with the request's cost as quantity.
//
// # Configuration (src/lib.rs:42-62, src/cell/mod.rs:32-44, 76-85)
//
// period is whole seconds (parse_i64, then time::Duration::seconds,
// lib.rs:45, 55). The emission interval is (ns as f64 / count as f64) as
// i64 (mod.rs:42): the float quotient truncated to whole nanoseconds, equal
// to floor(ns/count) while ns < 2^53 (104 days), and a zero interval is an
// error (mod.rs:109-111). The delay variation tolerance is that interval
// times max_burst + 1 (mod.rs:78-80), and the limit reported is
// max_burst + 1 (line 82): max_burst + 1 requests pass at once.
//
// Default mapping of a rule L/W: max_burst = L-1, count = L, period = W/1s
// (a W that is not whole seconds is refused, naming a rule of the same rate
// that is); "redis-cell:burst=N" sets max_burst = N.
//
// # Decision (RateLimiter::rate_limit, mod.rs:97-237)
//
// now is the system clock in nanoseconds (OffsetDateTime::now_utc,
// store.rs:210), here the trace's time. With T the emission interval and
// DVT = T*(max_burst+1), for quantity q:
//
//	increment = T*q                                  (mod.rs:113-115)
//	tat = stored value, or now for a new key         (mod.rs:139-144)
//	new_tat = max(now, tat) + increment              (mod.rs:153-157)
//	limited iff now - (new_tat - DVT) < 0            (mod.rs:167-175)
//
// that is admitted iff max(tat-now, 0) + T*q <= T*(max_burst+1): the GCRA
// with emission interval T and burst max_burst+1. A limited request stores
// nothing (mod.rs:186-188, break before the compare-and-swap); an admitted
// one stores new_tat (mod.rs:191-215). The model is gcra:B=max_burst+1 on
// the rule 1/T (one request per T ns), which is exactly this arithmetic.
//
// Retry-After: retry_after = -diff, the exact time to the admission, when
// increment <= DVT (mod.rs:182-184), as RetryAfter returns it; CL.THROTTLE
// replies in whole seconds, adding one when the remainder has at least a
// whole millisecond (lib.rs:66-72: subsec_milliseconds() > 0), so a
// remainder under 1 ms is rounded down. That changes no decision.
//
// Not modelled: the key's TTL, new_tat - now truncated to whole
// milliseconds (src/redis/mod.rs:347), which may drop a key up to a
// millisecond or two (Redis's millisecond clock) before its TAT, so that a
// request in that instant starts from now rather than from the TAT; and
// i64 overflow of T*quantity (New refuses T*(max_burst+1) >= 2^63).
//
// # Deviations from gcra:B=max_burst+1
//
//   - truncation: the emission interval is period/count truncated to whole
//     nanoseconds, so the rate is slightly above L/W when W/L is not a
//     whole number of nanoseconds (off: the exact W/L).
//
// Memory: the TAT, 8 bytes per key (a Redis string holding the decimal
// nanoseconds, with a TTL).
type RedisCell struct {
	algorithms.DeviationSet
	rule     algorithms.Rule
	burst    int64 // max_burst
	named    bool  // burst given
	interval int64 // the emission interval as CL.THROTTLE computes it
	g        *algorithms.GCRA
}

const redisCellTruncation = 0

// NewRedisCell returns CL.THROTTLE for rule r with max_burst burst (< 0:
// the default L-1).
func NewRedisCell(r algorithms.Rule, burst int64) (*RedisCell, error) {
	rc := &RedisCell{rule: r, burst: burst, named: burst >= 0}
	if burst < 0 {
		rc.burst = r.L - 1
	}
	if r.W%int64(time.Second) != 0 {
		s := int64(time.Second) / algorithms.GCD(r.W, int64(time.Second))
		hint := ""
		if hi, lo := bits.Mul64(uint64(r.L), uint64(s)); hi == 0 && lo < 1<<63 {
			if hi, lo := bits.Mul64(uint64(r.W), uint64(s)); hi == 0 && lo < 1<<63 {
				hint = fmt.Sprintf(" (%s has the same rate)", algorithms.Rule{L: r.L * s, W: r.W * s})
			}
		}
		return nil, fmt.Errorf("algorithm \"redis-cell\": CL.THROTTLE's period is a whole number of seconds, not %s: give a rule whose window is whole seconds%s", algorithms.FormatWindow(r.W), hint)
	}
	rc.interval = int64(float64(r.W) / float64(r.L)) // mod.rs:42
	if rc.interval == 0 {
		return nil, fmt.Errorf("algorithm \"redis-cell\": rule %s: the emission interval period/count truncates to 0 ns, which CL.THROTTLE refuses (\"Zero rates are not supported\")", r)
	}
	if hi, lo := bits.Mul64(uint64(rc.interval), uint64(rc.burst)+1); hi != 0 || lo >= 1<<63 {
		return nil, fmt.Errorf("algorithm \"redis-cell\": the burst %d times the emission interval overflows CL.THROTTLE's 64-bit nanoseconds", rc.burst)
	}
	rc.SetDeviations(algorithms.Deviation{Name: "truncation", About: "the emission interval W/L is truncated to whole nanoseconds (by float64 division), a rate slightly above L/W"})
	rc.build()
	return rc, nil
}

// newRedisCellSpec reads redis-cell[:burst=N].
func newRedisCellSpec(spec, arg string, hasArg bool, r algorithms.Rule) (algorithms.Limiter, error) {
	burst := int64(-1)
	if hasArg {
		v, ok := strings.CutPrefix(strings.TrimSpace(arg), "burst=")
		n, err := strconv.ParseInt(v, 10, 64)
		if !ok || err != nil || n < 0 || n >= 1<<62 {
			return nil, fmt.Errorf("algorithm %q: want redis-cell:burst=N with N max_burst, a whole number (0 admits one request at once)", spec)
		}
		burst = n
	}
	return NewRedisCell(r, burst)
}

// build makes the GCRA that decides: on the rule 1/T with T the truncated
// interval, or on the rule itself without truncation.
func (rc *RedisCell) build() {
	if rc.OnAt(redisCellTruncation) {
		rc.g = algorithms.NewGCRA(algorithms.Rule{L: 1, W: rc.interval}, rc.burst+1)
	} else {
		rc.g = algorithms.NewGCRA(rc.rule, rc.burst+1)
	}
}

// Without turns a deviation off and rebuilds the GCRA (before Grow).
func (rc *RedisCell) Without(name string) error {
	if err := rc.DeviationSet.Without(name); err != nil {
		return err
	}
	rc.build()
	return nil
}

func (rc *RedisCell) Name() string {
	s := "redis-cell"
	if rc.named {
		s += ":burst=" + itoa(rc.burst)
	}
	return s + rc.Suffix()
}

func (rc *RedisCell) Twin() string { return algorithms.BucketSpec("gcra", rc.burst+1, rc.rule) }

// Interval returns the emission interval in ns as CL.THROTTLE computes it.
func (rc *RedisCell) Interval() int64 { return rc.interval }

func (rc *RedisCell) Grow(n int)                       { rc.g.Grow(n) }
func (*RedisCell) Bytes(int32) int64                   { return 8 }
func (*RedisCell) FixedSize() bool                     { return true }
func (*RedisCell) CountsRejected() bool                { return false }
func (rc *RedisCell) Decide(id int32, t, c int64) bool { return rc.g.Decide(id, t, c) }
func (rc *RedisCell) Record(id int32, t, c int64)      { rc.g.Record(id, t, c) }
func (rc *RedisCell) Idle(id int32, t int64) bool      { return rc.g.Idle(id, t) }
func (rc *RedisCell) Release(id int32)                 { rc.g.Release(id) }
func (rc *RedisCell) Warm(id int32) uint64             { return rc.g.Warm(id) }

// RetryAfter is retry_after, the exact time the request would pass.
func (rc *RedisCell) RetryAfter(id int32, t, cost int64) (int64, bool) {
	return rc.g.RetryAfter(id, t, cost)
}
