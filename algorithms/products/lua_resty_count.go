package products

import (
	"fmt"
	"math"
	"slices"
	"time"

	"ratebench/algorithms"
)

// LuaRestyCount is lua-resty-limit-traffic's resty.limit.count (the source
// of NewLuaResty's doc: lib/resty/limit/count.lua), a fixed window per key
// kept in a lua_shared_dict.
//
// # Configuration
//
// The rule L/W is configured as the module's documentation writes it ("rate:
// 5000 requests per 3600s": new(dict, 5000, 3600)): new(dict, L, W in
// seconds), the double W/1s.
//
// # Decision (incoming(key, true), lines 49-70)
//
// lua-nginx-module 0.10.23 is past 0.10.12, so incoming is incoming_new
// (lines 18-25, 117): remaining = dict:incr(key, -1, limit, window), and
// the request is refused iff remaining < 0 (lines 57, 65-67). incr comes
// before the check: every request is counted, refused ones too, and
// nothing gives a refused one back (uncommit is the caller's to call).
// The shared dict's incr (lua-resty-core 0.1.25's shdict.lua:738-808 and
// lua-nginx-module v0.10.23's src/ngx_http_lua_shdict.c, its
// ngx_http_lua_ffi_shdict_incr, lines 1707-1908) passes the ttl as
// init_ttl = window*1000 to a C long: W truncated to whole milliseconds
// (a window below 1 ms would have no ttl, and never end: New refuses it).
// On nginx's cached clock in whole milliseconds, now = sec*1000 + msec:
//
//   - a key without a node, or whose node has expired (now > expires,
//     lookup, lines 206-214: ms < 0), gets the value limit - 1 and expires
//     = now + ttl: a window [a, a + ttl] from its first request a, its end
//     millisecond included;
//   - otherwise the value goes down by one, the expiry unchanged;
//   - refused iff the value is below 0: admitted iff the window's count,
//     this request included, is at most L.
//
// Before its lookup, every incr lets the dict drop up to two expired nodes
// from the tail of its queue of nodes by last use (ngx_http_lua_shdict_
// expire(ctx, 1), lines 235-300), expired there when now >= expires. At
// the very millisecond a window ends, now == expires, a key whose node is
// among the least recently used is thus dropped (its request starts a new
// window) while one used more recently keeps its window through that
// millisecond. The spec's zone models it (deviation zone-expiry; the dict
// never fills, its size not modelled): which node the sweep reaches
// depends on every key's requests, so it couples keys (CouplesKeys) and
// the harness replays it in one pass. Without zone a window always keeps
// its end millisecond. A single key is always at the tail: its windows
// are [a, a + ttl).
//
// The module has no request cost: incr(key, -1) counts one request
// (deviation one-hit). With one-hit off it counts the cost, refused iff
// the count exceeds L.
//
// # Twin and deviations
//
// The twin is the fixed window ("fixed"). The deviations:
//
//   - anchor: the window starts at the key's first request after the last
//     one ended (off: the epoch's windows of W).
//   - clock: nginx's whole milliseconds, W truncated to whole ms (off: ns,
//     W exactly).
//   - closed: a window keeps its end millisecond, [a, a + W] (off:
//     [a, a + W)).
//   - counts-refused: every request counted, refused ones too (shows only
//     with one-hit off and costs above 1).
//   - one-hit: one request whatever its cost.
//   - zone-expiry (with zone): the sweep of expired nodes from the tail.
//
// Memory: 16 bytes per key, the node's value (a double) and expiry.
type LuaRestyCount struct {
	algorithms.DeviationSet
	rule  algorithms.Rule
	ttlMs int64 // (long)(window*1000)
	st    algorithms.PerKey[luaCountState]
	zone  *keyQueue // with zone: the dict's queue of nodes
}

// luaCountState is a key's node: its window's start (anchored, on the
// clock; otherwise the epoch window's index) and count. live false: no
// window.
type luaCountState struct {
	start, count int64
	live         bool
}

const (
	luaCountAnchor = iota
	luaCountClock
	luaCountClosed
	luaCountCounts
	luaCountOneHit
	luaCountZone
)

var luaCountDeviations = []algorithms.Deviation{
	{Name: "anchor", About: "anchors each key's window at its first request after the last window ended (incr's init and ttl), not at multiples of W"},
	{Name: "clock", About: "decides on nginx's cached clock in whole milliseconds, W truncated to whole ms (the ttl a C long of ms)"},
	{Name: "closed", About: "keeps a window through its end millisecond (the dict's lookup expires a node once the clock is past it): a request at exactly a + W still counts in it"},
	{Name: "counts-refused", About: "counts every request, refused ones too (incr comes before the check)"},
	{Name: "one-hit", About: "counts each request as one whatever its cost (incr by -1)"},
}

var luaCountZoneDeviation = algorithms.Deviation{Name: "zone-expiry", About: "drops expired nodes from the least recently used end of the dict at each request, so that a key whose window ends at that very millisecond starts a new one if its node is among them"}

// NewLuaRestyCount returns resty.limit.count for rule r: new(dict, L, W in
// seconds); zone models the dict's expiry of its least recently used
// nodes.
func NewLuaRestyCount(r algorithms.Rule, zone bool) (*LuaRestyCount, error) {
	c := &LuaRestyCount{rule: r}
	window := float64(r.W) / float64(time.Second)
	c.ttlMs = int64(math.Trunc(window * 1000))
	if c.ttlMs < 1 {
		return nil, fmt.Errorf("algorithm %s:module=count: the window is a ttl in whole milliseconds, and below 1 ms the dict sets none (the count never resets): give a window of 1 ms or more, not %s", luaRestyName, algorithms.FormatWindow(r.W))
	}
	devs := luaCountDeviations
	if zone {
		z := newKeyQueue()
		c.zone = &z
		devs = append(slices.Clone(devs), luaCountZoneDeviation)
	}
	c.SetDeviations(devs...)
	return c, nil
}

func (c *LuaRestyCount) Name() string {
	n := luaRestyName + ":module=count"
	if c.zone != nil {
		n += ":zone"
	}
	return n + c.Suffix()
}

func (*LuaRestyCount) Twin() string { return "fixed" }

func (c *LuaRestyCount) Grow(n int) {
	c.st.Grow(n)
	if c.zone != nil {
		c.zone.grow(n)
	}
}

// Bytes: the node's value and expiry.
func (*LuaRestyCount) Bytes(int32) int64      { return 16 }
func (*LuaRestyCount) FixedSize() bool        { return true }
func (*LuaRestyCount) CountsRejected() bool   { return true }
func (c *LuaRestyCount) CountsEvery() bool    { return c.OnAt(luaCountCounts) }
func (c *LuaRestyCount) Warm(id int32) uint64 { return uint64(c.st.At(id).start) }

// CouplesKeys reports whether the dict's sweep is modelled (see
// KeyCoupler).
func (c *LuaRestyCount) CouplesKeys() bool {
	return c.zone != nil && c.OnAt(luaCountZone)
}

// now is t on the clock: whole ms, or ns.
func (c *LuaRestyCount) now(t int64) int64 {
	if c.OnAt(luaCountClock) {
		return algorithms.FloorDiv(t, int64(time.Millisecond))
	}
	return t
}

// length is the window's length on the clock: the ttl in ms, or W in ns.
func (c *LuaRestyCount) length() int64 {
	if c.OnAt(luaCountClock) {
		return c.ttlMs
	}
	return c.rule.W
}

// window returns the window a request at t is in: anchored, now (the
// start of the window it would open); otherwise the epoch window's index.
func (c *LuaRestyCount) window(t int64) int64 {
	if c.OnAt(luaCountAnchor) {
		return c.now(t)
	}
	return algorithms.FloorDiv(c.now(t), c.length())
}

// ended reports whether key s's window is over at t (for a request at t:
// the lookup's rule, closed or not).
func (c *LuaRestyCount) ended(s *luaCountState, t int64) bool {
	if !s.live {
		return true
	}
	if !c.OnAt(luaCountAnchor) {
		return s.start != c.window(t)
	}
	end := algorithms.SatAdd(s.start, c.length())
	if c.OnAt(luaCountClosed) {
		return c.now(t) > end
	}
	return c.now(t) >= end
}

// sweep is the dict's expire(ctx, 1) at now (clock units): up to two nodes
// from the tail dropped while expired, now >= expires.
func (c *LuaRestyCount) sweep(now int64) {
	for range 2 {
		q := c.zone.tail
		if q < 0 {
			return
		}
		s := c.st.At(q)
		if s.live && now < algorithms.SatAdd(s.start, c.length()) {
			return
		}
		c.Release(q)
	}
}

// Decide admits iff the window's count plus the request's (one, or its
// cost) is at most L. With zone it first sweeps the dict and moves the
// key's node to the head, as every incr does.
func (c *LuaRestyCount) Decide(id int32, t, cost int64) bool {
	if c.CouplesKeys() && c.OnAt(luaCountAnchor) {
		c.sweep(c.now(t))
		c.zone.touch(id)
	}
	s := c.st.At(id)
	count := int64(0)
	if !c.ended(s, t) {
		count = s.count
	}
	return oneHit(c.OnAt(luaCountOneHit), cost) <= c.rule.L-count
}

// Record counts the request, in a new window if the key's has ended.
func (c *LuaRestyCount) Record(id int32, t, cost int64) {
	s := c.st.At(id)
	if c.ended(s, t) {
		*s = luaCountState{start: c.window(t), live: true}
	}
	s.count = algorithms.SatAdd(s.count, oneHit(c.OnAt(luaCountOneHit), cost))
}

// Idle: the key's window has ended (never, with the dict's sweep: its node
// may yet stop the sweep before another's).
func (c *LuaRestyCount) Idle(id int32, t int64) bool {
	if c.CouplesKeys() {
		return false
	}
	return c.ended(c.st.At(id), t)
}

func (c *LuaRestyCount) Release(id int32) {
	*c.st.At(id) = luaCountState{}
	if c.zone != nil {
		c.zone.release(id)
	}
}
