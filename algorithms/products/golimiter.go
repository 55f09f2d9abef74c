package products

import "ratebench/algorithms"

func init() {
	algorithms.Register(algorithms.Kind{Spec: "go-limiter", Place: 10, About: "github.com/sethvargo/go-limiter (memorystore): fixed window anchored at the key's first request, one token per request",
		Build: algorithms.NoParams(func(r algorithms.Rule) algorithms.Limiter { return NewGoLimiter(r) })})
}

// GoLimiter is github.com/sethvargo/go-limiter v0.7.1 (commit
// 0b1a8460fde5cc0ad56efaef3a5b5d0211ff9e2d), its memorystore, with the
// rule mapped to Config{Tokens: L, Interval: W}; modelled exactly from the
// source. Despite the token-bucket naming it is a fixed window anchored at
// the key's first request:
//
//   - A key's bucket is created full at its first Take (memorystore/
//     store.go:136-143, newBucket 272-281: availableTokens = tokens,
//     startTime = now) and its ticks count whole intervals from that start:
//     tick = (now - start) / interval (tick, lines 341-343).
//   - At a request in a later tick than the last one seen, the tokens are
//     SET, not added to: availableTokens = min(max, uint64(float64(delta) *
//     fillRate)), delta the ticks elapsed, fillRate = float64(interval) /
//     float64(tokens), nanoseconds per token despite its name (take, lines
//     307-310; availableTokens, lines 324-333; fillRate, line 278). With
//     interval >= tokens^2 ns (10/1m and any rule of whole seconds with L
//     up to 31622) one tick refills the whole limit; below, only delta *
//     interval / tokens tokens.
//   - A request is allowed iff a token is left, and takes one token
//     whatever its cost (Take has no count): `if b.availableTokens > 0`
//     (lines 312-316). A refused request changes nothing.
//
// Its clock is fasttime.Now(), a linkname to time.now that reads the wall
// clock (internal/fasttime/fasttime.go), which no test can inject (not even
// testing/synctest's fake clock): the module cannot be driven by a trace's
// clock, so the tests check this model on timelines worked out from the
// lines above. The sweep (purge, lines 217-241) that deletes a bucket idle
// for more than SweepMinTTL (12 h) at SweepInterval ticks (6 h) of the
// process's clock, so that a key returning after 12 to 18 h idle is
// re-anchored, is not modelled: its instants depend on when the process
// started.
//
// Deviations from fixed: "anchor" (off: ticks counted from the epoch),
// "refill" (off: a new tick refills the whole limit) and "cost" (off: a
// request takes its cost in tokens). With all three off it decides as
// fixed. It never counts a refused request (CountsRejected false). In
// shadow mode the harness may record a request the bucket refused; it then
// owes it (negative tokens), which the product's uint64 never does.
//
// Memory: the bucket, 56 bytes per key (startTime, maxTokens, interval,
// fillRate, availableTokens, lastTick, a mutex); the map entry is not
// counted.
type GoLimiter struct {
	algorithms.DeviationSet
	rule     algorithms.Rule
	fillRate float64 // float64(interval) / float64(tokens), line 278
	st       algorithms.PerKey[goLimiterState]
}

// goLimiterState is a key's bucket: its start, the last tick seen and the
// tokens left; seen is false before its first request.
type goLimiterState struct {
	start, tick, avail int64
	seen               bool
}

const (
	goLimiterAnchor = iota
	goLimiterRefill
	goLimiterCost
)

// NewGoLimiter returns go-limiter's memorystore for rule r.
func NewGoLimiter(r algorithms.Rule) *GoLimiter {
	g := &GoLimiter{rule: r, fillRate: float64(r.W) / float64(r.L)}
	g.SetDeviations(
		algorithms.Deviation{Name: "anchor", About: "counts its intervals of W from the key's first request, not from the epoch"},
		algorithms.Deviation{Name: "refill", About: "sets the tokens at a new interval to min(L, ticks*W/L) in float64 (W/L nanoseconds per token taken for tokens per tick), less than L when W < L² ns"},
		algorithms.Deviation{Name: "cost", About: "takes one token per request whatever its cost"},
	)
	return g
}

func (g *GoLimiter) Name() string         { return "go-limiter" + g.Suffix() }
func (*GoLimiter) Twin() string           { return "fixed" }
func (g *GoLimiter) Grow(n int)           { g.st.Grow(n) }
func (*GoLimiter) Bytes(int32) int64      { return 56 }
func (*GoLimiter) FixedSize() bool        { return true }
func (*GoLimiter) CountsRejected() bool   { return false }
func (g *GoLimiter) Warm(id int32) uint64 { return uint64(g.st.At(id).avail) }

// advance creates the bucket at the key's first request and applies the
// refill of a new tick (take, lines 300-310).
func (g *GoLimiter) advance(s *goLimiterState, t int64) {
	if !s.seen {
		*s = goLimiterState{start: t, avail: g.rule.L, seen: true}
		if !g.OnAt(goLimiterAnchor) {
			s.start = 0
		}
		s.tick = algorithms.FloorDiv(t-s.start, g.rule.W)
		return
	}
	curr := algorithms.FloorDiv(t-s.start, g.rule.W)
	if s.tick < curr {
		s.avail = g.rule.L
		if g.OnAt(goLimiterRefill) {
			if a := uint64(float64(uint64(curr-s.tick)) * g.fillRate); a < uint64(g.rule.L) {
				s.avail = int64(a)
			}
		}
		s.tick = curr
	}
}

func (g *GoLimiter) Decide(id int32, t, cost int64) bool {
	s := g.st.At(id)
	g.advance(s, t)
	if g.OnAt(goLimiterCost) {
		return s.avail > 0
	}
	return cost <= s.avail
}

func (g *GoLimiter) Record(id int32, t, cost int64) {
	s := g.st.At(id)
	g.advance(s, t)
	if g.OnAt(goLimiterCost) {
		cost = 1
	}
	s.avail -= cost // cost <= MaxCost: far from overflow
}
