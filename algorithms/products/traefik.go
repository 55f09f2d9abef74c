package products

import (
	"container/heap"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"ratebench/algorithms"
)

func init() {
	algorithms.Register(algorithms.Kind{Spec: "traefik[:burst=N][:maxdelay=D][:sources[=N]]", Place: 22, About: "Traefik's RateLimit middleware, in memory (average L, period W, burst N, default L): x/time/rate's float64 token bucket per source that serves late, up to maxDelay (default 1/(2*rate), 500 ms below 1 req/s), a request the bucket lacks a token for, and forgets a source idle for its TTL (whole Unix seconds); sources models the map's capacity (65,536, or N), whose evictions couple keys",
		Build: func(c algorithms.Call, r algorithms.Rule) (algorithms.Limiter, error) {
			if c.HasArg && strings.TrimSpace(c.Arg) == "" {
				return nil, fmt.Errorf("algorithm %q: want traefik, or traefik:burst=N, :maxdelay=D and :sources or :sources=N", c.Spec)
			}
			return NewTraefik(r, c.Arg)
		}})
}

// Traefik is the RateLimit middleware of Traefik Proxy v3.7.9 (commit
// d0bd2ec198533d760c1abfc74b98033d6d92d039 of traefik/traefik; the
// ratelimiter files are the same in v3.7.13) with its in-memory limiter,
// modelled from pkg/middlewares/ratelimiter/rate_limiter.go,
// in_memory_limiter.go and ttlmap/ttlmap.go (line numbers below are
// v3.7.9's). Traefik builds on golang.org/x/time/rate v0.15.0, whose
// rate.go is the same as v0.16.0's, which the tests drive beside the
// model's own copy of its arithmetic (traefikBucket).
//
// # Configuration
//
// Its documentation (reference/routing-configuration/http/middlewares/
// ratelimit.md) writes "an average of 100 requests per second" as average
// 100, period 1s: the rule L/W is average L, period W. The rate is
// rtl = float64(average*1e9) / float64(period) requests per second
// (rate_limiter.go:81), and the bucket holds burst tokens, burst =
// max(config.Burst, 1) (line 64), default 1. The docs call burst the size
// of the bucket, "in addition" to the rate, and their example sets it
// explicitly, to twice the average (burst 200 beside average 100): "L
// requests per W" is average and period alone, and the burst is a choice
// of its own. With Traefik's default 1 no two requests may pass at the
// same instant, which is no reading of "L per W" either. The model's
// default burst is L, the bucket that holds one window's L requests: the
// textbook token bucket's B = L, which the other token buckets here also
// take for the rule (x/time/rate's B = L, nginx's burst L-1, capacity L),
// so that they compare on one footing. traefik:burst=N gives another:
// burst=1 is Traefik's own default, burst=2L the docs' example.
//
// # Decision
//
// Every request of a source runs inMemoryRateLimiter.Allow
// (in_memory_limiter.go:45-70): the source's rate.Limiter from the TTL map,
// a new one, rate.NewLimiter(rtl, burst), when absent or expired (lines
// 47-50); Set, which refreshes the source's expiry (line 55); then
// Reserve(), which takes one token at time.Now() whatever the wait, and
// Delay(), the wait for it (x/time/rate's durationFromTokens, truncated to
// whole nanoseconds). If the wait exceeds maxDelay the reservation is
// cancelled (line 66) and ServeHTTP answers 429 (rate_limiter.go:164-166);
// otherwise it sleeps the wait and serves the request
// (rate_limiter.go:169-178). The model counts a request served late as
// admitted at its arrival, and its token as taken then, as the reservation
// takes it. maxDelay is time.Second / (time.Duration(rtl) * 2) for
// rtl >= 1 (the rate truncated to whole requests per second, the quotient
// to whole nanoseconds), and 500 ms below 1 request per second (lines
// 85-89); traefik:maxdelay=D sets another.
//
// A refused request takes nothing: Cancel puts its token back (with
// x/time/rate's float64 arithmetic, (tokens - 1) + 1, which may not be
// tokens exactly). It does refresh the source's expiry.
//
// # Idle sources
//
// The map (ttlmap.go) keeps each source's limiter until its expiry, which
// Set puts at time.Now().Add(ttl seconds).Unix(): whole Unix seconds, ttl
// after the second of the source's last request (line 65). A request at or
// after that second (expiry <= now.Unix(), line 95) finds the source gone
// and starts a new, full bucket. ttl is 2 s for rtl >= 1, else
// 1 + int(1/rtl) s (rate_limiter.go:96-101). Any bucket that has refilled
// completely by then decides as a new one; a burst that takes longer than
// the TTL to refill (burst/rtl > 1 s or so) is refilled early.
//
// # Twin and deviations
//
// Its twin is the token bucket of capacity burst (token, or token:B=N).
// Deviations, each turned off by :without=NAME:
//
//   - maxdelay: admits a request the bucket lacks tokens for when their
//     wait is at most maxDelay; its token is taken, so the bucket goes into
//     debt by up to maxDelay's worth of refill (off: admitted only with
//     the tokens in the bucket).
//   - float: x/time/rate's float64 arithmetic: tokens refilled as
//     elapsed.Seconds()*rtl, the wait truncated to whole nanoseconds (a
//     wait of less than one nanosecond is none), a refusal's token put
//     back in float64, rtl, maxDelay and ttl computed as the source does
//     (off: exact integers; the model then keeps an exact token bucket).
//     With it on the model runs a rate.Limiter per source, with the
//     middleware's calls.
//   - ttl: a source idle past its expiry starts over with a full bucket
//     (off: a source's bucket is kept forever).
//   - cost: a request takes one token whatever its cost (the source
//     extractor's amount is ignored, rate_limiter.go:141-143; Reserve()
//     takes one) (off: it takes its cost, and one costing more than burst
//     is refused, as ReserveN refuses it).
//
// With all four off it decides as its twin. Refused requests count in no
// bucket (CountsRejected false). The clock is time.Now(), nanoseconds;
// the map's expiry reads its whole Unix seconds. Get, Set, Reserve,
// Delay and Cancel each read it anew, nanoseconds apart in a server (a
// wait is compared with maxDelay from a slightly later instant); the
// model reads the request's time for all of them.
//
// # The map's capacity: traefik:sources
//
// The map holds at most 65,536 sources (maxSources, rate_limiter.go:22):
// a new source arriving when it holds that many entries, expired ones
// included until their source is next seen (Get removes an expired entry,
// ttlmap.go:47-50), evicts the entry whose expiry is nearest, the root of
// its min-heap of expiries (ttlmap.go:74-76, 98-106). While fewer than
// 65,536 sources have been seen within ttl seconds every entry evicted has
// expired and was due a full bucket anyway; beyond that a live source
// loses its bucket, and which one depends on every source's requests. With
// the parameter sources (capacity 65,536) or sources=N (capacity N) the
// model keeps the map as the source does, the same container/heap
// operations on the same expiries in the same order (so ties break the
// same way), as the deviation eviction; such a model couples keys (one
// replay sees every key, in order) and never calls a key idle, as its
// entry may yet be evicted in another's place. Without the parameter the
// capacity is not modelled.
//
// Not modelled: the Redis limiter (redis_limiter.go, lua.go), whose Lua
// script keeps the bucket in Lua numbers on Traefik's microsecond clock,
// puts a refused request's token back with min(tokens + 1, burst), and
// expires a key by Redis's EXPIRE: another model.
//
// # Checks
//
// The tests drive golang.org/x/time/rate itself with the middleware's
// calls (Reserve, Delay, Cancel at maxDelay, time.Now from a
// testing/synctest bubble set to each request's time) and a reproduction
// of ttlmap's expiry: every decision the same on 24,000 requests over
// eight rules and bursts, delays, refusals and expiries all exercised. The
// model is only the middleware's wrapper; the bucket is checked against
// x/time/rate. Traefik's ratelimiter package does not build on its own
// (it imports Traefik's configuration, observability and provider
// packages, and the module's replace directives do not carry), and its
// ttlmap package, which does, would raise shared dependencies of this
// module; the same replay against the real ttlmap of Traefik v3.7.13,
// with capacities from 3 to 65,536 against traefik:sources=N, agreed on
// every request, run outside this repository.
//
// The bucket is x/time/rate's arithmetic without its mutex and its
// time.Time (traefikBucket): the float64 tokens and the last instant in
// ns, the same operations in the same order, so that a key's state is
// pointer-free and lives in a replay's block. A test drives the library
// and the bucket with the same calls and finds the same tokens, bit for
// bit, at every step.
//
// Memory: per source, the rate.Limiter (80 bytes: mutex, limit, burst,
// tokens, last and lastEvent) and the map's item (key string header 16,
// value pointer 8, expiry 8, heap index 8) and its slot in the expiry heap
// (8): 128 bytes; the key's bytes and the Go map's entry are not counted.
type Traefik struct {
	algorithms.DeviationSet
	rule     algorithms.Rule
	burst    int64
	named    bool     // burst given explicitly and not L
	maxDelay [2]int64 // maxDelay in ns: [0] exact, [1] the source's float computation
	ttl      [2]int64 // the TTL in seconds: [0] exact, [1] the source's
	delayArg string   // the maxdelay=D given, "" for the source's
	limit    float64  // rate.Limit: tokens a second
	keys     algorithms.PerKey[traefikKey]
	sources  *traefikMap // with :sources, the map's entries and its expiry heap
}

// traefikMap is ttlmap.Map's bookkeeping over the keys' ids: which sources
// have an entry, each entry's expiry, and the min-heap of expiries
// (container/heap over ids, Less on the expiry, as ttlmap's expiryHeap).
type traefikMap struct {
	capacity int
	in       []bool
	expiry   []int64
	index    []int   // the entry's position in h
	h        []int32 // the heap of ids
}

func (m *traefikMap) Len() int           { return len(m.h) }
func (m *traefikMap) Less(i, j int) bool { return m.expiry[m.h[i]] < m.expiry[m.h[j]] }
func (m *traefikMap) Swap(i, j int) {
	m.h[i], m.h[j] = m.h[j], m.h[i]
	m.index[m.h[i]] = i
	m.index[m.h[j]] = j
}
func (m *traefikMap) Push(x any) {
	id := x.(int32)
	m.index[id] = len(m.h)
	m.h = append(m.h, id)
}
func (m *traefikMap) Pop() any {
	id := m.h[len(m.h)-1]
	m.h = m.h[:len(m.h)-1]
	m.index[id] = -1
	return id
}

// get is Map.Get's test for source id at second sec: an expired entry is
// removed (with the ttl deviation on). It reports whether the source has
// an entry.
func (m *traefikMap) get(id int32, sec int64, ttl bool) bool {
	if !m.in[id] {
		return false
	}
	if ttl && m.expiry[id] <= sec {
		heap.Remove(m, m.index[id])
		m.in[id] = false
		return false
	}
	return true
}

// set is Map.Set: the entry's expiry refreshed, or a new entry, the heap's
// root evicted first when the map is full (with the eviction deviation on).
func (m *traefikMap) set(id int32, expiry int64, evict bool) {
	if m.in[id] {
		m.expiry[id] = expiry
		heap.Fix(m, m.index[id])
		return
	}
	if evict && len(m.h) >= m.capacity && len(m.h) > 0 {
		q := heap.Pop(m).(int32)
		m.in[q] = false
	}
	m.in[id] = true
	m.expiry[id] = expiry
	heap.Push(m, id)
}

func (m *traefikMap) grow(n int) {
	for len(m.in) < n {
		m.in = append(m.in, false)
		m.expiry = append(m.expiry, 0)
		m.index = append(m.index, -1)
	}
}

// remove takes source id's entry out of the map.
func (m *traefikMap) remove(id int32) {
	if m.in[id] {
		heap.Remove(m, m.index[id])
		m.in[id] = false
	}
}

// traefikKey is one source: its bucket (x/time/rate's with float on, an
// exact token bucket otherwise) and its expiry in Unix seconds.
type traefikKey struct {
	lim    traefikBucket
	tok    algorithms.TokenState
	expiry int64
	seen   bool
}

// traefikBucket is a rate.Limiter as the middleware drives it, at a
// finite positive limit: its float64 tokens and the instant of their last
// change, time.Unix(0, last) (times without a monotonic reading, whose
// Before and Sub are those of their ns). lastEvent is not kept: the
// middleware cancels a reservation at the instant it made it, where
// CancelAt restores all its tokens whatever lastEvent holds. It takes
// 0.09x the library's time for a request's calls (BenchmarkTraefikBucket:
// 7.7 against 84 ns) and holds no pointer, so it lives in a replay's block.
type traefikBucket struct {
	tokens float64
	last   int64
}

// at is Limiter.advance(t): the tokens at t, refilled since last (t if
// earlier) by elapsed.Seconds()*limit, elapsed as time.Time.Sub gives it
// (saturated), at most burst. It does not change b.
func (b *traefikBucket) at(t int64, limit float64, burst int64) float64 {
	last := min(b.last, t)
	elapsed := time.Duration(t - last)
	if elapsed < 0 { // t - last overflowed: Sub saturates
		elapsed = math.MaxInt64
	}
	tokens := b.tokens + elapsed.Seconds()*limit
	if bu := float64(burst); tokens > bu {
		tokens = bu
	}
	return tokens
}

// reserve is reserveN(t, n) where it succeeds (n at most burst): n tokens
// taken at t, into debt if the bucket lacks them.
func (b *traefikBucket) reserve(t, n int64, limit float64, burst int64) {
	b.tokens, b.last = b.at(t, limit, burst)-float64(n), t
}

// cancel is CancelAt(t) of a reservation of n tokens made at t, the
// latest: its n tokens put back, at most burst.
func (b *traefikBucket) cancel(t, n int64, limit float64, burst int64) {
	restore := float64(n) - time.Duration(0).Seconds()*limit // lastEvent - timeToAct: none reserved since
	tokens := b.at(t, limit, burst) + restore
	if bu := float64(burst); tokens > bu {
		tokens = bu
	}
	b.tokens, b.last = tokens, t
}

// setBurst is SetBurstAt(t, burst) from the burst before, old.
func (b *traefikBucket) setBurst(t int64, limit float64, old int64) {
	b.tokens, b.last = b.at(t, limit, old), t
}

// The deviations, in the order of the list.
const (
	traefikMaxDelay = iota
	traefikFloat
	traefikTTL
	traefikCost
	traefikEviction // listed only with sources
)

// traefikMaxSources is the map's capacity, maxSources (rate_limiter.go:22).
const traefikMaxSources = 65536

// NewTraefik returns Traefik's RateLimit middleware for rule r; arg is what
// follows "traefik:" in the spec ("", or any of "burst=N", "maxdelay=D",
// "sources" and "sources=N" joined by ':').
func NewTraefik(r algorithms.Rule, arg string) (*Traefik, error) {
	tr := &Traefik{rule: r, burst: r.L}
	bad := func() (*Traefik, error) {
		return nil, fmt.Errorf("algorithm \"traefik:%s\": want traefik[:burst=N][:maxdelay=D][:sources[=N]], N a whole number from 1 and D a duration from 0", arg)
	}
	maxDelay := int64(-1)
	if arg != "" {
		for _, kv := range strings.Split(arg, ":") {
			k, v, _ := strings.Cut(strings.TrimSpace(kv), "=")
			switch k {
			case "burst":
				b, err := strconv.ParseInt(v, 10, 64)
				if err != nil || b < 1 || b > int64(^uint(0)>>1) {
					return bad()
				}
				tr.burst = b
			case "sources":
				n := traefikMaxSources
				if v != "" || strings.Contains(kv, "=") {
					c, err := strconv.Atoi(v)
					if err != nil || c < 1 {
						return bad()
					}
					n = c
				}
				tr.sources = &traefikMap{capacity: n}
			case "maxdelay":
				d, err := time.ParseDuration(v)
				if err != nil || d < 0 {
					return bad()
				}
				maxDelay = int64(d)
			default:
				return bad()
			}
		}
	}
	tr.named = tr.burst != r.L
	// average*int64(time.Second) (rate_limiter.go:81) must not wrap.
	lns, ok := algorithms.MulOK(r.L, int64(time.Second))
	if !ok {
		return nil, fmt.Errorf("algorithm \"traefik\": the rule's L = %d is more than Traefik's average can take (average*1e9 overflows int64)", r.L)
	}
	rtl := float64(lns) / float64(r.W)
	tr.limit = rtl
	// The source's maxDelay and ttl (rate_limiter.go:85-101), in float64.
	if rtl < 1 {
		tr.maxDelay[1] = int64(500 * time.Millisecond)
		tr.ttl[1] = 1 + int64(int(1/rtl))
	} else {
		tr.maxDelay[1] = int64(time.Second / (time.Duration(rtl) * 2))
		tr.ttl[1] = 2
	}
	// The same, exactly: rtl >= 1 iff L*1e9 >= W; int(rtl) = L*1e9 / W;
	// int(1/rtl) = W / (L*1e9).
	if lns < r.W {
		tr.maxDelay[0] = int64(500 * time.Millisecond)
		tr.ttl[0] = 1 + r.W/lns
	} else {
		tr.maxDelay[0] = int64(time.Second) / (lns / r.W * 2)
		tr.ttl[0] = 2
	}
	if maxDelay >= 0 {
		tr.maxDelay = [2]int64{maxDelay, maxDelay}
		tr.delayArg = algorithms.FormatWindow(maxDelay)
		if maxDelay == 0 {
			tr.delayArg = "0s"
		}
	}
	tr.SetDeviations(
		algorithms.Deviation{Name: "maxdelay", About: "serves late, up to maxDelay (" + time.Duration(tr.maxDelay[1]).String() + "), a request the bucket lacks a token for, taking the token: the bucket goes into debt"},
		algorithms.Deviation{Name: "float", About: "keeps x/time/rate's float64 tokens, refilled by elapsed.Seconds()*rate, the wait truncated to whole nanoseconds, a refused request's token put back in float64"},
		algorithms.Deviation{Name: "ttl", About: "forgets a source idle until " + strconv.FormatInt(tr.ttl[1], 10) + " whole Unix seconds after its last request's second: it starts again with a full bucket"},
		algorithms.Deviation{Name: "cost", About: "takes one token per request whatever its cost"},
	)
	if tr.sources != nil {
		devs := append(tr.Deviations(), algorithms.Deviation{Name: "eviction", About: "evicts, when a new source finds the map full (" + strconv.Itoa(tr.sources.capacity) + " entries), the entry whose expiry is nearest, expired or not: its source starts again with a full bucket"})
		tr.SetDeviations(devs...)
	}
	return tr, nil
}

func (tr *Traefik) Name() string {
	name := "traefik"
	if tr.named {
		name += ":burst=" + itoa(tr.burst)
	}
	if tr.delayArg != "" {
		name += ":maxdelay=" + tr.delayArg
	}
	if m := tr.sources; m != nil {
		name += ":sources"
		if m.capacity != traefikMaxSources {
			name += "=" + strconv.Itoa(m.capacity)
		}
	}
	return name + tr.Suffix()
}

// CouplesKeys reports whether the map's evictions are modelled: which
// source loses its entry depends on every source's requests.
func (tr *Traefik) CouplesKeys() bool { return tr.sources != nil && tr.OnAt(traefikEviction) }

func (tr *Traefik) Twin() string { return algorithms.BucketSpec("token", tr.burst, tr.rule) }

// Grow makes ids below n valid, each a new source (its bucket is made
// at its first request).
func (tr *Traefik) Grow(n int) {
	if n <= tr.keys.Len() {
		return
	}
	tr.keys.Grow(n)
	if tr.sources != nil {
		tr.sources.grow(n)
	}
}

func (*Traefik) Bytes(int32) int64    { return 128 }
func (*Traefik) FixedSize() bool      { return true }
func (*Traefik) CountsRejected() bool { return false }

// Burst returns the bucket's capacity.
func (tr *Traefik) Burst() int64 { return tr.burst }

// MaxDelay returns the longest wait the middleware serves a request after,
// in nanoseconds, as the source computes it.
func (tr *Traefik) MaxDelay() time.Duration { return time.Duration(tr.maxDelay[1]) }

// TTL returns the seconds a source is kept after its last request's
// second, as the source computes it.
func (tr *Traefik) TTL() int64 { return tr.ttl[1] }

// fresh makes k a new source's full bucket at t: rate.NewLimiter(limit,
// burst), whose first advance refills it from year 1, full (the burst
// exactly), and the exact bucket's zero deficit.
func (tr *Traefik) fresh(k *traefikKey, t int64) {
	k.lim = traefikBucket{tokens: float64(tr.burst), last: t}
	k.tok = algorithms.TokenState{}
	k.tok.Refill(t, tr.rule)
}

// Warm loads key id's bucket ahead of its decision.
func (tr *Traefik) Warm(id int32) uint64 { return uint64(tr.keys.At(id).expiry) }

// float returns index 1 with the float deviation on, else 0.
func (tr *Traefik) float() int {
	if tr.OnAt(traefikFloat) {
		return 1
	}
	return 0
}

// tokens is what a request takes: one, or its cost without the cost
// deviation.
func (tr *Traefik) tokens(cost int64) int64 {
	if tr.OnAt(traefikCost) {
		return 1
	}
	return cost
}

// Decide is Allow and ServeHTTP's test: the source's bucket, new if it is
// absent or expired; its expiry refreshed; the wait for n tokens compared
// with maxDelay. A refusal reserves and cancels on the rate.Limiter, as
// the middleware does.
func (tr *Traefik) Decide(id int32, t, cost int64) bool {
	k := tr.keys.At(id)
	sec := algorithms.FloorDiv(t, int64(time.Second)) // time.Unix(0, t).Unix()
	expiry := sec + tr.ttl[tr.float()]
	if m := tr.sources; m != nil {
		if !m.get(id, sec, tr.OnAt(traefikTTL)) {
			tr.fresh(k, t)
		}
		m.set(id, expiry, tr.OnAt(traefikEviction))
	} else {
		if !k.seen || tr.OnAt(traefikTTL) && k.expiry <= sec {
			tr.fresh(k, t)
			k.seen = true
		}
		k.expiry = expiry
	}
	n := tr.tokens(cost)
	if n > tr.burst {
		return false // ReserveN: not ok, nothing taken
	}
	var maxDelay int64
	if tr.OnAt(traefikMaxDelay) {
		maxDelay = tr.maxDelay[tr.float()]
	}
	if !tr.OnAt(traefikFloat) {
		// (burst - tokens + n - burst)*W/L <= maxDelay, tokens the exact
		// count: x <= (burst-n)*W + maxDelay*L, x = (burst - tokens)*W.
		k.tok.Refill(t, tr.rule)
		room := algorithms.Mul(tr.burst-n, tr.rule.W).Add(algorithms.Mul(maxDelay, tr.rule.L))
		return k.tok.X.Le(room)
	}
	// reserveN(t, n, InfDuration) and DelayFrom(t), without changing lim.
	tokens := k.lim.at(t, tr.limit, tr.burst) - float64(n)
	var wait time.Duration
	if tokens < 0 {
		wait = traefikDuration(tr.limit, -tokens)
	}
	if wait <= time.Duration(maxDelay) {
		return true
	}
	// The middleware reserves, then cancels: its float64 (tokens-n)+n and
	// last = t are kept.
	k.lim.reserve(t, n, tr.limit, tr.burst)
	k.lim.cancel(t, n, tr.limit, tr.burst)
	return false
}

// traefikDuration is rate.Limit.durationFromTokens: the wait for tokens at
// limit, truncated toward zero to whole nanoseconds (InfDuration past the
// largest).
func traefikDuration(limit float64, tokens float64) time.Duration {
	d := (tokens / limit) * float64(time.Second)
	if d > float64(math.MaxInt64) {
		return math.MaxInt64
	}
	return time.Duration(d)
}

// Record takes the request's tokens at t: the reservation the middleware
// keeps, into debt if the bucket lacks them (as a request served late
// does, and as a request the caller records although refused).
func (tr *Traefik) Record(id int32, t, cost int64) {
	k := tr.keys.At(id)
	n := tr.tokens(cost)
	if !tr.OnAt(traefikFloat) {
		k.tok.Refill(t, tr.rule)
		k.tok.Take(n, tr.rule)
		return
	}
	if n > tr.burst { // ReserveN would refuse: raise the burst for it
		k.lim.setBurst(t, tr.limit, tr.burst)
		k.lim.reserve(t, n, tr.limit, n)
		k.lim.setBurst(t, tr.limit, n)
		return
	}
	k.lim.reserve(t, n, tr.limit, tr.burst)
}

// Idle: the bucket is full at t (float64 tokens at burst, or no exact
// deficit): the source decides as a new one from t on. Its expiry is moot,
// as an expired source gets a full bucket.
func (tr *Traefik) Idle(id int32, t int64) bool {
	if tr.CouplesKeys() { // its entry may yet be evicted in another's place
		return false
	}
	k := tr.keys.At(id)
	if !k.seen && (tr.sources == nil || !tr.sources.in[id]) {
		return true
	}
	if !tr.OnAt(traefikFloat) {
		k.tok.Refill(t, tr.rule)
		return k.tok.X == algorithms.U128{}
	}
	return k.lim.at(t, tr.limit, tr.burst) >= float64(tr.burst)
}

func (tr *Traefik) Release(id int32) {
	*tr.keys.At(id) = traefikKey{}
	if tr.sources != nil {
		tr.sources.remove(id)
	}
}
