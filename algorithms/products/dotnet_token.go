package products

import (
	"math"

	"ratebench/algorithms"
)

// DotnetToken is dotnet:limiter=token, .NET's TokenBucketRateLimiter
// partitioned per key: PartitionedRateLimiter.Create(ctx =>
// RateLimitPartition.GetTokenBucketLimiter(key, _ => new
// TokenBucketRateLimiterOptions { TokenLimit = L, TokensPerPeriod = L,
// ReplenishmentPeriod = W })), AttemptAcquire(key, cost). Modelled from
// dotnet/runtime, src/libraries/System.Threading.RateLimiting/src/System/
// Threading/RateLimiting/TokenBucketRateLimiter.cs (commit
// dd742ae3700db51e3fd71b0dd04e7eeac2168313: the constructor,
// TryLeaseUnsynchronized and ReplenishInternal, whose fill rate came with
// the change that handles the timer's jitter; the later text, with the
// deferred disposal of queued requests, does the same arithmetic) and
// RateLimitPartition.cs (commit 097c754d39888cb47a09ef6cb85ece0ef8d01b9d,
// GetTokenBucketLimiter), over the partitioned limiter of Dotnet (its
// heartbeat every 100 ms, its drop of a limiter idle over 10 s). No .NET
// runtime runs here: the model is the source's.
//
// The rule "L per W" is a bucket of L tokens refilled at L per W:
// TokenLimit L, TokensPerPeriod L, ReplenishmentPeriod W. Without the
// limiter's own timer only their ratio counts, so TokensPerPeriod 1 and
// ReplenishmentPeriod W/L (ASP.NET Core's documentation writes its example
// as 20 tokens every 10 s) replenish alike but for the double rounding.
//
// # The token bucket (TokenBucketRateLimiter.cs)
//
// GetTokenBucketLimiter sets AutoReplenishment = false, so only the
// heartbeat's TryReplenish refills the bucket. The limiter starts with
// _tokenCount = L (a double), _fillRate = (double)TokensPerPeriod /
// ReplenishmentPeriod.Ticks (tokens per 100 ns tick), and _idleSince =
// _lastReplenishmentTick = now. A request of cost n above L throws
// (refused, in the model); otherwise it leases iff _tokenCount >= n (no
// queue), taking n tokens and clearing _idleSince; a refused request takes
// nothing. ReplenishInternal(now) returns at once if _tokenCount ==
// TokenLimit; otherwise it adds _fillRate · (now − _lastReplenishmentTick)
// · TickFrequency, at most up to L (Math.Min), sets _lastReplenishmentTick
// = now, and if the bucket is full again, _idleSince = now.
//
// So the bucket refills only at the heartbeats, in double arithmetic. And
// a full bucket's heartbeats return before _lastReplenishmentTick moves:
// the first heartbeat after tokens are taken from it credits the whole time
// since the heartbeat that filled it (or since the limiter was made), the
// time it spent full included. A key idle for W or more (and at most 10 s,
// when its limiter is dropped) gets its bucket refilled whole at the first
// heartbeat after it takes its L tokens: 2L within 100 ms.
//
// # What the model assumes
//
// As Dotnet: heartbeats on the epoch's multiples of 100 ms, a heartbeat
// at t before a request at t, Stopwatch ticks the trace's nanoseconds (so
// TickFrequency = 10^7/10^9 = 0.01 and _fillRate = L over W in 100 ns
// ticks, W cut to whole ticks), IdleDuration's conversion taken as exact, a
// limiter dropped at the first heartbeat more than 10 s after it was last
// idle (made, or refilled full), the key's next request making a new one.
// The double arithmetic is IEEE binary64's, operation by operation, as
// .NET's.
//
// # Deviations from token (capacity L, L per W)
//
//   - heartbeat: the bucket refills at the 100 ms heartbeats only (off: at
//     each request, as the lazy token bucket; an idle limiter is dropped at
//     the request that finds it idle over 10 s).
//   - full-credit: a full bucket's replenishment leaves the time of the
//     last one where it is, so the next credits the time the bucket spent
//     full (off: it moves on, as the token bucket's).
//   - float: the tokens are a double refilled by _fillRate · Δ ·
//     TickFrequency (off: exactly L/W per unit of time).
//
// Memory: the tokens, the last replenishment and the idle time, 24 bytes
// per key.
type DotnetToken struct {
	algorithms.DeviationSet
	rule algorithms.Rule
	fill float64 // _fillRate: L over W in 100 ns ticks
	st   algorithms.PerKey[dotnetTokenState]
}

// dotnetTokenState is one key's limiter: made (exists), idle since idle
// (valid when idleSet: exactly when its bucket is full), its tokens (a
// double, with float; exact otherwise, the TokenState refilled at the same
// instants), its _lastReplenishmentTick (last), and the last heartbeat run
// (seen: at first, the creation).
type dotnetTokenState struct {
	exists, idleSet bool
	tokens          float64
	exact           algorithms.TokenState
	last, seen      int64
	idle            int64
}

const (
	dotnetTokenHeartbeat = iota
	dotnetTokenFullCredit
	dotnetTokenFloat
)

// dotnetTickFrequency is TickFrequency, (double)TimeSpan.TicksPerSecond /
// Stopwatch.Frequency, Linux's Stopwatch counting nanoseconds.
var dotnetTickFrequency = float64(1e7) / float64(1e9)

// NewDotnetToken returns the partitioned TokenBucketRateLimiter for rule r
// (W at least 100 ns, one tick).
func NewDotnetToken(r algorithms.Rule) *DotnetToken {
	d := &DotnetToken{rule: r, fill: float64(r.L) / float64(r.W/dotnetTick100ns)}
	d.SetDeviations(
		algorithms.Deviation{Name: "heartbeat", About: "refills the bucket at the 100 ms heartbeats only, not at each request"},
		algorithms.Deviation{Name: "full-credit", About: "leaves the last replenishment's time where it is while the bucket is full, so the next credits the time it spent full: up to L tokens back at once"},
		algorithms.Deviation{Name: "float", About: "keeps the tokens in a double, refilled by fillRate · Δ · TickFrequency"},
	)
	return d
}

func (d *DotnetToken) Name() string { return "dotnet:limiter=token" + d.Suffix() }

// Twin is the token bucket of capacity L.
func (d *DotnetToken) Twin() string { return algorithms.BucketSpec("token", d.rule.L, d.rule) }

func (d *DotnetToken) Grow(n int)                { d.st.Grow(n) }
func (*DotnetToken) Bytes(int32) int64           { return 24 }
func (*DotnetToken) FixedSize() bool             { return true }
func (*DotnetToken) CountsRejected() bool        { return false }
func (d *DotnetToken) Place(b *algorithms.Block) { d.st.Place(b) }
func (d *DotnetToken) Warm(id int32) uint64      { return uint64(d.st.At(id).last) }
func (d *DotnetToken) Release(id int32)          { *d.st.At(id) = dotnetTokenState{} }

// full reports whether s's bucket holds its L tokens.
func (d *DotnetToken) full(s *dotnetTokenState) bool {
	if d.OnAt(dotnetTokenFloat) {
		return s.tokens == float64(d.rule.L)
	}
	return s.exact.X == algorithms.U128{}
}

// create makes the key's limiter at t: full, idle since t, replenished at
// t.
func (d *DotnetToken) create(s *dotnetTokenState, t int64) {
	*s = dotnetTokenState{exists: true, idleSet: true, tokens: float64(d.rule.L), last: t, seen: t, idle: t}
	s.exact.Refill(t, d.rule) // full: only its time moves
}

// replenish is ReplenishInternal at h.
func (d *DotnetToken) replenish(s *dotnetTokenState, h int64) {
	if d.full(s) {
		if d.OnAt(dotnetTokenFullCredit) {
			return
		}
		s.last = h
		s.exact.Refill(h, d.rule)
		return
	}
	if d.OnAt(dotnetTokenFloat) {
		add := float64(float64(d.fill*float64(h-s.last)) * dotnetTickFrequency)
		s.tokens = math.Min(float64(d.rule.L), float64(s.tokens+add))
	} else {
		s.exact.Refill(h, d.rule)
	}
	s.last = h
	if d.full(s) {
		s.idleSet, s.idle = true, h
	}
}

// advance runs the heartbeats up to t: for each, the drop of a limiter
// idle over 10 s (checked first, as Heartbeat does), else its
// replenishment. A full bucket's heartbeats do nothing but wait for the
// drop (or, full-credit off, move the last replenishment on): they are
// run in one step. Without the heartbeat, the drop and the replenishment
// happen at t.
func (d *DotnetToken) advance(s *dotnetTokenState, t int64) {
	if !d.OnAt(dotnetTokenHeartbeat) {
		if !s.exists {
			return
		}
		if s.idleSet && t-s.idle > dotnetIdleLimit {
			*s = dotnetTokenState{}
			return
		}
		d.replenish(s, t)
		return
	}
	for s.exists {
		h := dotnetTick(true, s.seen+1)
		if h > t {
			return
		}
		if s.idleSet && h-s.idle > dotnetIdleLimit {
			*s = dotnetTokenState{}
			return
		}
		if !d.full(s) {
			d.replenish(s, h)
			s.seen = h
			continue
		}
		drop := int64(1<<63 - 1)
		if s.idleSet {
			drop = dotnetTick(true, algorithms.SatAdd(s.idle, dotnetIdleLimit+1))
		}
		if drop <= t {
			*s = dotnetTokenState{}
			return
		}
		last := algorithms.FloorDiv(t, dotnetHeartbeatEvery) * dotnetHeartbeatEvery // >= h
		if !d.OnAt(dotnetTokenFullCredit) {
			s.last = last
			s.exact.Refill(last, d.rule)
		}
		s.seen = last
		return
	}
}

func (d *DotnetToken) at(id int32, t int64) *dotnetTokenState {
	s := d.st.At(id)
	d.advance(s, t)
	if !s.exists {
		d.create(s, t)
	}
	return s
}

// Decide admits iff the bucket holds the cost (a cost above L throws:
// refused).
func (d *DotnetToken) Decide(id int32, t, cost int64) bool {
	s := d.at(id, t)
	if cost > d.rule.L {
		return false
	}
	if d.OnAt(dotnetTokenFloat) {
		return s.tokens >= float64(cost)
	}
	return s.exact.Fits(d.rule.L, cost, d.rule)
}

// Record takes cost tokens; the limiter is no longer idle.
func (d *DotnetToken) Record(id int32, t, cost int64) {
	s := d.at(id, t)
	s.tokens = float64(s.tokens - float64(cost))
	s.exact.Take(cost, d.rule)
	s.idleSet = false
}

// Idle: the key's limiter was dropped by t.
func (d *DotnetToken) Idle(id int32, t int64) bool {
	s := d.st.At(id)
	d.advance(s, t)
	return !s.exists
}
