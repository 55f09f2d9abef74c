package products

import (
	"fmt"
	"strconv"
	"time"

	"ratebench/algorithms"
)

func init() {
	algorithms.Register(algorithms.Kind{Spec: "laravel", Place: 36, About: "Laravel's throttle:L,M middleware (ThrottleRequests on Illuminate\\Cache\\RateLimiter) with the array cache store: a fixed window from the key's first hit on a whole-second clock, lasting through its last second, refused once L hits are counted, refused requests not counted, one hit per request",
		Build: func(c algorithms.Call, r algorithms.Rule) (algorithms.Limiter, error) {
			if err := c.NoArg(); err != nil {
				return nil, err
			}
			return NewLaravel(r)
		}})
}

// Laravel is Laravel's ThrottleRequests middleware, throttle:L,M, on
// Illuminate\Cache\RateLimiter over the array cache store (ArrayStore,
// CACHE_DRIVER=array, behind Illuminate\Cache\Repository), modelled from
// Debian's php-laravel-framework 8.83.26 (/usr/share/php/Illuminate,
// whose files read here are laravel/framework v8.83.26's, commit
// 7411d9fa71c1b0fd73a33e225f14512b74e6c81e, under src/Illuminate; line
// numbers below are theirs).
//
// The rule L/W is configured as Laravel's documentation writes "L
// requests per M minutes": the route middleware throttle:L,M, or a named
// limiter's Limit::perMinute(L) (decayMinutes 1); M = W in minutes, which
// the middleware makes decaySeconds = decayMinutes * 60
// (Routing/Middleware/ThrottleRequests.php:124), and the cache an int of
// seconds (Cache/Repository.php:524-533, getSeconds): W must be whole
// seconds, at least one (a fraction of a minute, throttle:5,0.5 for
// 5/30s; a window below a second would be a decay of 0, which the cache
// does not store, and nothing would be refused). A window whose minutes,
// the float64 W/60, times 60 fall short of W (123 s: 122.99999999999999)
// would be a second shorter, and is refused.
//
// For each request, ThrottleRequests::handleRequest (lines 117-138) asks
// RateLimiter::tooManyAttempts(key, L) and, when it is not, hit(key,
// decaySeconds) (Cache/RateLimiter.php):
//
//   - tooManyAttempts (lines 90-103): attempts(key) >= L, the count the
//     cache holds for the key (0 when it holds none), and the key's
//     ":timer" entry present, refuses (a refused request is not counted);
//   - hit (lines 112-129): adds key:timer with the value availableAt(W)
//     and an expiry of W, adds the counter 0 with an expiry of W (each
//     Repository::add puts only when get finds nothing, Repository.php:
//     299-328, ArrayStore having no add of its own), then increments it by
//     1 (ArrayStore::increment keeps its expiry, Cache/ArrayStore.php:
//     94-110).
//
// The array store's clock is InteractsWithTime::currentTime(),
// Carbon::now()->getTimestamp(): whole seconds (Support/
// InteractsWithTime.php:60-63); an entry put for W seconds expires at
// availableAt(W) = now + W (ArrayStore.php:77-84, 178-192; Support/
// InteractsWithTime.php:31-38), and get drops it once currentTime() >
// expiresAt (ArrayStore.php:50-67): it lives
// through its expiry second. The counter and the timer are put together
// and expire together, so:
//
//   - the window starts at the second s0 of the key's first hit, and of
//     the first hit after the previous window (deviation anchor; off: the
//     epoch's multiples of W), on whole seconds (deviation clock, which
//     shows only with anchor: the epoch's windows of whole seconds are the
//     same on whole seconds);
//   - it lasts while now <= s0 + W, W + 1 s of the clock: a request in
//     second s0 + W still counts in it (deviation closed; off: it ends
//     at s0 + W);
//   - a request is refused iff L hits are counted, and counts one hit
//     whatever its cost (deviation one-hit: hit increments by 1; off, it
//     is admitted iff the count plus its cost is at most L, the twin's).
//
// As a Product its twin is fixed. Refused requests are not counted
// (CountsEvery false). With every deviation off it decides as fixed.
//
// What changes no decision, and is left out: the key's signature (sha1 of
// the user's id, or of the route's domain and the client's address) and
// cleanRateLimiterKey, the response headers, the cache events, and the
// other stores (Redis has its own ThrottleRequestsWithRedis, not
// modelled).
//
// The live target laravel (package live/php) runs the real middleware
// under Debian's php-cli, Carbon's now the trace's, beside this model.
//
// Memory: the counter and its expiry, the timer and its expiry, 32 bytes
// per key.
type Laravel struct {
	algorithms.DeviationSet
	rule algorithms.Rule
	st   algorithms.PerKey[laravelState]
}

// laravelState is a key's counter: whether the cache holds it, the
// window's start (the second of the hit that put it, or its epoch window
// with anchor off) and the hits counted.
type laravelState struct {
	start, count int64
	live         bool
}

const (
	laravelAnchor = iota
	laravelClock
	laravelClosed
	laravelOneHit
)

// NewLaravel returns Laravel's throttle for rule r, or an error for a
// window that is not whole seconds.
func NewLaravel(r algorithms.Rule) (*Laravel, error) {
	sec := int64(time.Second)
	if r.W%sec != 0 || r.W < sec {
		return nil, fmt.Errorf("algorithm \"laravel\": the throttle's decay is whole seconds (decayMinutes * 60, an int to the cache), at least one: give a window of whole seconds, not %s", algorithms.FormatWindow(r.W))
	}
	if ws := r.W / sec; ws%60 != 0 {
		if m := float64(ws) / 60; int64(m*60) != ws {
			return nil, fmt.Errorf("algorithm \"laravel\": throttle:L,%s makes a decay of %d s, not %d: its minutes times 60 fall short of W in float64 and the cache truncates them; give a window that is whole minutes, or whose minutes make its seconds", LaravelMinutes(r), int64(m*60), ws)
		}
	}
	l := &Laravel{rule: r}
	l.SetDeviations(
		algorithms.Deviation{Name: "anchor", About: "starts a window at the key's first hit, and at the first hit after a window ended, not at the epoch's multiples of W"},
		algorithms.Deviation{Name: "clock", About: "decides on Carbon::now()->getTimestamp(), whole seconds: a window starts on its hit's second"},
		algorithms.Deviation{Name: "closed", About: "keeps the counter through its expiry second (expired once now > expiresAt): a window lasts W plus the second it ends in"},
		algorithms.Deviation{Name: "one-hit", About: "counts one hit per request whatever its cost (RateLimiter::hit increments by 1), refusing once L are counted"},
	)
	return l, nil
}

// LaravelMinutes is M of throttle:L,M for rule r, W in minutes: whole, or
// the float64 fraction W/60 in its shortest decimal (0.016666666666666666
// for a second), which the middleware multiplies by 60.
func LaravelMinutes(r algorithms.Rule) string {
	ws := r.W / int64(time.Second)
	if ws%60 == 0 {
		return strconv.FormatInt(ws/60, 10)
	}
	return strconv.FormatFloat(float64(ws)/60, 'g', -1, 64)
}

func (l *Laravel) Name() string              { return "laravel" + l.Suffix() }
func (*Laravel) Twin() string                { return "fixed" }
func (l *Laravel) Grow(n int)                { l.st.Grow(n) }
func (*Laravel) Bytes(int32) int64           { return 32 }
func (*Laravel) FixedSize() bool             { return true }
func (*Laravel) CountsRejected() bool        { return true }
func (l *Laravel) Warm(id int32) uint64      { return uint64(l.st.At(id).count) }
func (l *Laravel) Place(b *algorithms.Block) { l.st.Place(b) }

// now is t on the clock: whole seconds (in ns), or ns.
func (l *Laravel) now(t int64) int64 {
	if l.OnAt(laravelClock) {
		sec := int64(time.Second)
		return algorithms.FloorDiv(t, sec) * sec
	}
	return t
}

// alive reports whether the cache still holds the key's counter at now:
// now <= start + W (closed), or now < start + W.
func (l *Laravel) alive(s *laravelState, now int64) bool {
	if !s.live {
		return false
	}
	end := algorithms.SatAdd(s.start, l.rule.W)
	if l.OnAt(laravelClosed) {
		return now <= end
	}
	return now < end
}

// Decide: tooManyAttempts refuses once the count reaches L (with one-hit
// off, once the cost does not fit).
func (l *Laravel) Decide(id int32, t, cost int64) bool {
	s := l.st.At(id)
	count := int64(0)
	if l.alive(s, l.now(t)) {
		count = s.count
	}
	return oneHit(l.OnAt(laravelOneHit), cost) <= l.rule.L-count
}

// Record is hit: a new counter (and timer) when the cache holds none,
// then the increment.
func (l *Laravel) Record(id int32, t, cost int64) {
	s, now := l.st.At(id), l.now(t)
	if !l.alive(s, now) {
		start := now
		if !l.OnAt(laravelAnchor) {
			start = algorithms.FloorDiv(now, l.rule.W) * l.rule.W
		}
		*s = laravelState{start: start, live: true}
	}
	s.count = algorithms.SatAdd(s.count, oneHit(l.OnAt(laravelOneHit), cost))
}

// Estimate returns the window's count, as the fixed window.
func (l *Laravel) Estimate(id int32, t int64) algorithms.Rational {
	s := l.st.At(id)
	if !l.alive(s, l.now(t)) {
		return algorithms.Whole(0)
	}
	return algorithms.Whole(s.count)
}

// Idle: the cache no longer holds the key's counter at t (or it counts
// nothing).
func (l *Laravel) Idle(id int32, t int64) bool {
	s := l.st.At(id)
	return !l.alive(s, l.now(t)) || s.count == 0
}

func (l *Laravel) Release(id int32) { *l.st.At(id) = laravelState{} }
