package products

import (
	"fmt"
	"strings"
	"time"

	"ratebench/algorithms"
)

func init() {
	algorithms.Register(algorithms.Kind{Spec: "gubernator[:algorithm=token|leaky]", Place: 26, About: "gubernator's rate limits (RateLimitReq{Limit: L, Duration: W in ms, Hits: cost}) on one node: TOKEN_BUCKET (default), a fixed window anchored at the key's first request and closed at its end, or LEAKY_BUCKET (algorithm=leaky), a token bucket of L leaking in float64 on a millisecond clock",
		Build: func(c algorithms.Call, r algorithms.Rule) (algorithms.Limiter, error) {
			leaky := false
			if c.HasArg {
				v, ok := strings.CutPrefix(strings.TrimSpace(c.Arg), "algorithm=")
				if !ok || v != "token" && v != "leaky" {
					return nil, fmt.Errorf("algorithm %q: want gubernator, gubernator:algorithm=token or gubernator:algorithm=leaky", c.Spec)
				}
				leaky = v == "leaky"
			}
			return NewGubernator(r, leaky)
		}})
}

// Gubernator is github.com/gubernator-io/gubernator/v2's rate limiting on
// the node that owns the key (no peers, no GLOBAL behaviour, no store),
// modelled from algorithms.go, cache.go, lrucache.go and gubernator.go at
// v2.19.1 (commit 26bd42f6e12a81869c213dbe37524edf6397dc62; the line
// numbers below are v2.19.1's), whose arithmetic is that of v2.13.0
// (commit a729573411507e83566e4f85e209c3835be54ddb; algorithms.go differs
// only in tracing). The rule "L requests per W" is a RateLimitReq{Limit:
// L, Duration: W in milliseconds, Algorithm: TOKEN_BUCKET or LEAKY_BUCKET}
// with Hits the request's cost (a W that is not whole milliseconds is
// refused, naming the rule to give).
//
// The clock is clock.Now() of github.com/mailgun/holster/v4/clock in
// whole milliseconds: the request's CreatedAt is epochMillis(clock.Now()),
// t.UnixNano() / 1_000_000 (gubernator.go:202, 225-227), and a cache item
// is expired when ExpireAt < MillisecondNow() (cache.go:43-57,
// lrucache.go:106-108): here floor(t/1ms).
//
// TOKEN_BUCKET (algorithms.go:37-252), despite its name, is a fixed window
// anchored at the key's first request:
//
//   - A key with no live item gets one at its request's millisecond c0,
//     with Remaining = Limit - Hits and ExpireAt = c0 + Duration
//     (tokenBucketNewItem, lines 202-245); a request with Hits > Limit is
//     refused and leaves Remaining = Limit (lines 236-243), but the item,
//     and so the window, is made.
//   - Nothing refills it: it lives until ExpireAt < now, so the window is
//     [c0, c0 + W] milliseconds, its end included, and the first request
//     after it makes a new item, the next window.
//   - An existing item admits iff Hits <= Remaining, and takes Hits from
//     it (lines 160-194); a refused request changes nothing (no
//     DRAIN_OVER_LIMIT). Refused requests are not counted.
//
// LEAKY_BUCKET (algorithms.go:255-492), with Burst = 0, so Burst = Limit
// (line 259-261), is a token bucket of capacity L refilled L per W, kept
// in float64:
//
//   - A new item holds Remaining = float64(Burst - Hits), UpdatedAt = c;
//     Hits > Burst is refused and leaves Remaining = 0 (lines 452-476).
//   - An existing item: rate := float64(Duration) / float64(Limit) (line
//     335), elapsed := createdAt - b.UpdatedAt, leak :=
//     float64(elapsed) / rate, and only if int64(leak) > 0 is it added,
//     b.Remaining += leak, b.UpdatedAt = createdAt (lines 360-366): a
//     fraction of a hit leaked is not added until a whole hit has leaked
//     since the last addition (the time is kept, not the fraction lost).
//   - if int64(b.Remaining) > b.Burst, Remaining = Burst (lines 368-370):
//     a fraction above Burst stays.
//   - Refused iff Hits > int64(Remaining) (lines 388-419); admitted,
//     Remaining -= Hits, except when int64(Remaining) == Hits, where
//     Remaining = 0 and the fraction goes too (lines 397-402, 426).
//   - Every request sets the item's ExpireAt to c + Duration (line 356),
//     and an expired item is a new, full one. That is modelled, and is no
//     deviation: a bucket idle for longer than W has leaked L >= Burst,
//     full anyway, in exact arithmetic (in float64 a leak of W/(W/L) may
//     fall short of L, and a fraction above Burst may stay, which the
//     model reproduces).
//
// As a Product, the token bucket's twin is fixed, with deviations anchor
// (windows from the millisecond of the key's first request, and the first
// request after one ends; off: from the epoch's multiples of W) and closed
// (the window holds its end millisecond, ExpireAt < now: off, it ends
// before it). The millisecond clock is no deviation there: W is whole
// milliseconds, so the epoch's window of floor(t/1ms) is the window of t.
// The leaky bucket's twin is token (B = L), with deviations clock (whole
// milliseconds; off: nanoseconds), float (the rate and leak in float64;
// off: exact), whole-leak, drop-fraction, cap-fraction and drain-new (the
// four rules above; off: the token bucket's). With all off each decides as
// its twin. Neither counts a refused request (CountsRejected false).
//
// What changes no decision, and is left out: the LRU cache's size (50,000
// items by default, an evicted key starts over), peers, GLOBAL, stores,
// Gregorian durations, and the other behaviours (DRAIN_OVER_LIMIT,
// RESET_REMAINING), all off by default.
//
// Memory: the cache item (algorithm, key header, value interface,
// ExpireAt, InvalidAt: 56 bytes) and its TokenBucketItem or
// LeakyBucketItem (40 bytes): 96 bytes per key, the LRU list element, the
// map entry and the key's bytes not counted.
type Gubernator struct {
	algorithms.DeviationSet
	rule  algorithms.Rule
	leaky bool
	st    algorithms.PerKey[gubernatorState]
}

// gubernatorState is a key's cache item. Times are in the clock's unit
// (milliseconds, or nanoseconds without the clock deviation). For the
// token bucket: the window's start and the hits remaining. For the leaky
// bucket: the remaining hits in float64 (float) or exactly as x = (B + 1 -
// Remaining) * W (never negative while Remaining <= B + 1), UpdatedAt, and
// ExpireAt.
type gubernatorState struct {
	seen    bool
	start   int64 // token: the window's start
	rem     int64 // token: hits remaining
	remF    float64
	x       algorithms.U128
	updated int64
	expire  int64
}

// The deviations, in the order of the list.
const (
	gubAnchor = iota // token
	gubClosed        // token
)

const (
	gubClock = iota // leaky
	gubFloat
	gubWholeLeak
	gubDropFraction
	gubCapFraction
	gubDrainNew
)

// NewGubernator returns gubernator's TOKEN_BUCKET, or LEAKY_BUCKET, for
// rule r, or an error when W is not whole milliseconds.
func NewGubernator(r algorithms.Rule, leaky bool) (*Gubernator, error) {
	ms := int64(time.Millisecond)
	if r.W%ms != 0 {
		return nil, fmt.Errorf("algorithm \"gubernator\": Duration is whole milliseconds; give a window of whole milliseconds, not %s", algorithms.FormatWindow(r.W))
	}
	g := &Gubernator{rule: r, leaky: leaky}
	if leaky {
		g.SetDeviations(
			algorithms.Deviation{Name: "clock", About: "decides on a clock of whole milliseconds"},
			algorithms.Deviation{Name: "float", About: "keeps the remaining hits in float64, leaking elapsed/(W/L) at each request"},
			algorithms.Deviation{Name: "whole-leak", About: "adds what leaked only once a whole hit has leaked since the last addition (until then nothing, the time kept)"},
			algorithms.Deviation{Name: "drop-fraction", About: "empties the bucket when a request takes the remaining whole hits, losing the fraction left"},
			algorithms.Deviation{Name: "cap-fraction", About: "caps the bucket at L only when its whole part exceeds L, keeping a fraction above L"},
			algorithms.Deviation{Name: "drain-new", About: "empties a new bucket whose first request's cost exceeds L (refused)"},
		)
	} else {
		g.SetDeviations(
			algorithms.Deviation{Name: "anchor", About: "starts a window at the millisecond of the key's first request, and of the first after a window ends, not at the epoch's multiples of W"},
			algorithms.Deviation{Name: "closed", About: "holds the window's end millisecond in the window (expired only when ExpireAt < now)"},
		)
	}
	return g, nil
}

func (g *Gubernator) Name() string {
	if g.leaky {
		return "gubernator:algorithm=leaky" + g.Suffix()
	}
	return "gubernator" + g.Suffix()
}

func (g *Gubernator) Twin() string {
	if g.leaky {
		return algorithms.BucketSpec("token", g.rule.L, g.rule)
	}
	return "fixed"
}

func (g *Gubernator) Grow(n int)                { g.st.Grow(n) }
func (*Gubernator) Bytes(int32) int64           { return 96 }
func (*Gubernator) FixedSize() bool             { return true }
func (*Gubernator) CountsRejected() bool        { return false }
func (g *Gubernator) Warm(id int32) uint64      { return uint64(g.st.At(id).expire) }
func (g *Gubernator) Place(b *algorithms.Block) { g.st.Place(b) }

// unit is the clock's tick: a millisecond, or a nanosecond without the
// leaky bucket's clock deviation (the token bucket always reads
// milliseconds: no deviation there).
func (g *Gubernator) unit() int64 {
	if g.leaky && !g.OnAt(gubClock) {
		return 1
	}
	return int64(time.Millisecond)
}

// alive reports whether the key's item is live at c: ExpireAt < now
// expires it (closed), or ExpireAt <= now.
func (g *Gubernator) alive(s *gubernatorState, c int64) bool {
	if !s.seen {
		return false
	}
	if !g.leaky && !g.OnAt(gubClosed) {
		return c < s.expire
	}
	return c <= s.expire
}

func (g *Gubernator) Decide(id int32, t, cost int64) bool {
	s := g.st.At(id)
	u := g.unit()
	c := algorithms.FloorDiv(t, u)
	if !g.leaky {
		g.tokenAdvance(s, c, g.rule.W/u)
		return cost <= s.rem
	}
	return g.leakyDecide(s, c, cost, g.rule.W/u)
}

func (g *Gubernator) Record(id int32, t, cost int64) {
	s := g.st.At(id)
	u := g.unit()
	c := algorithms.FloorDiv(t, u)
	W := g.rule.W / u
	if !g.leaky {
		g.tokenAdvance(s, c, W)
		s.rem -= cost // cost <= MaxCost: far from overflow
		return
	}
	g.leakyAdvance(s, c, cost, W)
	B := g.rule.L
	if g.OnAt(gubFloat) {
		if g.OnAt(gubDropFraction) && int64(s.remF) == cost {
			s.remF = 0
		} else {
			s.remF -= float64(cost)
		}
		return
	}
	// Exactly: floor(Remaining) == cost iff (B-cost)*W < x <= (B+1-cost)*W.
	if g.OnAt(gubDropFraction) && cost <= B && algorithms.Mul(B-cost, W).Lt(s.x) && s.x.Le(algorithms.Mul(B+1-cost, W)) {
		s.x = algorithms.Mul(B+1, W)
		return
	}
	s.x = s.x.Add(algorithms.Mul(cost, W))
}

// tokenAdvance makes a new item at c if the key has none live
// (tokenBucketNewItem): the window starts at c (anchor) or at c's
// multiple of W, and holds L.
func (g *Gubernator) tokenAdvance(s *gubernatorState, c, W int64) {
	if g.alive(s, c) {
		return
	}
	start := c
	if !g.OnAt(gubAnchor) {
		start = algorithms.FloorDiv(c, W) * W
	}
	*s = gubernatorState{seen: true, start: start, rem: g.rule.L, expire: algorithms.SatAdd(start, W)}
}

// leakyAdvance brings the key's bucket to c: a new, full item if it has
// none live, else the leak and the cap; and the item's expiry moved to
// c + W, as every request does. It reports whether the item is new.
func (g *Gubernator) leakyAdvance(s *gubernatorState, c, cost, W int64) bool {
	B := g.rule.L
	if !g.alive(s, c) {
		*s = gubernatorState{seen: true, remF: float64(B), x: algorithms.Mul(1, W), updated: c, expire: algorithms.SatAdd(c, W)}
		return true
	}
	s.expire = algorithms.SatAdd(c, W)
	whole := g.OnAt(gubWholeLeak)
	if g.OnAt(gubFloat) {
		rate := float64(W) / float64(B)
		leak := float64(c-s.updated) / rate
		if !whole || int64(leak) > 0 {
			s.remF += leak
			s.updated = c
		}
		if g.OnAt(gubCapFraction) {
			if int64(s.remF) > B {
				s.remF = float64(B)
			}
		} else if s.remF > float64(B) {
			s.remF = float64(B)
		}
		return false
	}
	// Exactly, with x = (B+1-Remaining)*W: the leak is elapsed*L/W hits,
	// x less elapsed*L; a whole hit has leaked iff elapsed*L >= W.
	// Capped at B (x = W) when Remaining > B (x < W), or, cap-fraction,
	// when floor(Remaining) > B (x <= 0).
	e := c - s.updated
	if e < 0 {
		e = 0
	}
	leak := algorithms.Mul(e, B)
	if whole && leak.Lt(algorithms.Mul(1, W)) {
		return false
	}
	s.updated = c
	full := algorithms.Mul(1, W)
	if !leak.Lt(s.x) { // Remaining would reach B+1 or more
		s.x = full
		return false
	}
	s.x = s.x.Minus(leak)
	if !g.OnAt(gubCapFraction) && s.x.Lt(full) {
		s.x = full
	}
	return false
}

// leakyDecide: admitted iff cost <= int64(Remaining); a new item refused
// for cost > B is left empty (drain-new).
func (g *Gubernator) leakyDecide(s *gubernatorState, c, cost, W int64) bool {
	B := g.rule.L
	isNew := g.leakyAdvance(s, c, cost, W)
	var ok bool
	if g.OnAt(gubFloat) {
		ok = cost <= int64(s.remF)
	} else {
		ok = cost <= B+1 && s.x.Le(algorithms.Mul(B+1-cost, W))
	}
	if isNew && !ok && cost > B && g.OnAt(gubDrainNew) {
		s.remF, s.x = 0, algorithms.Mul(B+1, W)
	}
	return ok
}

// Idle: the key has no live item, so its next request makes a new one, as
// a key never seen.
func (g *Gubernator) Idle(id int32, t int64) bool {
	s := g.st.At(id)
	return !g.alive(s, algorithms.FloorDiv(t, g.unit()))
}

func (g *Gubernator) Release(id int32) { *g.st.At(id) = gubernatorState{} }
