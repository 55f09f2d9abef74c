package products

import (
	"fmt"
	"math"
	"strings"
	"time"

	"ratebench/algorithms"
)

func init() {
	algorithms.Register(algorithms.Kind{Spec: "express-rate-limit[:store=memory|redis]", Place: 21, About: "express-rate-limit (Node's Express middleware) with its MemoryStore or rate-limit-redis: fixed window anchored at the key's first hit, a millisecond clock (Date.now or Redis's), every request counted, refused once the count exceeds the limit",
		Build: func(c algorithms.Call, r algorithms.Rule) (algorithms.Limiter, error) {
			return NewExpressRateLimit(r, c.Arg, c.HasArg)
		}})
}

// ExpressRateLimit is express-rate-limit, the Express middleware
// rateLimit({windowMs, limit}), with its default MemoryStore or with
// rate-limit-redis's RedisStore, modelled from the packages npm publishes:
// express-rate-limit 8.7.5 and rate-limit-redis 6.0.1, their
// dist/index.cjs (lines below), which compile the sources of
// express-rate-limit/express-rate-limit (tag v8.6.2, commit
// c416f780b7944d1e0c67ae636a1c01a2134faba2: source/memory-store.ts:102-112,
// 172-207, source/rate-limit.ts:425-444, 597) and
// express-rate-limit/rate-limit-redis (tag v5.0.0, commit
// a332b65e58d350a0d898df88549087cda8e99cab, source/scripts.ts,
// source/lib.ts; 6.0.1 drops the resetExpiryOnChange branch of its
// script and changes nothing else the model reads).
//
// The rule L/W is configured as the documentation writes "L requests per
// W": rateLimit({ windowMs: W in milliseconds, limit: L }) (limit, or the
// deprecated max), the store the default MemoryStore or new RedisStore({
// sendCommand }).
//
// The middleware (dist/index.cjs:916-1100):
//
//   - increments the client's count first, for every request:
//     await config.store.increment(key) (line 936), before any check;
//     skipFailedRequests and skipSuccessfulRequests are off by default
//     (line 831), so nothing is ever decremented: refused requests count.
//   - refuses iff totalHits > limit (line 1087): admitted iff the count
//     after the increment is at most L, curr + 1 <= L.
//   - has no cost: the store's increment(key) adds one hit (the
//     MemoryStore's totalHits++, line 129; the Redis store's script SET 1
//     or INCR), and neither rateLimit's options nor the stores take a
//     weight.
//
// The MemoryStore (dist/index.cjs:65-220):
//
//   - increment: a client whose resetTime.getTime() <= Date.now() is reset
//     to 0 hits with resetTime = new Date(now + windowMs) (lines 124-130,
//     186-188), and so is a new client (getClient, lines 198-210); then
//     totalHits++. Each key's window is [a, a + windowMs) on Date.now's
//     milliseconds, a its first hit after its last window ended: a request
//     at exactly a + windowMs starts the next window.
//   - now + windowMs is a float64 sum, and new Date truncates it to a
//     whole millisecond (ECMAScript's TimeClip): a windowMs that is not
//     whole counts as its whole part, or as the next whole when the sum
//     rounds up to it (near 1.7e12 ms, float64's step is 2^-12 ms). The
//     model computes the same sum.
//   - an interval timer every windowMs (line 95) moves the current map to
//     the previous one and drops what was there: a client untouched for a
//     whole interval after a sweep, so whose last hit, and anchor, came
//     before that sweep, so whose resetTime had passed. Dropping it
//     changes no decision (its next hit would have reset it), so the
//     model keeps no sweep. (The sweep runs on Node's timers, whose clock
//     is not Date.now's; were the two to drift apart, a client could be
//     dropped within that drift of its reset. Left out.)
//   - windowMs must be from 1 to 2^31-1 ms, setTimeout's range (the store's
//     own check, line 690; beyond it Node runs the interval every
//     millisecond): New refuses another window.
//
// The RedisStore (rate-limit-redis dist/index.cjs:5-17, 119-140, 193-196)
// runs, for every request, a script that reads PTTL key; when it is <= 0
// (no key, or one at its expiry) it does SET key 1 PX windowMs, else INCR
// key; it returns the count. Redis deletes a key once its millisecond
// clock is past the expiry, and PTTL is 0 at the expiry itself: so the
// window is [a, a + windowMs) on Redis's milliseconds, as the memory
// store's. PX takes a whole number of milliseconds (windowMs.toString(),
// line 129): New refuses a window that is not whole milliseconds.
//
// Both stores thus decide alike; what differs is whose clock (the Node
// process's Date.now, or the Redis server's, which Redis 7's PTTL and SET
// read in milliseconds, mstime()) and what an idle key leaves: the memory
// store drops it at the second sweep after its last hit, Redis at its
// expiry.
//
// As a Product its twin is fixed, and its deviations are "anchor" (the
// window starts at the key's first hit after the last one ended; off:
// windows at multiples of W from the epoch), "clock" (the time floored to
// whole milliseconds, the reset time truncated to whole milliseconds;
// off: ns and W exactly), "counts-refused" (every request counted; off:
// only what the harness records, as fixed) and "one-hit" (one hit per
// request whatever its cost; off: a request of cost c adds c hits and is
// admitted iff they all fit, curr + c <= L, as the twin takes it).
// Counting refused requests changes a decision only with one-hit off and
// costs above 1: a request of one hit is refused only when the count has
// reached L, and a window's count only grows. With all four off it decides
// as fixed.
//
// The limit is a JavaScript number: New refuses an L above 2^53, which it
// cannot write.
//
// Memory: the count and the reset time (a Redis counter and its expiry),
// 16 bytes per key.
type ExpressRateLimit struct {
	algorithms.DeviationSet
	rule  algorithms.Rule
	redis bool
	wms   float64 // windowMs as a JavaScript number: the float64 nearest W/1ms
	st    algorithms.PerKey[erlState]
}

// erlState is a key's count and its window: with "anchor" the instant it
// started (on the model's clock), else its index among the epoch's windows.
// live is false while the key has no window (never seen, or expired).
type erlState struct {
	start, curr int64
	live        bool
}

const (
	erlAnchor = iota
	erlClock
	erlCountsRefused
	erlOneHit
)

// NewExpressRateLimit returns express-rate-limit for rule r with the store
// arg names ("", "store=memory" or "store=redis"; hasArg when the spec
// had a ':' after the name).
func NewExpressRateLimit(r algorithms.Rule, arg string, hasArg bool) (*ExpressRateLimit, error) {
	e := &ExpressRateLimit{rule: r, wms: float64(r.W) / float64(time.Millisecond)}
	if hasArg {
		switch strings.TrimSpace(arg) {
		case "store=memory":
		case "store=redis":
			e.redis = true
		default:
			return nil, fmt.Errorf("algorithm \"express-rate-limit:%s\": want express-rate-limit, express-rate-limit:store=memory or express-rate-limit:store=redis", arg)
		}
	}
	ms := int64(time.Millisecond)
	switch {
	case r.L > 1<<53:
		return nil, fmt.Errorf("algorithm %q: the limit is a JavaScript number, exact up to 2^53, not %d", e.spec(), r.L)
	case e.redis && (r.W < ms || r.W%ms != 0):
		return nil, fmt.Errorf("algorithm %q: windowMs goes to Redis as PX, whole milliseconds: give a window of whole milliseconds, not %s", e.spec(), algorithms.FormatWindow(r.W))
	case !e.redis && (r.W < ms || r.W > (1<<31-1)*ms):
		return nil, fmt.Errorf("algorithm %q: the memory store takes a windowMs from 1 to 2147483647 ms (setTimeout's range), not %s", e.spec(), algorithms.FormatWindow(r.W))
	}
	clock := "Date.now()"
	if e.redis {
		clock = "Redis's clock"
	}
	e.SetDeviations(
		algorithms.Deviation{Name: "anchor", About: "anchors each key's window at its first request after the last window ended (resetTime = now + windowMs), not at multiples of W; a request at exactly the window's end starts the next"},
		algorithms.Deviation{Name: "clock", About: "decides on " + clock + " in whole milliseconds: the time floored to milliseconds, the reset time now + windowMs (a float64 sum) truncated to whole milliseconds"},
		algorithms.Deviation{Name: "counts-refused", About: "counts every request, refused ones too (the store's increment comes before the check; skipFailedRequests off)"},
		algorithms.Deviation{Name: "one-hit", About: "counts one hit per request whatever its cost (the store's increment adds one)"},
	)
	return e, nil
}

func (e *ExpressRateLimit) spec() string {
	if e.redis {
		return "express-rate-limit:store=redis"
	}
	return "express-rate-limit"
}

// Redis reports whether the store is rate-limit-redis.
func (e *ExpressRateLimit) Redis() bool { return e.redis }

// WindowMs is the windowMs the rule configures, W in milliseconds as a
// JavaScript number (with a fraction when W is not whole milliseconds,
// for the memory store): the float64 nearest W/1ms, as JavaScript reads
// the decimal W/1ms (W and 1e6 are exact in float64, below 2^53, and the
// quotient is rounded once).
func (e *ExpressRateLimit) WindowMs() float64 { return e.wms }

func (e *ExpressRateLimit) Name() string         { return e.spec() + e.Suffix() }
func (*ExpressRateLimit) Twin() string           { return "fixed" }
func (e *ExpressRateLimit) Grow(n int)           { e.st.Grow(n) }
func (*ExpressRateLimit) Bytes(int32) int64      { return 16 }
func (*ExpressRateLimit) FixedSize() bool        { return true }
func (*ExpressRateLimit) CountsRejected() bool   { return true }
func (e *ExpressRateLimit) CountsEvery() bool    { return e.OnAt(erlCountsRefused) }
func (e *ExpressRateLimit) Warm(id int32) uint64 { return uint64(e.st.At(id).curr) }

// clock returns t and the window on the model's clock: whole milliseconds
// (Date.now() or Redis's, windowMs truncated) or nanoseconds.
func (e *ExpressRateLimit) clock(t int64) (now, period int64) {
	if e.OnAt(erlClock) {
		ms := int64(time.Millisecond)
		return algorithms.FloorDiv(t, ms), e.rule.W / ms
	}
	return t, e.rule.W
}

// over reports whether the window that started at start (on the model's
// clock) is over at now: resetTime <= now, resetTime start + windowMs.
// With "clock" on and a windowMs that is not whole, the memory store's
// new Date(now + windowMs) sums in float64 and truncates the sum, which
// rounds up to the next whole millisecond a fraction close enough to it.
func (e *ExpressRateLimit) over(start, now, period int64) bool {
	if e.OnAt(erlClock) && e.rule.W%int64(time.Millisecond) != 0 {
		return float64(now) >= math.Trunc(float64(start)+e.wms)
	}
	return now-start >= period
}

// advance ends the key's window once now is past it: with "anchor" at its
// reset time, else when now is in another of the epoch's windows. It
// returns the window a request at t would start: t's instant, or its
// window's index.
func (e *ExpressRateLimit) advance(s *erlState, t int64) (start int64) {
	now, period := e.clock(t)
	if !e.OnAt(erlAnchor) {
		start = algorithms.FloorDiv(now, period)
		if s.live && start != s.start {
			*s = erlState{}
		}
		return start
	}
	if s.live && e.over(s.start, now, period) {
		*s = erlState{}
	}
	return now
}

func (e *ExpressRateLimit) Decide(id int32, t, cost int64) bool {
	s := e.st.At(id)
	e.advance(s, t)
	return oneHit(e.OnAt(erlOneHit), cost) <= e.rule.L-s.curr // not totalHits > limit
}

// Record counts the request; a key without a window starts one at t.
func (e *ExpressRateLimit) Record(id int32, t, cost int64) {
	s := e.st.At(id)
	start := e.advance(s, t)
	if !s.live {
		s.start, s.live = start, true
	}
	s.curr = algorithms.SatAdd(s.curr, oneHit(e.OnAt(erlOneHit), cost))
}

// Estimate returns the window's count, as the fixed window.
func (e *ExpressRateLimit) Estimate(id int32, _ int64) algorithms.Rational {
	return algorithms.Whole(e.st.At(id).curr)
}

// Idle: the key has no window at t (a request of cost 0 opens one too).
func (e *ExpressRateLimit) Idle(id int32, t int64) bool {
	s := e.st.At(id)
	e.advance(s, t)
	return !s.live
}

func (e *ExpressRateLimit) Release(id int32)          { *e.st.At(id) = erlState{} }
func (e *ExpressRateLimit) Place(b *algorithms.Block) { e.st.Place(b) }
