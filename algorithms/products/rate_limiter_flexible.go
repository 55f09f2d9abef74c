package products

import (
	"fmt"
	"math"
	"strings"
	"time"

	"ratebench/algorithms"
)

func init() {
	algorithms.Register(algorithms.Kind{Spec: "rate-limiter-flexible[:store=memory|redis][:blockDuration=D]", Place: 27, About: "rate-limiter-flexible's RateLimiterMemory or RateLimiterRedis ({points: L, duration: W in seconds}, consume(key, cost)): a fixed window from the key's first hit on a millisecond clock (Date.now, or Redis's, its window whole seconds and closed at its expiry), every consume counted, refused once the points exceed L; blockDuration=D blocks a key for D from its first refusal",
		Build: func(c algorithms.Call, r algorithms.Rule) (algorithms.Limiter, error) {
			return NewRateLimiterFlexible(r, c.Arg, c.HasArg)
		}})
}

// RateLimiterFlexible is rate-limiter-flexible's RateLimiterMemory and
// RateLimiterRedis, consume(key, points), modelled from the package npm
// publishes, rate-limiter-flexible 11.4.0 (animir/node-rate-limiter-flexible,
// the same lib/ files): lib/RateLimiterMemory.js:17-45,
// lib/component/MemoryStorage/MemoryStorage.js:14-60,
// lib/RateLimiterRedis.js:4-12, 121-170, lib/RateLimiterStoreAbstract.js:
// 47-98, 108-115, lib/RateLimiterAbstract.js:34-60.
//
// The rule L/W is configured as its documentation writes "L points per W
// seconds": new RateLimiterMemory({ points: L, duration: W in seconds })
// (or RateLimiterRedis({ storeClient, points, duration })), and each
// request consume(key, cost) (pointsToConsume, default 1). blockDuration=D
// adds blockDuration: D in seconds (default 0: no block).
//
// The memory store (RateLimiterMemory.consume, MemoryStorage.incrby):
//
//   - a key's record holds the points consumed and expiresAt = Date.now()
//   - duration*1000, set by its first consume (set, lines 36-47); a
//     consume adds its points while expiresAt - Date.now() > 0 (incrby,
//     lines 14-30), else starts a new record: the window is [a, a + W) on
//     Date.now's milliseconds, a the key's first consume after the last
//     window ended. duration*1000 is float64, as JavaScript computes it
//     (the model computes the same).
//   - every consume is counted, refused ones too (incrby comes before the
//     check), with its points: the cost.
//   - refused iff consumedPoints > points (line 27): admitted iff
//     curr + cost <= L.
//   - with blockDuration > 0, the consume that first goes over (consumed
//     <= points + pointsToConsume, line 29: the count was within L before
//     it) replaces the record by one of the same count that expires
//     blockDuration*1000 ms later (set, line 31): every consume in that
//     time is refused, and the first after it starts a new window. A
//     consume refused in the block is not "first over", so the block is
//     not extended.
//   - set also arms setTimeout(delete the key, durationMs) (lines 49-55),
//     and Node's timers truncate their delay to whole milliseconds: the
//     record is gone trunc(duration*1000) ms after it was set, at or
//     before its expiresAt (the same instant for a whole number of ms).
//     The timer runs on Node's clock, not Date.now's; the model takes
//     them as one, as the driven replay does (were they to drift apart, a
//     record could go within that drift of its expiry). A delay beyond
//     setTimeout's 2^31-1 ms runs after 1 ms: New refuses such a window or
//     block.
//
// The Redis store runs incrTtlLuaScript (RateLimiterRedis.js:4-12):
// SET key 0 EX secDuration NX; INCRBY key points; PTTL, secDuration =
// floor(duration*1000/1000) (line 125): W cut to whole seconds (below 1 s
// it is 0 and the store sets no expiry at all: New refuses it). Redis
// keeps a key through its expiry's millisecond (a key expires once the
// clock is past it): the window is [a, a + S] on Redis's milliseconds,
// closed, S the whole seconds of W. The block is _block's SET key consumed
// EX floor(blockDuration*1000/1000) (RateLimiterStoreAbstract.js:72-76,
// RateLimiterRedis.js:131-143), in whole seconds too, closed as well (a
// blockDuration below 1 s would set no expiry: New refuses it). The
// in-memory block (inMemoryBlockOnConsumed) is off by default.
//
// As a Product its twin is fixed, with blockDuration=D fixed:block=D (the
// refusal cache of D), and its deviations are "anchor" (the window starts
// at the key's first consume; off: windows at multiples of W from the
// epoch), "clock" (Date.now's or Redis's whole milliseconds; W and the
// block cut to whole milliseconds by the record's timer, on Redis to whole
// seconds; off: ns, W and D exactly), "counts-refused" (refused consumes counted; shows with costs
// above 1), with the Redis store "closed" (the key lives through its
// expiry's millisecond), and with a block "block-clears" (the block
// replaces the key's window: the first consume after it starts afresh;
// off: the window in force when the block began goes on, as the twin's
// refusal cache leaves its limiter). With all of them off it decides as
// its twin.
//
// Memory: the points and the expiry (a Redis counter and its expiry), 16
// bytes per key; the block is that same record.
type RateLimiterFlexible struct {
	algorithms.DeviationSet
	rule  algorithms.Rule
	redis bool
	block int64   // blockDuration, ns; 0: none
	durMs float64 // duration*1000, as JavaScript computes it
	blkMs float64 // blockDuration*1000
	st    algorithms.PerKey[rlfState]

	iAnchor, iClock, iCounts, iClosed, iClears int
}

// rlfState is a key's window (with "anchor" its first consume's instant on
// the model's clock, else its index among the epoch's windows) and count,
// and its block's end on the model's clock.
type rlfState struct {
	start, curr, until int64
	live, blocked      bool
}

// NewRateLimiterFlexible returns rate-limiter-flexible for rule r with
// arg's parameters (store=memory|redis, blockDuration=D).
func NewRateLimiterFlexible(r algorithms.Rule, arg string, hasArg bool) (*RateLimiterFlexible, error) {
	f := &RateLimiterFlexible{rule: r}
	bad := func(why string) (*RateLimiterFlexible, error) {
		return nil, fmt.Errorf("algorithm %q: %s", "rate-limiter-flexible:"+arg, why)
	}
	if hasArg {
		for _, kv := range strings.Split(arg, ":") {
			k, v, _ := strings.Cut(strings.TrimSpace(kv), "=")
			switch {
			case k == "store" && (v == "memory" || v == "redis"):
				f.redis = v == "redis"
			case k == "blockDuration":
				d, err := time.ParseDuration(v)
				if err != nil || d <= 0 {
					return bad("blockDuration=D takes a positive duration (e.g. blockDuration=10s)")
				}
				f.block = int64(d)
			default:
				return bad("want rate-limiter-flexible[:store=memory|redis][:blockDuration=D]")
			}
		}
	}
	ms, sec := int64(time.Millisecond), int64(time.Second)
	// duration*1000 and blockDuration*1000 in float64, duration the
	// decimal W/1s as JavaScript reads it (the float64 nearest W/1e9).
	f.durMs = float64(float64(r.W)/float64(sec)) * 1000
	f.blkMs = float64(float64(f.block)/float64(sec)) * 1000
	switch {
	case r.L > 1<<53:
		return nil, fmt.Errorf("algorithm %q: points is a JavaScript number, exact up to 2^53, not %d", f.spec(), r.L)
	case !f.redis && r.W < ms:
		return nil, fmt.Errorf("algorithm %q: a window below 1 ms is below Date.now's resolution: not %s", f.spec(), algorithms.FormatWindow(r.W))
	case !f.redis && (f.durMs > 1<<31-1 || f.blkMs > 1<<31-1):
		return nil, fmt.Errorf("algorithm %q: the memory store deletes a record with setTimeout, which takes up to 2147483647 ms: give a window and a block within it", f.spec())
	case f.redis && math.Floor(f.durMs/1000) < 1:
		return nil, fmt.Errorf("algorithm %q: the Redis store's window is EX floor(duration) seconds, and below 1 s it sets none (the key never expires): give a window of 1 s or more, not %s", f.spec(), algorithms.FormatWindow(r.W))
	case f.redis && f.block > 0 && math.Floor(f.blkMs/1000) < 1:
		return nil, fmt.Errorf("algorithm %q: the Redis store blocks for EX floor(blockDuration) seconds, and below 1 s for ever: give a blockDuration of 1 s or more", f.spec())
	}
	clock := "Date.now()"
	if f.redis {
		clock = "Redis's clock"
	}
	devs := []algorithms.Deviation{
		{Name: "anchor", About: "anchors each key's window at its first consume after the last window ended (expiresAt = now + duration*1000), not at multiples of W"},
		{Name: "clock", About: "decides on " + clock + " in whole milliseconds, " + map[bool]string{false: "W and the block cut to whole milliseconds (the record's setTimeout)", true: "W and the block cut to whole seconds (EX)"}[f.redis]},
		{Name: "counts-refused", About: "counts every consume, refused ones too (incrby comes before the check)"},
	}
	f.iAnchor, f.iClock, f.iCounts, f.iClosed, f.iClears = 0, 1, 2, -1, -1
	if f.redis {
		f.iClosed = len(devs)
		devs = append(devs, algorithms.Deviation{Name: "closed", About: "keeps a key through its expiry's millisecond (Redis expires a key once its clock is past the expiry): a consume at exactly the window's end still counts in it"})
	}
	if f.block > 0 {
		f.iClears = len(devs)
		devs = append(devs, algorithms.Deviation{Name: "block-clears", About: "the block replaces the key's window: the first consume after the block starts a new one"})
	}
	f.SetDeviations(devs...)
	return f, nil
}

func (f *RateLimiterFlexible) spec() string {
	s := "rate-limiter-flexible"
	if f.redis {
		s += ":store=redis"
	}
	if f.block > 0 {
		s += ":blockDuration=" + algorithms.FormatWindow(f.block)
	}
	return s
}

func (f *RateLimiterFlexible) on(i int) bool { return i >= 0 && f.OnAt(i) }

// Redis reports whether the store is RateLimiterRedis.
func (f *RateLimiterFlexible) Redis() bool { return f.redis }

// BlockDuration is the blockDuration configured, ns (0: none).
func (f *RateLimiterFlexible) BlockDuration() int64 { return f.block }

func (f *RateLimiterFlexible) Name() string { return f.spec() + f.Suffix() }

func (f *RateLimiterFlexible) Twin() string {
	if f.block > 0 {
		return "fixed:block=" + algorithms.FormatWindow(f.block)
	}
	return "fixed"
}

func (f *RateLimiterFlexible) Grow(n int)           { f.st.Grow(n) }
func (*RateLimiterFlexible) Bytes(int32) int64      { return 16 }
func (*RateLimiterFlexible) FixedSize() bool        { return true }
func (*RateLimiterFlexible) CountsRejected() bool   { return true }
func (f *RateLimiterFlexible) CountsEvery() bool    { return f.on(f.iCounts) }
func (f *RateLimiterFlexible) Warm(id int32) uint64 { return uint64(f.st.At(id).curr) }

// now is t on the model's clock: whole milliseconds, or ns.
func (f *RateLimiterFlexible) now(t int64) int64 {
	if f.on(f.iClock) {
		return algorithms.FloorDiv(t, int64(time.Millisecond))
	}
	return t
}

// period is the window of the epoch's windows (anchor off): W, or on the
// Redis store's clock its whole seconds.
func (f *RateLimiterFlexible) period() int64 {
	if f.redis && f.on(f.iClock) {
		return int64(math.Floor(f.durMs/1000)) * int64(time.Second)
	}
	return f.rule.W
}

// epochTime is t in ns on the model's clock: floored to whole milliseconds
// with "clock".
func (f *RateLimiterFlexible) epochTime(t int64) int64 {
	if f.on(f.iClock) {
		return algorithms.FloorDiv(t, int64(time.Millisecond)) * int64(time.Millisecond)
	}
	return t
}

// ended reports whether a record set at start (on the model's clock) for
// d (ns; dMs its milliseconds in float64) has expired at now.
func (f *RateLimiterFlexible) ended(start, now, d int64, dMs float64) bool {
	switch {
	case !f.on(f.iClock) && f.on(f.iClosed):
		return now-start > d
	case !f.on(f.iClock):
		return now-start >= d
	case f.redis:
		end := start + int64(math.Floor(dMs/1000))*1000 // EX whole seconds, on the ms clock
		if f.on(f.iClosed) {
			return now > end
		}
		return now >= end
	default:
		// The record's setTimeout deletes it trunc(dMs) ms after it was
		// set, before expiresAt - Date.now() > 0 would end it.
		return now-start >= int64(math.Trunc(dMs))
	}
}

// advance ends the key's block and window once now is past them, and
// returns the window a consume at t would start.
func (f *RateLimiterFlexible) advance(s *rlfState, t int64) (start int64) {
	now := f.now(t)
	if s.blocked && f.ended(s.until, now, f.block, f.blkMs) {
		s.blocked = false
		if f.on(f.iClears) {
			s.live, s.curr = false, 0
		}
	}
	if !f.on(f.iAnchor) {
		start = algorithms.FloorDiv(f.epochTime(t), f.period())
		if s.live && start != s.start {
			s.live, s.curr = false, 0
		}
		return start
	}
	if s.live && f.ended(s.start, now, f.rule.W, f.durMs) {
		s.live, s.curr = false, 0
	}
	return now
}

// Decide refuses a blocked key; otherwise it admits iff the cost fits, and
// a refusal that first goes over blocks the key (with blockDuration).
func (f *RateLimiterFlexible) Decide(id int32, t, cost int64) bool {
	s := f.st.At(id)
	f.advance(s, t)
	if s.blocked {
		return false
	}
	if cost <= f.rule.L-s.curr {
		return true
	}
	// The first consume over the points: the count was within them (with
	// counts-refused off it always is but by the harness's shadow records,
	// and every refusal blocks, as the twin's cache does).
	if f.block > 0 && (s.curr <= f.rule.L || !f.on(f.iCounts)) {
		s.blocked, s.until = true, f.now(t)
	}
	return false
}

// MoveBlock begins key id's block at t, where the software set it after
// the refusal that began it (the Redis store's SET, a round trip after
// the consume); a key not blocked is left as it is.
func (f *RateLimiterFlexible) MoveBlock(id int32, t int64) {
	if s := f.st.At(id); s.blocked {
		s.until = f.now(t)
	}
}

// Record counts the consume; a key without a window starts one at t.
func (f *RateLimiterFlexible) Record(id int32, t, cost int64) {
	s := f.st.At(id)
	start := f.advance(s, t)
	if !s.live {
		s.start, s.live = start, true
	}
	s.curr = algorithms.SatAdd(s.curr, cost)
}

// Estimate returns the window's count, as the fixed window.
func (f *RateLimiterFlexible) Estimate(id int32, _ int64) algorithms.Rational {
	return algorithms.Whole(f.st.At(id).curr)
}

// Idle: the key has no window and no block at t.
func (f *RateLimiterFlexible) Idle(id int32, t int64) bool {
	s := f.st.At(id)
	f.advance(s, t)
	return !s.live && !s.blocked
}

func (f *RateLimiterFlexible) Release(id int32)          { *f.st.At(id) = rlfState{} }
func (f *RateLimiterFlexible) Place(b *algorithms.Block) { f.st.Place(b) }
