package products

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"ratebench/algorithms"
)

func init() {
	algorithms.Register(algorithms.Kind{Spec: "upstash", Place: 4, About: "Upstash's slidingWindow: floor(prev*(W-e)/W) + curr >= L refuses, on a millisecond clock, behind its ephemeral cache",
		Build: func(c algorithms.Call, r algorithms.Rule) (algorithms.Limiter, error) {
			if err := c.NoArg(); err != nil {
				return nil, err
			}
			return NewUpstash(r)
		}})
	algorithms.Register(algorithms.Kind{Spec: "upstash-fixed", Place: 5, About: "Upstash's fixedWindow: every request counted, behind its ephemeral cache",
		Build: func(c algorithms.Call, r algorithms.Rule) (algorithms.Limiter, error) {
			if err := c.NoArg(); err != nil {
				return nil, err
			}
			return NewUpstashFixed(r)
		}})
	algorithms.Register(algorithms.Kind{Spec: "upstash-token[:max=N][:refill=N:interval=D]", Place: 6, About: "Upstash's tokenBucket: refill tokens per whole interval from the key's first request (default the rule's rate), max tokens (default L), behind its ephemeral cache",
		Build: func(c algorithms.Call, r algorithms.Rule) (algorithms.Limiter, error) {
			if c.HasArg && strings.TrimSpace(c.Arg) == "" {
				return nil, fmt.Errorf("algorithm %q: want upstash-token, or upstash-token:max=N and :refill=N:interval=D", c.Spec)
			}
			return NewUpstashToken(r, c.Arg)
		}})
}

// Upstash is one of the limiters of Upstash's @upstash/ratelimit (the
// single-region Ratelimit, src/single.ts, over the Lua scripts of
// src/lua-scripts/single.ts), modelled exactly from the source of
// github.com/upstash/ratelimit-js at commit
// 5b5448a5f0bae809cd624a7c639771a8b2e227cb (v2.0.8 and four commits; line
// numbers below are that version's), with the trace's cost passed as the
// limit call's rate option, limit(id, {rate: cost}): the script's
// incrementBy (single.ts:175, 296, 421).
//
// Three specs:
//
//   - "upstash": Ratelimit.slidingWindow(L, W), twin counter (see
//     upstashSliding);
//   - "upstash-fixed": Ratelimit.fixedWindow(L, W), twin fixed (see
//     upstashFixed);
//   - "upstash-token[:max=N][:refill=N:interval=D]":
//     Ratelimit.tokenBucket(refill, interval, max), twin token:B=max when
//     refill/interval is the rule's rate (see upstashToken).
//
// # What all three share
//
// The clock is Date.now(), whole milliseconds since the epoch (single.ts:
// 173, 291, 420), here the trace's time floored to whole milliseconds. A
// window or interval is a Duration, a whole number of ms, s, m, h or d
// (duration.ts, ms()): a rule whose window is not a whole number of
// milliseconds cannot be configured and is refused.
//
// The ephemeral cache is on by default: the constructor makes one when
// ephemeralCache is not given (ratelimit.ts:150-154). When a limit call is
// refused, the key is blocked until the reset the call returns
// (blockUntil, single.ts:207-209, 328-330, 452-454; the window's end, or
// for the token bucket the next refill), and a later call on a blocked key
// is refused without reaching Redis (single.ts:177-190, 298-311, 423-436).
// The block ends when reset < Date.now() (cache.ts:18): the reset's own
// millisecond is still blocked. The cache is Blocked, whose end is that
// reset. A request the cache refuses changes nothing in Redis, so it is not
// counted even by a limiter that counts every request it is asked about.
// The cache is per process: this models one instance of the application
// (or all of them sharing one Map).
//
// What changes no decision, and is left out: analytics (default off,
// ratelimit.ts:143-148; when on, submitAnalytics records the result after
// the decision, ratelimit.ts:370-411); the deny list (enableProtection,
// default false, ratelimit.ts:133); dynamic limits (default false,
// ratelimit.ts:131: the scripts then read the limit from a key instead of
// the argument); the timeout (default 5000 ms, ratelimit.ts:129, 336-358),
// which admits a request when Redis does not answer in time: no network
// here; and MultiRegionRatelimit (src/multi.ts), a different product whose
// regions sync asynchronously, not modelled. Negative rates (refunds) do
// not occur: a trace's cost is positive.
type Upstash struct {
	algorithms.DeviationSet
	name, twin string
	core       upstashCore
	cache      *algorithms.Blocked // the ephemeral cache in front of core
	iCache     int                 // the index of the deviation "cache"
	iEvery     int                 // the index of "counts-refused", or -1
	bytes      int64
	// The last request the cache refused, for Record to leave out.
	cachedID  int32
	cachedT   int64
	cachedHit bool
}

// upstashCore is the Redis side of one of Upstash's limiters: a Limiter
// (for Blocked to wrap) that can say when a refusal's block ends.
type upstashCore interface {
	algorithms.Limiter
	algorithms.Releaser
	algorithms.Warmer
	// reset is the block's end for a refusal of key id at t: the first
	// instant (ns) at which the cache lets the key through again.
	reset(id int32, t int64) int64
}

// upstashMs is the product's clock tick, a millisecond in nanoseconds.
const upstashMs = int64(time.Millisecond)

// newUpstash builds the product around core, its deviations declared with
// the deviation "cache" last; every is the index of "counts-refused" or -1.
func newUpstash(name, twin string, core upstashCore, bytes int64, every int, r algorithms.Rule, list ...algorithms.Deviation) *Upstash {
	u := &Upstash{name: name, twin: twin, core: core, bytes: bytes, iEvery: every}
	u.SetDeviations(list...)
	u.iCache = len(list) - 1
	u.cache, _ = algorithms.NewBlocked(core, r, "window")
	u.cache.SetReset(core.reset)
	return u
}

func (u *Upstash) Name() string { return u.name + u.Suffix() }
func (u *Upstash) Twin() string { return u.twin }

func (u *Upstash) Decide(id int32, t, cost int64) bool {
	if !u.OnAt(u.iCache) {
		return u.core.Decide(id, t, cost)
	}
	u.cachedHit = t < u.cache.BlockedUntil(id)
	u.cachedID, u.cachedT = id, t
	return u.cache.Decide(id, t, cost)
}

func (u *Upstash) Record(id int32, t, cost int64) {
	if u.cachedHit && u.cachedID == id && u.cachedT == t && u.CountsEvery() {
		return // refused by the cache: nothing reached Redis
	}
	u.core.Record(id, t, cost)
}

func (u *Upstash) Grow(n int) {
	u.core.Grow(n)
	u.cache.Grow(n)
}

// Bytes: the Redis state of the key (see each limiter), and with the cache
// the reset it keeps for a refused key, 8 bytes.
func (u *Upstash) Bytes(int32) int64 {
	if u.OnAt(u.iCache) {
		return u.bytes + 8
	}
	return u.bytes
}

func (*Upstash) FixedSize() bool        { return true }
func (u *Upstash) CountsRejected() bool { return u.core.CountsRejected() }

// CountsEvery: the fixed window's INCRBY and the token bucket's debt count
// every request that reaches Redis (deviation "counts-refused").
func (u *Upstash) CountsEvery() bool { return u.iEvery >= 0 && u.OnAt(u.iEvery) }

func (u *Upstash) Idle(id int32, t int64) bool {
	if u.OnAt(u.iCache) {
		return u.cache.Idle(id, t)
	}
	return u.core.Idle(id, t)
}

func (u *Upstash) Release(id int32) { u.cache.Release(id) }
func (u *Upstash) Warm(id int32) uint64 {
	if u.OnAt(u.iCache) {
		return u.cache.Warm(id)
	}
	return u.core.Warm(id)
}

// The deviations the three share.
var (
	upstashClockAbout = "decides on Date.now(), a millisecond clock: the trace's time floored to whole milliseconds"
	upstashCache      = algorithms.Deviation{Name: "cache", About: "ephemeral cache, on by default: a key refused once is refused without asking Redis until the reset the refusal returned, that millisecond included"}
)

// upstashWindow checks that w is a Duration Upstash can be configured with.
func upstashWindow(spec string, w int64) error {
	if w <= 0 || w%upstashMs != 0 {
		return fmt.Errorf("algorithm %q: Upstash's windows and intervals are whole milliseconds (\"N ms\", \"N s\", ...), not %s", spec, algorithms.FormatWindow(w))
	}
	return nil
}

// clock returns the clock's tick: a millisecond, or with the deviation
// "clock" off a nanosecond.
func upstashTick(d *algorithms.DeviationSet, i int) int64 {
	if d.OnAt(i) {
		return upstashMs
	}
	return 1
}

// upstashSliding is Ratelimit.slidingWindow(L, W) (single.ts:278-344) and
// its script slidingWindowLimitScript (lua-scripts/single.ts:50-93). Keys
// identifier:floor(now/W), W in ms (single.ts:291-295): windows aligned to
// the epoch, as the counter's. The script reads both windows' counts (GET,
// lines 68-76) and
//
//	percentageInCurrent = (now % window) / window                  (line 77)
//	previous = math.floor((1 - percentageInCurrent) * previous)    (line 79)
//	refused iff previous + current >= limit                         (line 82)
//
// a call refused there returns -1 before the INCRBY (line 83) and is not
// counted. Any other does INCRBY current incrementBy (line 86), sets the
// key's PEXPIRE to 2W + 1 s (line 90), which outlives the window that reads
// it (no decision depends on it), and returns remaining = limit -
// (newValue + previous) (line 92), newValue the count after the INCRBY.
// success is remaining >= 0 (single.ts:325), the reset
// (currentWindow+1)*W (single.ts:326). The weight is the part of the
// previous window still in the sliding window, 1 - elapsed/W, as the
// counter's (W-e)/W.
//
// So a request is admitted iff floor(previous) + current + cost <= limit,
// counter-floor's rule; and one refused by that test while
// floor(previous) + current < limit was counted all the same (a request
// costing more than the room left). For whole numbers curr and L,
// floor(x) + curr < L iff x + curr < L: with cost 1 the script admits iff
// E < L, E = prev*(W-e)/W + curr the counter's estimate (counter-lt), and
// counts nothing it refuses. The live replay against Redis (package
// live/redis) holds this against the script on traces with costs.
//
// Against counter (E + cost <= L) it deviates in: the clock (e in whole
// ms); the comparison (admitted iff floor(prev*(W-e)/W) + curr + cost <= L:
// with cost 1 it admits where L-1 < E < L); the float64 arithmetic of the
// weight, which acts through the floor (Redis's Lua numbers are doubles:
// now % window is exact, a - floor(a/b)*b on integers below 2^53, but the
// quotient, 1 - p and the product are rounded, so a weighted count that is
// exactly a whole number may floor to one less: at 10/1m, previous 10 at
// 54 s into the window gives math.floor(0.9999999999999998) = 0, not 1;
// with the comparison off, E + cost <= L has no floor for it to act on);
// the refused requests it counts (costly ones only, see above; off, a
// refused request counts nothing); and the cache.
//
// Memory: the two windows' counts and the window, 24 bytes per key, as the
// counter's.
type upstashSliding struct {
	d    *algorithms.DeviationSet
	rule algorithms.Rule
	st   algorithms.PerKey[algorithms.CounterState]
}

// The deviations of "upstash", in their order.
const (
	usClock = iota
	usLT
	usFloat
	usCounts
	usCache
)

// NewUpstash returns Upstash's slidingWindow(L, W) for rule r.
func NewUpstash(r algorithms.Rule) (*Upstash, error) {
	if err := upstashWindow("upstash", r.W); err != nil {
		return nil, err
	}
	c := &upstashSliding{rule: r}
	u := newUpstash("upstash", "counter", c, 24, usCounts, r,
		algorithms.Deviation{Name: "clock", About: upstashClockAbout + ": the weight of the previous window moves in whole-millisecond steps"},
		algorithms.Deviation{Name: "lt", About: "admits iff floor(previous*weight) + current + cost <= limit: with cost 1, iff the estimate is below the limit"},
		algorithms.Deviation{Name: "float", About: "weighs the previous window in float64, as Redis's Lua numbers, before flooring: a weighted count that is a whole number may floor to one less"},
		algorithms.Deviation{Name: "counts-refused", About: "a request refused for costing more than the room left is counted all the same when floor(previous*weight) + current is below the limit (the script increments before the client sees the remaining count negative)"},
		upstashCache)
	c.d = &u.DeviationSet
	return u, nil
}

func (c *upstashSliding) Name() string         { return "upstash" }
func (c *upstashSliding) Grow(n int)           { c.st.Grow(n) }
func (*upstashSliding) Bytes(int32) int64      { return 24 }
func (*upstashSliding) FixedSize() bool        { return true }
func (*upstashSliding) CountsRejected() bool   { return false }
func (c *upstashSliding) Warm(id int32) uint64 { return uint64(c.st.At(id).Start) }

// reset: the window's end (currentWindow+1)*W; blocked while
// Date.now() <= reset, so up to the end plus one tick.
func (c *upstashSliding) reset(_ int32, t int64) int64 {
	return algorithms.SatAdd(algorithms.FloorDiv(t, c.rule.W)*c.rule.W+c.rule.W, upstashTick(c.d, usClock))
}

// elapsed advances key id to t and returns the time e into the window on
// the clock.
func (c *upstashSliding) elapsed(id int32, t int64) (*algorithms.CounterState, int64) {
	s := c.st.At(id)
	e := s.Advance(t, c.rule.W)
	tick := upstashTick(c.d, usClock)
	return s, e - e%tick // the window starts on a whole millisecond
}

// floored is line 79 in float64, each operation rounded (the explicit
// conversions forbid a fused multiply-add): floor((1 - (now % window) /
// window) * previous).
func (c *upstashSliding) floored(s *algorithms.CounterState, e int64) int64 {
	tick := upstashTick(c.d, usClock)
	p := float64(float64(e/tick) / float64(c.rule.W/tick))
	w := float64(1 - p)
	return int64(math.Floor(float64(w * float64(s.Prev))))
}

// below is line 82's test passed: floor(previous) + current < limit.
func (c *upstashSliding) below(s *algorithms.CounterState, e int64) bool {
	if !c.d.OnAt(usFloat) {
		return algorithms.CounterLT(s.Prev, s.Curr, e, c.rule.L, c.rule.W)
	}
	q := c.floored(s, e)
	return s.Curr < c.rule.L && q < c.rule.L-s.Curr
}

func (c *upstashSliding) Decide(id int32, t, cost int64) bool {
	W, L := c.rule.W, c.rule.L
	s, e := c.elapsed(id, t)
	if !c.d.OnAt(usLT) {
		return algorithms.CounterLE(s.Prev, s.Curr, e, cost, L, W)
	}
	if !c.d.OnAt(usFloat) {
		return algorithms.CounterFloor(s.Prev, s.Curr, e, cost, L, W)
	}
	q := c.floored(s, e) // remaining = L - (curr + cost + q) >= 0
	return cost <= L && q <= L-cost && s.Curr <= L-cost-q
}

// Record counts the request, unless counts-refused is on (every request is
// then recorded, CountsEvery) and line 82 refused it before the INCRBY.
func (c *upstashSliding) Record(id int32, t, cost int64) {
	s, e := c.elapsed(id, t)
	if c.d.OnAt(usCounts) && !c.below(s, e) {
		return
	}
	s.Curr = algorithms.SatAdd(s.Curr, cost)
}

// Idle: both windows the script reads at t are empty.
func (c *upstashSliding) Idle(id int32, t int64) bool { return c.st.At(id).Idle(t, c.rule.W) }

func (c *upstashSliding) Release(id int32) { *c.st.At(id) = algorithms.CounterState{} }

// upstashFixed is Ratelimit.fixedWindow(L, W) (single.ts:160-223) and its
// script fixedWindowLimitScript (lua-scripts/single.ts:1-25). Key
// identifier:floor(now/W) (single.ts:173-174): windows aligned to the
// epoch. The script does INCRBY key incrementBy for every call (line 17),
// refused or not, and PEXPIRE W on the key's first increment (lines 18-22,
// which no decision reads: the key's name changes with the window);
// success is count-after-increment <= limit (single.ts:204), reset
// (bucket+1)*W (single.ts:206). So it is admitted iff curr + cost <= L, the
// fixed window's rule, and every request reaching Redis is counted.
//
// Against fixed it deviates in: the clock, which moves no window boundary
// (W is whole milliseconds) and acts only through the cache's end (the
// reset's millisecond is blocked); refused requests counted (with cost 1
// that changes nothing: the count is already past the limit for the rest
// of the window; a refused costly request uses up room a cheaper one would
// have had); and the cache.
//
// Memory: the count and the window, 16 bytes per key.
type upstashFixed struct {
	d    *algorithms.DeviationSet
	rule algorithms.Rule
	st   algorithms.PerKey[algorithms.FixedState]
}

// The deviations of "upstash-fixed", in their order.
const (
	ufClock = iota
	ufCounts
	ufCache
)

// NewUpstashFixed returns Upstash's fixedWindow(L, W) for rule r.
func NewUpstashFixed(r algorithms.Rule) (*Upstash, error) {
	if err := upstashWindow("upstash-fixed", r.W); err != nil {
		return nil, err
	}
	c := &upstashFixed{rule: r}
	u := newUpstash("upstash-fixed", "fixed", c, 16, ufCounts, r,
		algorithms.Deviation{Name: "clock", About: upstashClockAbout + ": windows of whole milliseconds move no boundary, but the cache's block lasts through the reset's millisecond"},
		algorithms.Deviation{Name: "counts-refused", About: "INCRBY for every request that reaches Redis: a refused request counts in its window"},
		upstashCache)
	c.d = &u.DeviationSet
	return u, nil
}

func (c *upstashFixed) Name() string         { return "upstash-fixed" }
func (c *upstashFixed) Grow(n int)           { c.st.Grow(n) }
func (*upstashFixed) Bytes(int32) int64      { return 16 }
func (*upstashFixed) FixedSize() bool        { return true }
func (*upstashFixed) CountsRejected() bool   { return true }
func (c *upstashFixed) Warm(id int32) uint64 { return uint64(c.st.At(id).Start) }

func (c *upstashFixed) reset(_ int32, t int64) int64 {
	return algorithms.SatAdd(algorithms.FloorDiv(t, c.rule.W)*c.rule.W+c.rule.W, upstashTick(c.d, ufClock))
}

func (c *upstashFixed) Decide(id int32, t, cost int64) bool {
	s := c.st.At(id)
	s.Advance(t, c.rule.W)
	return cost <= c.rule.L-s.Curr
}

func (c *upstashFixed) Record(id int32, t, cost int64) {
	s := c.st.At(id)
	s.Advance(t, c.rule.W)
	s.Curr = algorithms.SatAdd(s.Curr, cost)
}

// Idle: the window the script reads at t is empty.
func (c *upstashFixed) Idle(id int32, t int64) bool { return c.st.At(id).Idle(t, c.rule.W) }

func (c *upstashFixed) Release(id int32) { *c.st.At(id) = algorithms.FixedState{} }

// upstashToken is Ratelimit.tokenBucket(refillRate, interval, maxTokens)
// (single.ts:399-468) and its script tokenBucketLimitScript
// (lua-scripts/single.ts:130-182). The key is a hash of refilledAt and
// tokens (HMGET, line 148); a key that does not exist starts with
// refilledAt = now and maxTokens tokens (lines 153-155), so the refills'
// phase is set by the key's first request. Then
//
//	if now >= refilledAt + interval:                                (line 161)
//	    n = floor((now - refilledAt) / interval)                    (line 162)
//	    tokens = min(maxTokens, tokens + n*refillRate)              (line 163)
//	    refilledAt += n*interval                                    (line 165)
//	tokens == 0: refused, nothing stored                            (line 169)
//	remaining = tokens - incrementBy, stored with refilledAt        (lines 173, 176)
//	PEXPIRE key ceil((maxTokens - remaining)/refillRate)*interval   (lines 174, 178-180)
//
// and success is remaining >= 0 (single.ts:450), the reset
// refilledAt + interval (line 181). So a request is admitted iff the bucket
// holds at least its cost; but one that costs more than the tokens left,
// when some are left, is refused and still takes them: the bucket goes into
// debt (and a bucket in debt deepens it with every refused request). The
// key expires when the bucket would be full again (Redis drops it once its
// clock passes the expiry); the next request starts a fresh bucket, full
// as the old one would be, but with its refills' phase set anew. Lua's
// doubles are exact here: every operand is an integer below 2^53 (the
// quotients' floor and ceil could be wrong only for spans beyond 2^53 ms).
//
// Against token:B=maxTokens (rate refill/interval, refilled continuously
// and exactly) it deviates in: the clock; refills in whole intervals of
// refillRate tokens, phased by the key's first request and again after its
// key expired (with this off the bucket refills continuously and expiry
// changes nothing); the debt of a refused costly request; and the cache,
// which blocks until the next refill (with whole-interval refills off: until
// the bucket holds a token again). With whole-interval refills off, the
// script's tokens are the bucket's whole tokens: a refusal takes nothing
// when it holds less than one (and no debt), as at tokens == 0.
//
// Default mapping from rule L/W: maxTokens = L, and refillRate / interval
// the rule's rate in lowest terms with the interval in whole milliseconds:
// L/g tokens every W/g, g = GCD(L, W in ms) (10/1m: 1 token every 6 s).
//
// Memory: refilledAt, tokens and the key's expiry, 24 bytes per key.
type upstashToken struct {
	d        *algorithms.DeviationSet
	max      int64
	refill   int64
	interval int64           // in ns, a whole number of ms
	rr       algorithms.Rule // refill tokens per interval, for the continuous bucket
	st       algorithms.PerKey[upstashTokenState]
}

// upstashTokenState is one key's hash, in clock ticks: refilledAt, tokens
// (negative: a debt), the expiry (present while now <= exp) and whether the
// key exists; x is the continuous bucket's deficit, with whole-interval
// refills off.
type upstashTokenState struct {
	at, tok, exp int64
	seen         bool
	x            algorithms.TokenState
}

// The deviations of "upstash-token", in their order.
const (
	utClock = iota
	utInterval
	utCounts
	utCache
)

// NewUpstashToken returns Upstash's tokenBucket for rule r from the
// parameters of "upstash-token[:max=N][:refill=N:interval=D]" (arg is what
// follows "upstash-token:", "" for the defaults).
func NewUpstashToken(r algorithms.Rule, arg string) (*Upstash, error) {
	spec := "upstash-token"
	if arg != "" {
		spec += ":" + arg
	}
	max, refill, interval := int64(0), int64(0), int64(0)
	if arg != "" {
		for _, kv := range strings.Split(arg, ":") {
			k, v, _ := strings.Cut(strings.TrimSpace(kv), "=")
			var err error
			switch {
			case k == "max" && max == 0, k == "refill" && refill == 0:
				var n int64
				n, err = strconv.ParseInt(v, 10, 64)
				if err == nil && (n < 1 || n > 1<<40) {
					err = fmt.Errorf("out of range")
				}
				if k == "max" {
					max = n
				} else {
					refill = n
				}
			case k == "interval" && interval == 0:
				var d time.Duration
				d, err = time.ParseDuration(v)
				if err == nil && d <= 0 {
					err = fmt.Errorf("not positive")
				}
				interval = int64(d)
			default:
				err = fmt.Errorf("unknown")
			}
			if err != nil {
				return nil, fmt.Errorf("algorithm %q: want upstash-token[:max=N][:refill=N:interval=D] with N whole numbers from 1 to 2^40, each at most once, and D a duration of whole milliseconds (%q)", spec, kv)
			}
		}
	}
	if (refill == 0) != (interval == 0) {
		return nil, fmt.Errorf("algorithm %q: give refill and interval together", spec)
	}
	name := "upstash-token"
	if max != 0 {
		name += ":max=" + itoa(max)
	} else {
		max = r.L
	}
	if refill != 0 {
		if err := upstashWindow(spec, interval); err != nil {
			return nil, err
		}
		name += ":refill=" + itoa(refill) + ":interval=" + algorithms.FormatWindow(interval)
	} else {
		if err := upstashWindow(spec, r.W); err != nil {
			return nil, err
		}
		wms := r.W / upstashMs
		g := algorithms.GCD(r.L, wms)
		refill, interval = r.L/g, wms/g*upstashMs
	}
	twin := ""
	if a, b := algorithms.Mul(refill, r.W), algorithms.Mul(r.L, interval); a == b {
		twin = algorithms.BucketSpec("token", max, r)
	}
	c := &upstashToken{max: max, refill: refill, interval: interval, rr: algorithms.Rule{L: refill, W: interval}}
	u := newUpstash(name, twin, c, 24, utCounts, r,
		algorithms.Deviation{Name: "clock", About: upstashClockAbout},
		algorithms.Deviation{Name: "interval", About: "refills refillRate tokens at whole intervals from the key's first request (set again when the key expires, full), none in between"},
		algorithms.Deviation{Name: "counts-refused", About: "a request costing more than the tokens left, when some are left, is refused and still takes them: the bucket goes into debt"},
		upstashCache)
	c.d = &u.DeviationSet
	return u, nil
}

func (c *upstashToken) Name() string         { return "upstash-token" }
func (c *upstashToken) Grow(n int)           { c.st.Grow(n) }
func (*upstashToken) Bytes(int32) int64      { return 24 }
func (*upstashToken) FixedSize() bool        { return true }
func (*upstashToken) CountsRejected() bool   { return false }
func (c *upstashToken) Warm(id int32) uint64 { return uint64(c.st.At(id).at) }

// advance brings s to the clock's now (in ticks) by the script's lines
// 148-166: a fresh bucket for a key that does not exist or has expired,
// then the whole intervals' refills.
func (c *upstashToken) advance(s *upstashTokenState, now, tick int64) {
	iv := c.interval / tick
	if !s.seen || now > s.exp {
		s.at, s.tok, s.exp, s.seen = now, c.max, math.MaxInt64, true
	}
	if now-s.at < iv {
		return
	}
	n := (now - s.at) / iv
	if need := (c.max - s.tok + c.refill - 1) / c.refill; n >= need {
		s.tok = max(s.tok, c.max) // min(max, tokens + n*rate) = max
	} else {
		s.tok += n * c.refill
	}
	s.at += n * iv
}

// now returns the clock's time of t in ticks, and the tick.
func (c *upstashToken) now(t int64) (int64, int64) {
	tick := upstashTick(c.d, utClock)
	return algorithms.FloorDiv(t, tick), tick
}

func (c *upstashToken) Decide(id int32, t, cost int64) bool {
	now, tick := c.now(t)
	if !c.d.OnAt(utInterval) {
		s := &c.st.At(id).x
		s.Refill(now*tick, c.rr)
		return s.Fits(c.max, cost, c.rr)
	}
	s := (*c.st.At(id)) // a copy: a refused request stores nothing
	c.advance(&s, now, tick)
	return s.tok != 0 && s.tok-cost >= 0 // lines 169, 173; single.ts:450
}

func (c *upstashToken) Record(id int32, t, cost int64) {
	now, tick := c.now(t)
	if !c.d.OnAt(utInterval) {
		s := &c.st.At(id).x
		s.Refill(now*tick, c.rr)
		if c.d.OnAt(utCounts) && algorithms.Mul(c.max-1, c.rr.W).Lt(s.X) && s.X.Le(algorithms.Mul(c.max, c.rr.W)) {
			return // no whole token (0 <= tokens < 1): refused, nothing taken
		}
		s.Take(cost, c.rr)
		return
	}
	s := c.st.At(id)
	c.advance(s, now, tick)
	if s.tok == 0 && c.d.OnAt(utCounts) {
		return // line 169: refused, nothing stored
	}
	s.tok -= min(cost, s.tok+1<<62) // a debt saturates far from overflow
	iv := c.interval / tick
	if k := (c.max - s.tok + c.refill - 1) / c.refill; k > 0 { // line 174
		if k > math.MaxInt64/iv {
			s.exp = math.MaxInt64
		} else {
			s.exp = algorithms.SatAdd(now, k*iv)
		}
	}
}

// reset: refilledAt + interval after the refusal's refill (line 170 or
// 181), blocked while Date.now() <= reset; with whole-interval refills off,
// until the bucket holds a token again.
func (c *upstashToken) reset(id int32, t int64) int64 {
	now, tick := c.now(t)
	if !c.d.OnAt(utInterval) {
		s := c.st.At(id).x
		s.Refill(now*tick, c.rr)
		room := algorithms.Mul(c.max-1, c.rr.W)
		if s.X.Le(room) {
			return t
		}
		dt, ok := s.X.Minus(room).QuoCeil(c.rr.L)
		if !ok {
			return math.MaxInt64
		}
		return algorithms.SatAdd(now*tick, dt)
	}
	s := (*c.st.At(id))
	c.advance(&s, now, tick)
	end := algorithms.SatAdd(s.at, c.interval/tick+1)
	if end > math.MaxInt64/tick {
		return math.MaxInt64
	}
	return end * tick
}

// Idle: the bucket is full again (the key expired, or would have).
func (c *upstashToken) Idle(id int32, t int64) bool {
	now, tick := c.now(t)
	s := c.st.At(id)
	if !c.d.OnAt(utInterval) {
		s.x.Refill(now*tick, c.rr)
		return s.x.X == algorithms.U128{}
	}
	return !s.seen || now > s.exp
}

func (c *upstashToken) Release(id int32) { *c.st.At(id) = upstashTokenState{} }
