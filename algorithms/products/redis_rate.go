package products

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"ratebench/algorithms"
)

func init() {
	algorithms.Register(algorithms.Kind{Spec: "redis_rate[:burst=N]", Place: 7, About: "go-redis/redis_rate v10: GCRA in a Lua script on float64 seconds from Redis TIME (microseconds), Limit{Rate: L, Period: W, Burst: N (default L)}",
		Build: func(c algorithms.Call, r algorithms.Rule) (algorithms.Limiter, error) {
			return NewRedisRate(r, c.Arg, c.HasArg)
		}})
}

// RedisRate is github.com/go-redis/redis_rate/v10 v10.0.1 (repository
// go-redis/redis_rate, tag v10.0.1 at commit
// 8eadf45ee4d9d7a53189c2a968ead40521a76322; line numbers below are that
// version's, the same in the module), Limiter.AllowN
// with Limit{Rate: L, Burst: B, Period: W}: GCRA in its Lua script, on
// float seconds from Redis TIME. The spec is "redis_rate[:burst=N]"
// (default B = L, as PerSecond/PerMinute/PerHour set it, rate.go lines
// 51-73).
//
// # Arguments (rate.go lines 95-102)
//
// AllowN sends ARGV = {Burst, Rate, Period.Seconds(), n}: Period.Seconds()
// is float64(W/1e9) + float64(W%1e9)/1e9, written by go-redis with
// strconv.FormatFloat(f, 'f', -1, 64) and read back by the script's Lua
// (its numbers are IEEE doubles) exactly.
//
// # Decision (lua.go lines 7-65, the allowN script)
//
//	emission_interval = period / rate                     (line 17)
//	increment = emission_interval * cost                  (line 18)
//	burst_offset = emission_interval * burst              (line 19)
//	now = (TIME[1] - 1483228800) + (TIME[2] / 1000000)    (lines 28-30)
//	tat = GET key, or now if none; tat = max(tat, now)    (lines 32-40)
//	new_tat = tat + increment                             (line 42)
//	allow_at = new_tat - burst_offset                     (line 43)
//	diff = now - allow_at; remaining = diff / emission_interval (45-46)
//	refused iff remaining < 0                             (line 48)
//
// A refused request returns before anything is stored (lines 48-57;
// CountsRejected is false). An admitted one stores new_tat with
// SET key new_tat EX ceil(new_tat - now), but only if new_tat - now > 0
// (lines 59-62): with cost >= 1 that fails only when the increment is
// lost to rounding. Lua passes the number to SET as a decimal string that
// reads back as the same double (Redis: %.17g, or fpconv_dtoa from 7.0;
// gopher-lua, as in miniredis: fmt.Sprint), so the stored TAT is new_tat.
// Model: the same float64 operations in the same order (each product
// rounded by an explicit conversion, so that no multiply-add is fused).
// TIME is the trace's time floored to whole microseconds (seconds and
// microseconds as Redis's gettimeofday gives them).
//
// With exact arithmetic, remaining < 0 iff max(tat, now) - now + cost*W/L >
// B*W/L: refused iff GCRA with burst B refuses (its test is <=, so the
// edge new_tat - now = B*W/L admits in both). The twin is gcra:B=B.
//
// What the float64 arithmetic changes: every TAT is rounded to the spacing
// of doubles near now (2^-24 s, about 60 ns, from 2025 to 2033), so a
// backlog built by repeated increments can round past burst_offset: at
// 3,000,016 s after 2017, PerSecond(5) admits 4 requests at once, not 5.
// And an emission interval below half that spacing (W/L under about 30 ns)
// is lost altogether: new_tat = now, new_tat - now = 0, nothing is stored
// and every request is admitted.
//
// The key's expiry (EX ceil(new_tat - now), whole seconds on Redis's
// clock) comes when now >= new_tat (up to the rounding of new_tat - now,
// a few units in the last place of now), where max(tat, now) = now
// anyway: a key that expired decides as one that did not. It is not
// modelled (nor in miniredis, whose keys expire only by FastForward).
//
// # Deviations
//
//   - clock: TIME's microseconds; off, the trace's nanoseconds (in the
//     float arithmetic, now = (s - 1483228800) + ns/1e9).
//   - float: float64 arithmetic as above; off, exact rationals (the TAT
//     kept as GCRA keeps it, W/L never rounded).
//
// Memory: 8 bytes per key, the TAT as a double. Redis keeps it as the
// value of the string key "rate:KEY", a decimal of up to 17 significant
// digits, with the key's name and its expiry.
type RedisRate struct {
	algorithms.DeviationSet
	rule  algorithms.Rule
	burst int64
	named bool
	ei    float64 // emission_interval = period / rate
	bo    float64 // burst_offset = emission_interval * burst
	st    algorithms.PerKey[redisRateState]
	exact *algorithms.GCRA // the float deviation off: GCRA with burst B on the same clock
}

// redisRateState is one key's stored TAT; set false: no key.
type redisRateState struct {
	tat float64
	set bool
}

// Deviation indices of RedisRate.
const (
	redisRateClock = iota
	redisRateFloat
)

// redisRateEpoch is the script's jan_1_2017, in seconds.
const redisRateEpoch = 1483228800

// NewRedisRate returns redis_rate for rule r from the parameters of the
// spec "redis_rate[:burst=N]" (arg is what follows "redis_rate:").
func NewRedisRate(r algorithms.Rule, arg string, hasArg bool) (*RedisRate, error) {
	rr := &RedisRate{rule: r, burst: r.L}
	if hasArg {
		v, ok := strings.CutPrefix(strings.TrimSpace(arg), "burst=")
		n, err := strconv.ParseInt(v, 10, 64)
		if !ok || err != nil || n < 1 || n > 1<<53 {
			return nil, fmt.Errorf("algorithm \"redis_rate:%s\": want redis_rate:burst=N with N a whole number from 1 to %d", arg, int64(1)<<53)
		}
		rr.burst, rr.named = n, true
	}
	rr.SetDeviations(
		algorithms.Deviation{Name: "clock", About: "decides on Redis TIME: the trace's time floored to whole microseconds"},
		algorithms.Deviation{Name: "float", About: "float64 seconds since 2017 (emission interval period/rate, TAT, burst offset rounded at each step); off: exact rationals"},
	)
	period := time.Duration(r.W).Seconds()
	rr.ei = period / float64(r.L)
	rr.bo = float64(rr.ei * float64(rr.burst))
	rr.exact = algorithms.NewGCRA(r, rr.burst)
	return rr, nil
}

func (rr *RedisRate) Name() string {
	name := "redis_rate"
	if rr.named {
		name += ":burst=" + itoa(rr.burst)
	}
	return name + rr.Suffix()
}

// Twin is GCRA with burst B under the same rule.
func (rr *RedisRate) Twin() string { return algorithms.BucketSpec("gcra", rr.burst, rr.rule) }

func (rr *RedisRate) Grow(n int) {
	if rr.OnAt(redisRateFloat) {
		rr.st.Grow(n)
	} else {
		rr.exact.Grow(n)
	}
}

func (*RedisRate) Bytes(int32) int64    { return 8 }
func (*RedisRate) FixedSize() bool      { return true }
func (*RedisRate) CountsRejected() bool { return false }

// Burst returns Limit.Burst.
func (rr *RedisRate) Burst() int64 { return rr.burst }

// micro floors t to whole microseconds (in ns) when the clock deviation is
// on.
func (rr *RedisRate) clock(t int64) int64 {
	if rr.OnAt(redisRateClock) {
		return algorithms.FloorDiv(t, 1000) * 1000
	}
	return t
}

// now is the script's now for trace time t (lines 28-30): whole seconds
// since 2017 plus the microseconds (or, clock off, nanoseconds) as a
// fraction, each rounded as Lua computes it.
func (rr *RedisRate) now(t int64) float64 {
	s := algorithms.FloorDiv(t, 1e9)
	ns := t - s*1e9
	if rr.OnAt(redisRateClock) {
		return float64(s-redisRateEpoch) + float64(ns/1000)/1000000
	}
	return float64(s-redisRateEpoch) + float64(ns)/1e9
}

// step returns now and new_tat for a request of cost at t, and whether
// the script admits it.
func (rr *RedisRate) step(id int32, t, cost int64) (float64, float64, bool) {
	now := rr.now(t)
	s := rr.st.At(id)
	tat := now
	if s.set {
		tat = s.tat
	}
	tat = max(tat, now)
	increment := float64(rr.ei * float64(cost))
	newTat := float64(tat + increment)
	allowAt := float64(newTat - rr.bo)
	diff := float64(now - allowAt)
	remaining := float64(diff / rr.ei)
	return now, newTat, !(remaining < 0)
}

func (rr *RedisRate) Decide(id int32, t, cost int64) bool {
	if !rr.OnAt(redisRateFloat) {
		return rr.exact.Decide(id, rr.clock(t), cost)
	}
	_, _, ok := rr.step(id, t, cost)
	return ok
}

// Record stores new_tat if new_tat - now > 0, as an admission does
// (lines 59-62). A refused request is not recorded by the script;
// recording one (shadow mode) stores it the same way.
func (rr *RedisRate) Record(id int32, t, cost int64) {
	if !rr.OnAt(redisRateFloat) {
		rr.exact.Record(id, rr.clock(t), cost)
		return
	}
	now, newTat, _ := rr.step(id, t, cost)
	if float64(newTat-now) > 0 {
		*rr.st.At(id) = redisRateState{tat: newTat, set: true}
	}
}

func (rr *RedisRate) Warm(id int32) uint64 {
	if !rr.OnAt(redisRateFloat) {
		return rr.exact.Warm(id)
	}
	return uint64(rr.st.At(id).tat)
}

// Idle: no TAT, or a TAT at or before now, where max(tat, now) = now as
// for a key never seen.
func (rr *RedisRate) Idle(id int32, t int64) bool {
	if !rr.OnAt(redisRateFloat) {
		return rr.exact.Idle(id, rr.clock(t))
	}
	s := rr.st.At(id)
	return !s.set || s.tat <= rr.now(t)
}

func (rr *RedisRate) Release(id int32) {
	if !rr.OnAt(redisRateFloat) {
		rr.exact.Release(id)
		return
	}
	*rr.st.At(id) = redisRateState{}
}
