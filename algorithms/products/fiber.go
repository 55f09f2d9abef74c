package products

import (
	"fmt"
	"strings"
	"time"

	"ratebench/algorithms"
)

func init() {
	algorithms.Register(algorithms.Kind{Spec: "fiber[:strategy=fixed|sliding]", Place: 25, About: "Fiber's limiter middleware (limiter.Config{Max: L, Expiration: W}) on its whole-second clock: a fixed window anchored at the key's first request (default), or strategy=sliding, limiter.SlidingWindow{}, a sliding window counter whose weighted previous count is truncated in float64; every request counted, refused ones included, one per request",
		Build: func(c algorithms.Call, r algorithms.Rule) (algorithms.Limiter, error) {
			strategy := "fixed"
			if c.HasArg {
				v, ok := strings.CutPrefix(strings.TrimSpace(c.Arg), "strategy=")
				if !ok || v != "fixed" && v != "sliding" {
					return nil, fmt.Errorf("algorithm %q: want fiber, fiber:strategy=fixed or fiber:strategy=sliding", c.Spec)
				}
				strategy = v
			}
			return NewFiber(r, strategy == "sliding"), nil
		}})
}

// Fiber is the limiter middleware of github.com/gofiber/fiber/v2 v2.52.15
// (commit 5c7a80b327c130e93041e569e685825f804d5f15), with its default
// in-memory storage, modelled from middleware/limiter/limiter_fixed.go,
// limiter_sliding.go, config.go, manager.go, utils/time.go and
// internal/memory/memory.go. The rule "L requests per W" is
// limiter.New(limiter.Config{Max: L, Expiration: W}) ("Max number of
// recent connections during Expiration", config.go:17-32), with
// LimiterMiddleware: limiter.FixedWindow{} (the default) or
// limiter.SlidingWindow{} (fiber:strategy=sliding).
//
// Both strategies:
//
//   - The clock is utils.Timestamp, a uint32 of Unix seconds that a
//     goroutine stores at each tick of a one-second ticker,
//     uint32(t.Unix()) (utils/time.go:18-31), read as ts :=
//     uint64(atomic.LoadUint32(&utils.Timestamp)) (limiter_fixed.go:52,
//     limiter_sliding.go:52): whole seconds, here uint32(floor(t/1s)), the
//     ticks taken on the whole seconds (the process's ticker ticks at the
//     phase it started at, which a replay cannot know).
//   - The window is expiration := uint64(math.Ceil(cfg.Expiration.Seconds())),
//     at least 1 (limiter_fixed.go:22-27, limiter_sliding.go:22-27): W
//     rounded up to whole seconds.
//   - The window starts at the key's first request: e.exp = ts + expiration
//     when the entry is new (limiter_fixed.go:55-56), not at a multiple of
//     W.
//   - Every request is counted, refused ones included, and counts one hit
//     whatever its cost: e.currHits++ comes before the check
//     (limiter_fixed.go:64, limiter_sliding.go:76), and a request is
//     refused iff remaining := cfg.Max - hits is < 0 (lines 70 and 79 of
//     limiter_fixed.go; 88 and 108 of limiter_sliding.go): admitted iff
//     the hits, this one included, are at most L. (SkipFailedRequests and
//     SkipSuccessfulRequests, which take a hit back after the handler
//     answers, are off by default and not modelled.)
//
// The fixed window (limiter_fixed.go:54-61): a request at ts >= e.exp
// starts a new window at ts, e.currHits = 0, e.exp = ts + expiration: the
// windows are anchored at the first request after the last one ended, not
// on a grid.
//
// The sliding window (limiter_sliding.go:54-85): at ts >= e.exp, with
// elapsed := ts - e.exp, a key idle for a whole window (elapsed >=
// expiration) starts over anchored at ts; otherwise the current count
// becomes the previous one and the window moves on by one, e.exp = ts +
// expiration - elapsed: the windows stay on the grid of the key's first
// request until it is idle for a window. Then
//
//	resetInSec := e.exp - ts
//	weight := float64(resetInSec) / float64(expiration)
//	rate := int(float64(e.prevHits)*weight) + e.currHits
//
// (lines 79-85): the previous count weighted by the part of its window
// still inside the sliding one, as the counter's prev*(W-e)/W, computed in
// float64 and truncated to a whole number of requests.
//
// The storage's TTL changes no decision: the fixed entry lives expiration
// seconds after its last request (limiter_fixed.go:73), the sliding one
// until the end of the window after its current one (limiter_sliding.go:
// 102), and an expired entry (memory.go Get: e <= Timestamp) is a new one,
// which is exactly what the request would have made of it (a new window
// anchored at ts, both counts 0). A key is idle (Release) at the same
// instants.
//
// As a Product its twin is fixed (strategy fixed) or counter (sliding),
// and its deviations are clock (whole seconds; off: the trace's
// nanoseconds), ceil (the window rounded up to whole seconds; off: W),
// anchor (windows from the key's first request; off: from the epoch),
// cost (one hit per request; off: its cost), counts-refused (refused
// requests counted; off: only what the harness records), and for the
// sliding window floor (the weighted previous count truncated; off:
// compared exactly) and float (the weight and the product in float64;
// off: exact). With all off it decides as its twin.
//
// Fiber v3 (v3.5.0, commit 741d8511a75f408ddf93eb41b175df0165714f11)
// computes the same windows with the same clock, but its sliding window
// rounds the weighted previous count up: rate :=
// int(math.Ceil(float64(e.prevHits)*weight)) + e.currHits
// (limiter_sliding.go:74). This models v2.
//
// Memory: the entry, currHits, prevHits and exp (24 bytes, manager.go
// item), and the storage's record of it, an interface and a uint32 expiry
// (24 bytes with padding, memory.go item): 48 bytes per key, the key
// string not counted.
type Fiber struct {
	algorithms.DeviationSet
	rule    algorithms.Rule
	sliding bool
	st      algorithms.PerKey[fiberState]
}

// fiberState is a key's entry: the end of its current window, exp (0: no
// entry, a time a key's entry never has since its windows end after the
// first request), and its hit counts. Times are nanoseconds, whole
// seconds with the clock deviation on.
type fiberState struct {
	exp, prev, curr int64
}

// The deviations, in the order of the list.
const (
	fiberClock = iota
	fiberCeil
	fiberAnchor
	fiberCost
	fiberCountsRefused
	fiberFloor // sliding only
	fiberFloat // sliding only
)

// NewFiber returns Fiber's limiter middleware for rule r: the fixed
// window, or the sliding one.
func NewFiber(r algorithms.Rule, sliding bool) *Fiber {
	f := &Fiber{rule: r, sliding: sliding}
	devs := []algorithms.Deviation{
		{Name: "clock", About: "decides on a clock of whole seconds (a uint32 of Unix seconds a ticker updates every second)"},
		{Name: "ceil", About: "rounds the window up to whole seconds, at least one"},
		{Name: "anchor", About: "starts a key's windows at its first request (and, after a window with no request, at the next one), not at the epoch's multiples of W"},
		{Name: "cost", About: "counts one hit per request whatever its cost"},
		{Name: "counts-refused", About: "counts every request, refused ones included (the hit is counted before the check)"},
	}
	if sliding {
		devs = append(devs,
			algorithms.Deviation{Name: "floor", About: "truncates the weighted previous count to a whole number of requests: admits while floor(prev*(W-e)/W) + curr + 1 <= L"},
			algorithms.Deviation{Name: "float", About: "computes the weighted previous count in float64, prev*((W-e)/W), where a count within a rounding of a boundary crosses it"},
		)
	}
	f.SetDeviations(devs...)
	return f
}

func (f *Fiber) Name() string {
	if f.sliding {
		return "fiber:strategy=sliding" + f.Suffix()
	}
	return "fiber" + f.Suffix()
}

func (f *Fiber) Twin() string {
	if f.sliding {
		return "counter"
	}
	return "fixed"
}

func (f *Fiber) Grow(n int)                { f.st.Grow(n) }
func (*Fiber) Bytes(int32) int64           { return 48 }
func (*Fiber) FixedSize() bool             { return true }
func (*Fiber) CountsRejected() bool        { return true }
func (f *Fiber) Warm(id int32) uint64      { return uint64(f.st.At(id).exp) }
func (f *Fiber) Place(b *algorithms.Block) { f.st.Place(b) }

// CountsEvery: the middleware counts the hit before it checks it
// (deviation counts-refused).
func (f *Fiber) CountsEvery() bool { return f.OnAt(fiberCountsRefused) }

const second = int64(time.Second)

// clock is the time the middleware reads at t: utils.Timestamp, the Unix
// seconds as a uint32, in nanoseconds (clock on), or t.
func (f *Fiber) clock(t int64) int64 {
	if !f.OnAt(fiberClock) {
		return t
	}
	return int64(uint32(algorithms.FloorDiv(t, second))) * second
}

// window is the window's length: W rounded up to whole seconds, at least
// one (ceil on), or W.
func (f *Fiber) window() int64 {
	if !f.OnAt(fiberCeil) {
		return f.rule.W
	}
	s := f.rule.W / second
	if f.rule.W%second != 0 || s == 0 {
		s++
	}
	if w, ok := algorithms.MulOK(s, second); ok {
		return w
	}
	return f.rule.W // beyond 292 years: not a window a replay reaches the end of
}

// start is the end of the first window of a key whose entry is new at ts:
// ts + E from the request (anchor on), or the end of ts's window of the
// epoch's grid.
func (f *Fiber) start(ts, E int64) int64 {
	if f.OnAt(fiberAnchor) {
		return algorithms.SatAdd(ts, E)
	}
	return algorithms.SatAdd(algorithms.FloorDiv(ts, E)*E, E)
}

// advance brings key s to ts (limiter_fixed.go:54-61,
// limiter_sliding.go:54-73) and returns the window's length.
func (f *Fiber) advance(s *fiberState, ts int64) int64 {
	E := f.window()
	switch {
	case s.exp == 0:
		s.exp, s.prev, s.curr = f.start(ts, E), 0, 0
	case ts >= s.exp:
		if !f.sliding || ts-s.exp >= E {
			s.exp, s.prev, s.curr = f.start(ts, E), 0, 0
		} else {
			s.prev, s.curr, s.exp = s.curr, 0, algorithms.SatAdd(s.exp, E)
		}
	}
	return E
}

// hits is what a request of cost counts.
func (f *Fiber) hits(cost int64) int64 {
	if f.OnAt(fiberCost) {
		return 1
	}
	return cost
}

func (f *Fiber) Decide(id int32, t, cost int64) bool {
	s := f.st.At(id)
	ts := f.clock(t)
	E := f.advance(s, ts)
	h, L := f.hits(cost), f.rule.L
	if !f.sliding {
		return h <= L-s.curr // remaining := cfg.Max - e.currHits; refused iff < 0
	}
	reset := s.exp - ts // 0 < reset <= E
	floor, float := f.OnAt(fiberFloor), f.OnAt(fiberFloat)
	switch {
	case float:
		// weight := float64(resetInSec) / float64(expiration), in seconds;
		// whole seconds divide out of both exactly, and the quotient is
		// the same rounding of the same ratio.
		num, den := float64(reset), float64(E)
		if reset%second == 0 && E%second == 0 {
			num, den = float64(reset/second), float64(E/second)
		}
		weighted := float64(s.prev) * (num / den)
		if floor { // rate := int(float64(e.prevHits)*weight) + e.currHits
			return h <= L && int64(weighted) <= L-h && s.curr <= L-h-int64(weighted)
		}
		return !(weighted+float64(s.curr)+float64(h) > float64(L))
	case floor:
		return algorithms.CounterFloor(s.prev, s.curr, E-reset, h, L, E)
	}
	return algorithms.CounterLE(s.prev, s.curr, E-reset, h, L, E)
}

func (f *Fiber) Record(id int32, t, cost int64) {
	s := f.st.At(id)
	f.advance(s, f.clock(t))
	s.curr = algorithms.SatAdd(s.curr, f.hits(cost))
}

// Idle: the next request starts the key over as a new entry (its window
// has ended, for the sliding window the one after it too), or it has no
// entry.
func (f *Fiber) Idle(id int32, t int64) bool {
	s := f.st.At(id)
	if s.exp == 0 {
		return true
	}
	ts := f.clock(t)
	if !f.sliding {
		return ts >= s.exp
	}
	return ts >= s.exp && ts-s.exp >= f.window()
}

func (f *Fiber) Release(id int32) { *f.st.At(id) = fiberState{} }
