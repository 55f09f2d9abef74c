package algorithms

import (
	"math"
	"math/big"
	"time"

	"golang.org/x/time/rate"
)

// XRate is the peer library golang.org/x/time/rate (docs/definitions.md §11) as a
// candidate: one rate.Limiter per key with rate.Limit(L / W-in-seconds)
// tokens per second (W-in-seconds = time.Duration(W).Seconds()) and burst B
// (default L; "xrate:B=N"), driven with the trace's own clock through
// time.Unix(0, t). It is the library's float64 token bucket, so with exact
// arithmetic it would decide as Token with the same B; where it does not,
// the cause is floating point (or the library's rounding of waits to whole
// nanoseconds), and XRate measures that (see Arithmetic).
//
// # Decide and record
//
// The library only has a combined decide-and-take, AllowN(t, n): it advances
// the tokens to t in float64 (tokens + elapsed.Seconds()*limit, capped at
// B), subtracts n, and admits iff n <= B and the wait for the missing
// tokens, time.Duration(missing/limit*1e9) truncated toward zero, is zero;
// only an admitted call changes the limiter (tokens and last = t). So:
//
//   - Decide reads TokensAt(t) (the library's own advance, which does not
//     mutate) and applies reserveN's test to it with the same float64
//     operations, answering exactly what AllowN(t, cost) would answer at that
//     moment, without consuming.
//   - Record takes cost tokens: AllowN(t, cost) when it admits (the usual
//     case: the same state change as the deployed library), otherwise
//     ReserveN(t, cost), which takes them anyway and leaves tokens negative.
//     If cost > B, ReserveN refuses too; Record then raises the burst to cost
//     with SetBurstAt(t, cost), reserves, and restores B with SetBurstAt(t,
//     B); at elapsed time zero these neither refill nor cap (tokens <= B),
//     so the only effect is tokens -= cost.
//
// Shadow mode therefore works as docs/definitions.md §3 defines for a token bucket: a request
// the reference admitted but xrate had no tokens for puts the float64 token
// count below zero (a debt, kept exactly as the library keeps its tokens),
// and AllowN refuses (wait > 0) until refills at limit tokens per second
// repay it. The only allocation is the *Reservation ReserveN returns, in
// the debt case alone.
//
// # Arithmetic flips and history
//
// Beside each key's rate.Limiter XRate keeps an exact twin, a tokenState
// (the integer state of Token) that records exactly what XRate records. At
// every Decide it compares xrate's answer with the twin's exact answer on
// the same history; a difference is an arithmetic flip, caused by xrate's
// float64 arithmetic alone. Where xrate disagrees with Token run on its own
// history (independent mode), the disagreements that are not arithmetic
// flips are history: the two buckets recorded different requests because of
// an earlier flip, and decide differently from then on although each
// decides correctly for its own state. See XRateArithmetic for how flips are
// classified as at a boundary.
//
// Memory: the library's per-key state as deployed, a rate.Limiter of 80
// bytes on 64-bit platforms: tokens float64 (8), last time.Time (24: wall,
// ext, *Location), limit float64 (8) and burst int (8), a sync.Mutex (8) and
// lastEvent time.Time (24). Only tokens and last carry per-key information
// for AllowN (16 bytes, as Token); limit and burst are per-rule copies, and
// the mutex and lastEvent serve concurrent use and reservation
// cancellation, but a deployment keeps them all for every key. The exact
// twin is the harness's instrument and is not counted.
type XRate struct {
	rule  Rule
	b     int64
	named bool // B was given explicitly
	limit rate.Limit
	keys  []xrateKey
	arith XRateArithmetic
}

// xrateKey is one key's library limiter and, next to it in memory, its
// exact twin.
type xrateKey struct {
	lim  rate.Limiter
	twin TokenState
}

// xrateBytes is the analytic size of a rate.Limiter on 64-bit platforms
// (the test suite checks it against unsafe.Sizeof).
const xrateBytes = 80

// XRateArithmetic counts XRate's decisions against its exact twin (the
// integer token bucket that recorded the same requests).
//
// Let m = tokens - cost be the exact margin of a decision, tokens the twin's
// exact token count at t (after refill, up to B, negative in debt), computed
// as the integer m*W = (B - cost - dq)*W - dr with arbitrary-precision
// integers: never with floats. The exact answer is admit iff m >= 0. A flip
// is a decision where xrate's answer differs from that.
//
//   - Boundary counts the flips with |m| < B / 2^40, that is
//     |m*W| * 2^40 < B*W: the exact token count lies within one part in 2^40
//     of B of the cost, where float64 tokens (53-bit significand, refilled
//     by elapsed.Seconds()*limit with limit = L/W rounded) can no longer
//     tell which side of the boundary they are on.
//   - Nanosecond counts the flips not in Boundary with |m| <= L/W, that is
//     |m*W| <= L: the tokens are at most one nanosecond of refill away from
//     the cost. AllowN admits when the wait for the missing tokens truncates
//     to zero nanoseconds, so it lets through requests up to a nanosecond
//     early (an over flip whenever W/L is not a whole number of
//     nanoseconds and a request lands in that nanosecond), and a float
//     error around that one-nanosecond edge flips either way.
//   - The remaining flips (Flips - Boundary - Nanosecond) are float drift:
//     rounding accumulated over many refills of a bucket that stayed below
//     B moved xrate's tokens farther than both bands from the exact count.
//
// Boundary + Nanosecond is the number of flips caused by rounding at a
// boundary.
type XRateArithmetic struct {
	Checked    int64 // decisions compared with the twin
	Flips      int64 // decisions where xrate and the exact twin differ: Over + Under
	Over       int64 // xrate admits, the exact twin refuses
	Under      int64 // xrate refuses, the exact twin admits
	Boundary   int64 // flips with |m| < B/2^40
	Nanosecond int64 // flips with B/2^40 <= |m| <= L/W: within one nanosecond of refill
}

// NewXRate returns the golang.org/x/time/rate candidate for rule r with burst
// b (b <= 0 means L).
func NewXRate(r Rule, b int64) *XRate {
	x := &XRate{rule: r, b: b, named: b > 0}
	if b <= 0 {
		x.b = r.L
	}
	x.limit = rate.Limit(float64(r.L) / time.Duration(r.W).Seconds())
	return x
}

func (x *XRate) Name() string {
	if !x.named {
		return "xrate"
	}
	return "xrate:B=" + itoa(x.b)
}

// Grow makes ids below n valid. New keys get a full bucket, as
// rate.NewLimiter(limit, B) would give them, built in place (a Limiter holds
// a mutex and is not copied): from the zero Limiter, set burst B, then an
// infinite limit, then the real limit at the Unix epoch, whose advance over
// the (saturated) time since year 1 at an infinite rate fills the bucket to
// exactly B. Like NewLimiter's first advance, the first request (t >= 0)
// then finds B tokens.
func (x *XRate) Grow(n int) {
	old := len(x.keys)
	x.keys = grow(x.keys, n)
	for i := old; i < len(x.keys); i++ {
		initLimiter(&x.keys[i].lim, x.limit, int(x.b))
	}
}

func initLimiter(lim *rate.Limiter, limit rate.Limit, b int) {
	var zero time.Time
	lim.SetBurstAt(zero, b)
	lim.SetLimitAt(zero, rate.Inf)
	lim.SetLimitAt(time.Unix(0, 0), limit)
}

func (*XRate) Bytes(int32) int64    { return xrateBytes }
func (*XRate) FixedSize() bool      { return true }
func (*XRate) CountsRejected() bool { return false }

// Capacity returns B.
func (x *XRate) Capacity() int64 { return x.b }

// Limit returns the library's rate, L/W in tokens per second as a float64.
func (x *XRate) Limit() rate.Limit { return x.limit }

// Arithmetic returns the counts of decisions checked against the exact twin
// and of arithmetic flips so far.
func (x *XRate) Arithmetic() XRateArithmetic { return x.arith }

// Decide answers what lim.AllowN(time.Unix(0, t), cost) would answer now,
// without taking the tokens, and checks that answer against the exact twin.
func (x *XRate) Decide(id int32, t, cost int64) bool {
	k := &x.keys[id]
	got := allowsN(&k.lim, x.limit, time.Unix(0, t), cost, x.b)
	s := &k.twin
	s.Refill(t, x.rule)
	want := s.Fits(x.b, cost, x.rule)
	x.arith.Checked++
	if got != want {
		x.flip(s, cost, got)
	}
	return got
}

// allowsN is rate.Limiter.reserveN(t, n, 0).ok, the answer of AllowN, on
// the tokens TokensAt(t) returns (the same advance reserveN computes), with
// the same float64 operations, and without changing lim.
// limit and burst are lim's (kept by XRate, to spare two locks).
func allowsN(lim *rate.Limiter, limit rate.Limit, t time.Time, n, burst int64) bool {
	if limit == rate.Inf {
		return true
	}
	tokens := lim.TokensAt(t)
	tokens -= float64(n)
	var wait time.Duration
	if tokens < 0 {
		wait = durationFromTokens(limit, -tokens)
	}
	return n <= burst && wait <= 0
}

// durationFromTokens is rate.Limit.durationFromTokens: the wait, truncated
// toward zero to whole nanoseconds, for tokens to accumulate at limit.
func durationFromTokens(limit rate.Limit, tokens float64) time.Duration {
	if limit <= 0 {
		return rate.InfDuration
	}
	d := (tokens / float64(limit)) * float64(time.Second)
	if d > float64(math.MaxInt64) {
		return rate.InfDuration
	}
	return time.Duration(d)
}

// flip counts a decision where xrate answered got and the exact twin s (at
// t) the opposite, and classifies it by the exact margin m = tokens - cost.
func (x *XRate) flip(s *TokenState, cost int64, got bool) {
	a := &x.arith
	a.Flips++
	if got {
		a.Over++
	} else {
		a.Under++
	}
	// mW = (B - cost - dq)*W - dr = m*W, exactly.
	dq, dr := s.deficit(x.rule)
	w := big.NewInt(x.rule.W)
	mW := big.NewInt(x.b)
	mW.Sub(mW, big.NewInt(cost))
	mW.Sub(mW, big.NewInt(dq))
	mW.Mul(mW, w)
	mW.Sub(mW, big.NewInt(dr))
	mW.Abs(mW)
	scaled := new(big.Int).Lsh(mW, 40)
	bw := new(big.Int).Mul(big.NewInt(x.b), w)
	switch {
	case scaled.Cmp(bw) < 0:
		a.Boundary++
	case mW.Cmp(big.NewInt(x.rule.L)) <= 0:
		a.Nanosecond++
	}
}

// Record takes cost tokens from key id's rate.Limiter at t, into debt if it
// has too few (see the type's doc), and records the request in the twin.
func (x *XRate) Record(id int32, t, cost int64) {
	k := &x.keys[id]
	lim := &k.lim
	tt := time.Unix(0, t)
	n := int(cost)
	if !lim.AllowN(tt, n) {
		if cost > x.b {
			lim.SetBurstAt(tt, n)
			lim.ReserveN(tt, n)
			lim.SetBurstAt(tt, int(x.b))
		} else {
			lim.ReserveN(tt, n)
		}
	}
	s := &k.twin
	s.Refill(t, x.rule)
	s.Take(cost, x.rule)
}
