package products

import (
	"fmt"
	"strings"
	"time"

	"ratebench/algorithms"
)

func init() {
	algorithms.Register(algorithms.Kind{Spec: "fastify-rate-limit[:continue-exceeding]", Place: 29, About: "@fastify/rate-limit's LocalStore ({max: L, timeWindow: W in ms}): a fixed window from the key's first request on Date.now's milliseconds, W cut to whole ms, every request counted, refused once the count exceeds L; continue-exceeding: a refused request restarts the window, so the key stays refused until W without requests",
		Build: func(c algorithms.Call, r algorithms.Rule) (algorithms.Limiter, error) {
			return NewFastifyRateLimit(r, c.Arg, c.HasArg)
		}})
}

// FastifyRateLimit is @fastify/rate-limit's plugin with its default
// LocalStore, modelled from the package npm publishes, @fastify/rate-limit
// 11.2.0 (fastify/fastify-rate-limit): store/LocalStore.js:11-43 (incr)
// and index.js:93-122 (the options, max and timeWindow Math.trunc'ed),
// 272-316 (the hook: refused iff current > max).
//
// The rule L/W is configured as its documentation writes "L requests per
// W": fastify.register(rateLimit, { max: L, timeWindow: W in ms }), and
// continue-exceeding adds continueExceeding: true.
//
//   - incr: a key's entry {current, ttl, iterationStartMs} starts at its
//     first request (current 1, iterationStartMs = Date.now()); a request
//     at or after iterationStartMs + timeWindow starts it again; any other
//     adds one: the window is [a, a + W) on Date.now's milliseconds, W
//     truncated to whole ms (Math.trunc, index.js:105).
//   - every request is counted, refused ones too (incr comes before the
//     check), one per request: the store takes no weight.
//   - refused iff current > max (isExceeded, index.js:314).
//   - with continueExceeding, a request that takes current past max
//     restarts the window at Date.now() (LocalStore.js:30-33): a refused
//     key stays refused until a whole window passes without a request,
//     after which its next request starts afresh.
//   - the store is an LRU map of `cache` entries (default 5000,
//     toad-cache): a key evicted from it starts afresh. The model keeps
//     every key (a trace of fewer keys than that decides alike).
//
// As a Product its twin is fixed, with continue-exceeding fixed:block=W
// (the first refusal refuses the key for W, after which its window, an
// epoch window later, is fresh), and its deviations are "anchor" (the
// window starts at the key's first request), "clock" (Date.now's whole
// milliseconds, W cut to whole ms), "counts-refused" (shows only with
// one-hit off and costs above 1), "one-hit" (one per request whatever its
// cost) and with continue-exceeding "extends" (each refused request
// restarts the window: the block lasts until W without requests; off, W
// from the first refusal). With all of them off it decides as its twin.
//
// Memory: the entry's current, ttl and iterationStartMs, 24 bytes per key.
type FastifyRateLimit struct {
	algorithms.DeviationSet
	rule     algorithms.Rule
	cont     bool
	tw       int64 // timeWindow, whole ms
	st       algorithms.PerKey[fastifyState]
	iExtends int
}

// fastifyState is a key's window (with "anchor" its start on the model's
// clock, else its index among the epoch's windows) and count; with
// continue-exceeding, the refused key's block and when it (last) began.
type fastifyState struct {
	start, curr, from int64
	live, blocked     bool
}

const (
	fastifyAnchor = iota
	fastifyClock
	fastifyCountsRefused
	fastifyOneHit
)

// NewFastifyRateLimit returns @fastify/rate-limit for rule r, with
// continueExceeding when arg is "continue-exceeding".
func NewFastifyRateLimit(r algorithms.Rule, arg string, hasArg bool) (*FastifyRateLimit, error) {
	f := &FastifyRateLimit{rule: r, tw: r.W / int64(time.Millisecond), iExtends: -1}
	if hasArg {
		if strings.TrimSpace(arg) != "continue-exceeding" {
			return nil, fmt.Errorf("algorithm %q: want fastify-rate-limit or fastify-rate-limit:continue-exceeding", "fastify-rate-limit:"+arg)
		}
		f.cont = true
	}
	switch {
	case r.L > 1<<53:
		return nil, fmt.Errorf("algorithm %q: max is a JavaScript number, exact up to 2^53, not %d", f.spec(), r.L)
	case f.tw < 1:
		return nil, fmt.Errorf("algorithm %q: timeWindow is whole milliseconds (Math.trunc), and below 1 ms every request starts a new window: not %s", f.spec(), algorithms.FormatWindow(r.W))
	}
	devs := []algorithms.Deviation{
		{Name: "anchor", About: "anchors each key's window at its first request after the last window ended (iterationStartMs), not at multiples of W"},
		{Name: "clock", About: "decides on Date.now() in whole milliseconds, timeWindow W truncated to whole milliseconds"},
		{Name: "counts-refused", About: "counts every request, refused ones too (incr comes before the check)"},
		{Name: "one-hit", About: "counts one per request whatever its cost (incr adds one)"},
	}
	if f.cont {
		f.iExtends = len(devs)
		devs = append(devs, algorithms.Deviation{Name: "extends", About: "each refused request restarts the window (continueExceeding): the key stays refused until W without requests"})
	}
	f.SetDeviations(devs...)
	return f, nil
}

func (f *FastifyRateLimit) spec() string {
	if f.cont {
		return "fastify-rate-limit:continue-exceeding"
	}
	return "fastify-rate-limit"
}

// ContinueExceeding reports whether continueExceeding is on.
func (f *FastifyRateLimit) ContinueExceeding() bool { return f.cont }

// TimeWindow is the timeWindow the plugin keeps, whole ms.
func (f *FastifyRateLimit) TimeWindow() int64 { return f.tw }

func (f *FastifyRateLimit) Name() string { return f.spec() + f.Suffix() }

func (f *FastifyRateLimit) Twin() string {
	if f.cont {
		return "fixed:block=" + algorithms.FormatWindow(f.rule.W)
	}
	return "fixed"
}

func (f *FastifyRateLimit) Grow(n int)                { f.st.Grow(n) }
func (*FastifyRateLimit) Bytes(int32) int64           { return 24 }
func (*FastifyRateLimit) FixedSize() bool             { return true }
func (*FastifyRateLimit) CountsRejected() bool        { return true }
func (f *FastifyRateLimit) CountsEvery() bool         { return f.OnAt(fastifyCountsRefused) }
func (f *FastifyRateLimit) Warm(id int32) uint64      { return uint64(f.st.At(id).curr) }
func (f *FastifyRateLimit) Place(b *algorithms.Block) { f.st.Place(b) }

// clock returns t and the window on the model's clock: whole ms and
// timeWindow, or ns and W.
func (f *FastifyRateLimit) clock(t int64) (now, period int64) {
	if f.OnAt(fastifyClock) {
		return algorithms.FloorDiv(t, int64(time.Millisecond)), f.tw
	}
	return t, f.rule.W
}

// advance ends the key's block once W has passed since it (last) began,
// and its window once now is past it; it returns the window a request at
// t would start.
func (f *FastifyRateLimit) advance(s *fastifyState, t int64) (start int64) {
	now, period := f.clock(t)
	if s.blocked && now-s.from >= period {
		*s = fastifyState{}
	}
	if !f.OnAt(fastifyAnchor) {
		start = algorithms.FloorDiv(now, period)
		if s.live && !s.blocked && start != s.start {
			*s = fastifyState{}
		}
		return start
	}
	if s.live && !s.blocked && now-s.start >= period {
		*s = fastifyState{}
	}
	return now
}

// Decide refuses a blocked key (with "extends", restarting its block);
// otherwise it admits iff the request fits, and with continue-exceeding a
// refusal blocks the key.
func (f *FastifyRateLimit) Decide(id int32, t, cost int64) bool {
	s := f.st.At(id)
	f.advance(s, t)
	now, _ := f.clock(t)
	if s.blocked {
		if f.iExtends >= 0 && f.OnAt(f.iExtends) {
			s.from = now
		}
		return false
	}
	if oneHit(f.OnAt(fastifyOneHit), cost) <= f.rule.L-s.curr { // not current > max
		return true
	}
	if f.cont {
		s.blocked, s.from = true, now
	}
	return false
}

// Record counts the request; a key without a window starts one at t.
func (f *FastifyRateLimit) Record(id int32, t, cost int64) {
	s := f.st.At(id)
	start := f.advance(s, t)
	if !s.live {
		s.start, s.live = start, true
	}
	s.curr = algorithms.SatAdd(s.curr, oneHit(f.OnAt(fastifyOneHit), cost))
}

// Estimate returns the window's count, as the fixed window.
func (f *FastifyRateLimit) Estimate(id int32, _ int64) algorithms.Rational {
	return algorithms.Whole(f.st.At(id).curr)
}

// Idle: the key has no window and no block at t.
func (f *FastifyRateLimit) Idle(id int32, t int64) bool {
	s := f.st.At(id)
	f.advance(s, t)
	return !s.live && !s.blocked
}

func (f *FastifyRateLimit) Release(id int32) { *f.st.At(id) = fastifyState{} }
