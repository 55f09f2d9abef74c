package products

import (
	"fmt"
	"math"
	"strings"
	"time"

	"ratebench/algorithms"
)

func init() {
	algorithms.Register(algorithms.Kind{Spec: "nestjs-throttler[:blockDuration=D]", Place: 28, About: "@nestjs/throttler's ThrottlerGuard on its ThrottlerStorageService ({limit: L, ttl: W in ms}): a sliding log of each hit's expiry on Date.now's milliseconds; the request that finds L live hits blocks the key for blockDuration (default ttl), after which the log starts afresh; blockDuration=0 refuses without blocking",
		Build: func(c algorithms.Call, r algorithms.Rule) (algorithms.Limiter, error) {
			return NewNestThrottler(r, c.Arg, c.HasArg)
		}})
}

// NestThrottler is @nestjs/throttler's ThrottlerGuard with its default
// storage, ThrottlerStorageService, modelled from the package npm
// publishes, @nestjs/throttler 6.7.1 (nestjs/throttler, src/ compiled to
// dist/): dist/throttler.service.js:76-150 (increment,
// incrementWithoutBlock, fireHitCount, pruneExpiredHits) and
// dist/throttler.guard.js:91-128 (handleRequest).
//
// The rule L/W is configured as its documentation writes "L requests per
// W": ThrottlerModule.forRoot([{ ttl: W in ms, limit: L }]); blockDuration
// defaults to ttl (guard line 93: blockDuration ?? ttl), and
// blockDuration=D sets it (D = 0: no block).
//
// The storage keeps, per key, the expiry of each hit, Date.now() + ttl
// (fireHitCount), and drops those at or before Date.now() at each request
// (pruneExpiredHits: expiresAt > now stays): a sliding log whose window is
// (now - W, now] on Date.now's milliseconds, the expiry a float64 sum.
// increment, with blockDuration > 0:
//
//   - a key not blocked has the request's hit pushed; if the live hits then
//     exceed the limit, the key is blocked till Date.now() + blockDuration:
//     admitted iff fewer than L hits were live, refused otherwise, and
//     that refusal blocks.
//   - a blocked key's requests are refused and push nothing, until
//     ceil((blockExpiresAt - Date.now())/1000) <= 0, i.e. blockExpiresAt
//     <= Date.now(): that request resets the key (its hits forgotten, no
//     longer blocked) and pushes its hit, admitted.
//   - the hit the blocking request pushed is forgotten with the rest when
//     the block ends, so it changes no decision.
//
// With blockDuration 0 (incrementWithoutBlock) a request is refused iff L
// hits are live, and pushes nothing then: the sliding log. The storage's
// sweep (every 60 s, evictIdleRecords) drops only keys with no live hit
// and no block in force, which decide as new ones: the model keeps no
// sweep. Neither the guard nor the storage takes a weight: one hit per
// request.
//
// As a Product its twin is log, with a block log:block=D (the refusal
// cache of D), and its deviations are "clock" (Date.now's whole
// milliseconds, the expiries float64 sums; off: ns, W and D exactly),
// "one-hit" (one hit per request whatever its cost) and, with a block
// shorter than the window, "block-clears" (the block's end forgets the
// key's hits; off: they stay until they expire, as in the twin's log; a
// block of W or more outlasts every hit anyway). With all of them off it
// decides as its twin.
//
// The model keeps a key's live hits as the log keeps its entries
// (algorithms.KeyEntries: each hit's instant on the model's clock, and
// its weight), and drops at each request those at or before the last
// instant whose expiry is over (cutoff): with "clock" on, the last whole
// millisecond x whose float64 x + ttl is at most now, found beside
// now - ttl and checked with the float64 sum itself.
//
// Memory: each live hit's expiry, 8 bytes (up to L of them), plus the
// record's expiresAt, blockExpiresAt and isBlocked, 24 bytes.
type NestThrottler struct {
	algorithms.DeviationSet
	rule  algorithms.Rule
	block int64   // blockDuration, ns
	named bool    // blockDuration given in the spec
	ttlMs float64 // ttl, ms, as JavaScript reads W/1ms
	blkMs float64 // blockDuration, ms
	hits  algorithms.KeyEntries
	st    algorithms.PerKey[nestBlock]

	iClears int
}

// nestBlock is a key's block: the instant (on the model's clock) it
// began.
type nestBlock struct {
	from    int64
	blocked bool
}

const (
	nestClock = iota
	nestOneHit
)

// NewNestThrottler returns @nestjs/throttler for rule r with arg's
// blockDuration=D.
func NewNestThrottler(r algorithms.Rule, arg string, hasArg bool) (*NestThrottler, error) {
	n := &NestThrottler{rule: r, block: r.W, iClears: -1, hits: algorithms.NewKeyEntries(algorithms.RingFor(r.L))}
	if hasArg {
		v, ok := strings.CutPrefix(strings.TrimSpace(arg), "blockDuration=")
		d, err := time.ParseDuration(v)
		if !ok || err != nil || d < 0 {
			return nil, fmt.Errorf("algorithm %q: want nestjs-throttler or nestjs-throttler:blockDuration=D, D a duration from 0 (0: no block)", "nestjs-throttler:"+arg)
		}
		n.block, n.named = int64(d), true
	}
	ms := float64(time.Millisecond)
	n.ttlMs, n.blkMs = float64(r.W)/ms, float64(n.block)/ms
	switch {
	case r.L > 1<<53:
		return nil, fmt.Errorf("algorithm %q: the limit is a JavaScript number, exact up to 2^53, not %d", n.spec(), r.L)
	case r.W < int64(time.Millisecond):
		return nil, fmt.Errorf("algorithm %q: a ttl below 1 ms is below Date.now's resolution: not %s", n.spec(), algorithms.FormatWindow(r.W))
	}
	devs := []algorithms.Deviation{
		{Name: "clock", About: "decides on Date.now() in whole milliseconds, each hit's expiry and the block's end float64 sums"},
		{Name: "one-hit", About: "counts one hit per request whatever its cost (the storage's increment pushes one expiry)"},
	}
	if n.block > 0 && n.block < r.W {
		n.iClears = len(devs)
		devs = append(devs, algorithms.Deviation{Name: "block-clears", About: "the block's end forgets the key's hits: the next request starts afresh"})
	}
	n.SetDeviations(devs...)
	return n, nil
}

func (n *NestThrottler) spec() string {
	switch {
	case n.named && n.block == 0:
		return "nestjs-throttler:blockDuration=0s"
	case n.named:
		return "nestjs-throttler:blockDuration=" + algorithms.FormatWindow(n.block)
	}
	return "nestjs-throttler"
}

// BlockDuration is the blockDuration configured, ns (0: no block).
func (n *NestThrottler) BlockDuration() int64 { return n.block }

func (n *NestThrottler) Name() string { return n.spec() + n.Suffix() }

func (n *NestThrottler) Twin() string {
	if n.block > 0 {
		return "log:block=" + algorithms.FormatWindow(n.block)
	}
	return "log"
}

func (n *NestThrottler) Grow(i int) {
	n.st.Grow(i)
	n.hits.Grow(i)
}
func (n *NestThrottler) Bytes(id int32) int64 { return 24 + 8*n.hits.Key(id).Sum() }
func (*NestThrottler) FixedSize() bool        { return false }
func (*NestThrottler) CountsRejected() bool   { return true }
func (n *NestThrottler) Warm(id int32) uint64 { return n.hits.Key(id).Warm() }
func (n *NestThrottler) on(i int) bool        { return i >= 0 && n.OnAt(i) }

// now is t on the model's clock: whole milliseconds, or ns.
func (n *NestThrottler) now(t int64) int64 {
	if n.on(nestClock) {
		return algorithms.FloorDiv(t, int64(time.Millisecond))
	}
	return t
}

// over reports whether something set at from for d (ns; dMs in ms) is over
// at now: expiresAt = Date.now() + d, over once expiresAt <= Date.now().
func (n *NestThrottler) over(from, now, d int64, dMs float64) bool {
	if n.on(nestClock) {
		return float64(from)+dMs <= float64(now)
	}
	return now-from >= d
}

// cutoff returns the last instant on the model's clock whose hit is over
// at now (the model's clock): now - W in ns; with "clock", the last whole
// millisecond x with float64(x) + ttl <= float64(now). The sum rounds
// monotonically in x, so the hits over are those at or before it; it is
// searched from now - ceil(ttl), within a step or two of it, each step
// checked with the sum itself.
func (n *NestThrottler) cutoff(now int64) int64 {
	if !n.on(nestClock) {
		return now - n.rule.W
	}
	x := now - int64(math.Ceil(n.ttlMs))
	for n.over(x+1, now, n.rule.W, n.ttlMs) {
		x++
	}
	for !n.over(x, now, n.rule.W, n.ttlMs) {
		x--
	}
	return x
}

// advance drops the hits expired at t and ends a block over at t; it
// returns the key's hits and block.
func (n *NestThrottler) advance(id int32, t int64) (algorithms.Entries, *nestBlock) {
	now := n.now(t)
	e, s := n.hits.Key(id), n.st.At(id)
	e.Expire(n.cutoff(now))
	if s.blocked && n.over(s.from, now, n.block, n.blkMs) {
		s.blocked = false
		if n.on(n.iClears) {
			e.Drop()
		}
	}
	return e, s
}

// Decide refuses a blocked key; otherwise it admits iff the request's hits
// fit beside the live ones, and a refusal blocks the key (with a block).
func (n *NestThrottler) Decide(id int32, t, cost int64) bool {
	e, s := n.advance(id, t)
	if s.blocked {
		return false
	}
	if oneHit(n.on(nestOneHit), cost) <= n.rule.L-e.Sum() {
		return true
	}
	if n.block > 0 {
		s.blocked, s.from = true, n.now(t)
	}
	return false
}

// Record logs the request's hit.
func (n *NestThrottler) Record(id int32, t, cost int64) {
	e, _ := n.advance(id, t)
	if c := oneHit(n.on(nestOneHit), cost); c > 0 {
		e.Add(n.now(t), c)
	}
}

// Estimate returns the live hits, as the log's count.
func (n *NestThrottler) Estimate(id int32, _ int64) algorithms.Rational {
	return algorithms.Whole(n.hits.Key(id).Sum())
}

// Idle: no hit is live and no block in force at t.
func (n *NestThrottler) Idle(id int32, t int64) bool {
	e, s := n.advance(id, t)
	return e.Len() == 0 && !s.blocked
}

func (n *NestThrottler) Release(id int32) {
	n.hits.Key(id).Drop()
	*n.st.At(id) = nestBlock{}
}
