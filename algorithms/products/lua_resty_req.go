package products

import (
	"math"
	"time"

	"ratebench/algorithms"
)

// LuaRestyReq is lua-resty-limit-traffic's resty.limit.req (the source of
// NewLuaResty's doc: lib/resty/limit/req.lua), "an approximate Lua port of
// the standard ngx_limit_req module" (lines 3-4): nginx's leaky bucket in
// milli-requests, kept in a lua_shared_dict, in LuaJIT's doubles.
//
// # Configuration
//
// The rule L/W is configured as the module's documentation writes "L
// requests per W": new(dict, rate, burst) with rate = L/W per second, the
// double L / (W in seconds) a Lua configuration computes (10/60 is
// 0.16666666666666666), and burst = L-1, as the nginx model's default: a
// bucket that holds L requests, the one being admitted and L-1 in excess.
// new keeps rate*1000 and burst*1000 (lines 56-62), doubles: the rate is
// not truncated as nginx truncates its own (10/1m is 166.66666666666666
// milli-requests per second, not 166).
//
// # Decision (incoming(key, true), lines 73-116)
//
// now = ngx.now() * 1000 (line 76), where ngx.now() is lua-nginx-module's
// ngx_http_lua_ffi_now (src/ngx_http_lua_time.c:17-25): tp->sec +
// tp->msec / 1000.0 of nginx's cached time, here the trace's time's whole
// seconds and milliseconds (the trace's time read as Unix time). The
// double is not always a whole number of milliseconds: near the epoch (a
// trace whose times start at 0, as generated ones do) (1 + 0.001) * 1000
// is 1000.9999999999999, which the record's last truncates to 1000, a
// millisecond early. From late 2004 to early 2038 (sec from 2^40/1000 to
// 2^31) it always is; in the first 2.4% of each binade of sec, [2^k,
// 1.024*2^k), it may not be.
//
// A key with a record (excess, last) decides, in doubles:
//
//	elapsed = now - last                                      (line 88)
//	excess' = max(excess - rate*abs(elapsed)/1000 + 1000, 0)  (lines 95-96)
//	refused iff excess' > burst*1000                          (lines 100-102)
//
// A refused request returns before anything is stored: it changes
// nothing. An admitted one stores excess' and now into the record's C
// struct, unsigned long excess and uint64_t last (lines 25-31, 108-112):
// both truncated to whole numbers, the fraction of a milli-request and of
// a millisecond lost. A key without a record is admitted without a check
// and stores excess 0 (lines 104-106). last is stored on every admission
// (nginx moves it only when ms != 0), and a clock that goes back counts as
// forward (abs): neither shows on a clock that never goes back.
//
// Beside nginx's arithmetic (the model nginx), the same formula but: the
// rate in doubles, not truncated; the drain not truncated, in doubles
// (nginx truncates rate*ms/1000 down, so loses drain; req truncates the
// stored excess down, so forgives up to one milli-request at each
// admission); the decision compares the untruncated excess'; last is the
// truncated double now, which can lag the millisecond by one.
//
// The module has no request cost (incoming counts one request, adding
// 1000): a request of cost c counts as one (deviation one-hit). With
// one-hit off it adds c*1000: excess' = max(excess - drain + 1000, 0) +
// (c-1)*1000, and a new key (c-1)*1000, admitted iff at most burst*1000.
//
// # Twin and deviations
//
// With the drain exact and nothing truncated this is nginx's bucket read
// exactly, the token bucket of capacity burst+1 = L at L/W ("token"; see
// Nginx.configure). The deviations:
//
//   - clock: ngx.now()'s whole milliseconds (off: the trace's ns).
//   - float: doubles (off: exact rationals): the rate L/W, ngx.now() and
//     times 1000, the drain and the excess.
//   - truncation: the record's excess and last truncated to whole
//     milli-requests and milliseconds when stored (off: kept as computed).
//   - one-hit: one request whatever its cost.
//
// Memory: 16 bytes per key, the record's excess and last (a 16-byte
// string value in the shared dict, under the key).
type LuaRestyReq struct {
	algorithms.DeviationSet
	rule   algorithms.Rule
	rate   float64 // self.rate: L/W per second times 1000, in doubles
	burst  float64 // self.burst: (L-1)*1000
	burstM int64   // (L-1)*1000, exactly

	// The state, as the deviations choose (configure): doubles (float
	// on), whole milli-requests with exact drains (float off, truncation
	// on), or the exact token bucket (both off).
	fl    algorithms.PerKey[luaReqFloat]
	in    algorithms.PerKey[luaReqInt]
	exact *algorithms.Token
}

const (
	luaReqClock = iota
	luaReqFloatDev
	luaReqTruncation
	luaReqOneHit
)

var luaReqDeviations = []algorithms.Deviation{
	{Name: "clock", About: "decides on ngx.now()'s whole milliseconds"},
	{Name: "float", About: "computes in LuaJIT's doubles: the rate L/W (10/1m is 166.66666666666666 milli-requests/s), ngx.now()*1000 (not always a whole number of ms), the drain and the excess"},
	{Name: "truncation", About: "stores the record's excess and last truncated to whole milli-requests and milliseconds (a C struct of integers): up to one milli-request forgiven at each admission"},
	{Name: "one-hit", About: "counts each request as one whatever its cost (incoming takes none)"},
}

// luaReqFloat is a key's record in doubles; seen false: no record.
type luaReqFloat struct {
	excess, last float64 // milli-requests, ms
	seen         bool
}

// luaReqInt is a key's record with float off: excess in whole
// milli-requests, last in ns (whole ms with truncation on).
type luaReqInt struct {
	excess, last int64
	seen         bool
}

// NewLuaRestyReq returns resty.limit.req for rule r (L <= luaRestyMaxL):
// rate L/W per second, burst L-1.
func NewLuaRestyReq(r algorithms.Rule) *LuaRestyReq {
	q := &LuaRestyReq{rule: r}
	q.SetDeviations(luaReqDeviations...)
	rate := float64(r.L) / (float64(r.W) / float64(time.Second)) // L / W, W in seconds
	q.rate = rate * 1000
	q.burst = float64(r.L-1) * 1000
	q.burstM = (r.L - 1) * 1000
	q.configure()
	return q
}

// Without turns a deviation off (see Product).
func (q *LuaRestyReq) Without(name string) error {
	if err := q.DeviationSet.Without(name); err != nil {
		return err
	}
	q.configure()
	return nil
}

func (q *LuaRestyReq) configure() {
	q.exact = nil
	if !q.OnAt(luaReqFloatDev) && !q.OnAt(luaReqTruncation) {
		q.exact = algorithms.NewToken(q.rule, q.rule.L)
	}
}

func (q *LuaRestyReq) Name() string {
	return luaRestyName + q.Suffix()
}

// Twin is the token bucket of capacity burst+1 = L.
func (q *LuaRestyReq) Twin() string { return "token" }

func (q *LuaRestyReq) Grow(n int) {
	switch {
	case q.exact != nil:
		q.exact.Grow(n)
	case q.OnAt(luaReqFloatDev):
		q.fl.Grow(n)
	default:
		q.in.Grow(n)
	}
}

// Bytes: excess and last.
func (*LuaRestyReq) Bytes(int32) int64      { return 16 }
func (*LuaRestyReq) FixedSize() bool        { return true }
func (*LuaRestyReq) CountsRejected() bool   { return false }
func (q *LuaRestyReq) Warm(id int32) uint64 { return q.warm(id) }

func (q *LuaRestyReq) warm(id int32) uint64 {
	switch {
	case q.exact != nil:
		return q.exact.Warm(id)
	case q.OnAt(luaReqFloatDev):
		return uint64(q.fl.At(id).last)
	}
	return uint64(q.in.At(id).last)
}

// extra is what a request of cost beyond the first adds, milli-requests.
func (q *LuaRestyReq) extra(cost int64) int64 {
	return (oneHit(q.OnAt(luaReqOneHit), cost) - 1) * 1000
}

// clockNs is t on the clock: floored to whole ms (in ns), or t.
func (q *LuaRestyReq) clockNs(t int64) int64 {
	if q.OnAt(luaReqClock) {
		return algorithms.FloorDiv(t, int64(time.Millisecond)) * int64(time.Millisecond)
	}
	return t
}

// nowFloat is now = ngx.now() * 1000, in doubles: ngx.now() is sec +
// msec/1000.0, or with the clock off sec + ns/1e9.
func (q *LuaRestyReq) nowFloat(t int64) float64 {
	sec := algorithms.FloorDiv(t, int64(time.Second))
	rem := t - sec*int64(time.Second)
	var now float64
	if q.OnAt(luaReqClock) {
		now = float64(sec) + float64(rem/int64(time.Millisecond))/1000.0
	} else {
		now = float64(sec) + float64(rem)/1e9
	}
	return now * 1000
}

// nextFloat returns excess' (the extra of a cost included) and now.
func (q *LuaRestyReq) nextFloat(s *luaReqFloat, t, cost int64) (float64, float64) {
	now := q.nowFloat(t)
	extra := float64(q.extra(cost))
	if !s.seen {
		return extra, now
	}
	elapsed := now - s.last
	drain := float64(q.rate*math.Abs(elapsed)) / 1000
	return max(float64(float64(s.excess-drain)+1000), 0) + extra, now
}

// drainWide is the drain over e ns, 1000*L*e/W milli-requests, as the
// 128-bit numerator 1000*L*e over W.
func (q *LuaRestyReq) drainWide(e int64) algorithms.U128 {
	return algorithms.Mul(1000*q.rule.L, e)
}

// drainGE reports whether the drain over e ns is at least v >= 0.
func (q *LuaRestyReq) drainGE(e, v int64) bool {
	return algorithms.Mul(v, q.rule.W).Le(q.drainWide(e))
}

// nextInt returns, with float off and truncation on, whether the request
// fits and the excess to store: max(excess - drain + 1000, 0) + extra,
// the drain exact, stored truncated (excess + 1000 - ceil(drain)).
func (q *LuaRestyReq) nextInt(s *luaReqInt, now, cost int64) (bool, int64) {
	extra := q.extra(cost)
	if !s.seen {
		return extra <= q.burstM, extra
	}
	e := now - s.last
	if e < 0 {
		e = -e
	}
	a := s.excess + 1000
	if q.drainGE(e, a) {
		return extra <= q.burstM, extra
	}
	over := a + extra - q.burstM // fits iff drain >= over
	fits := over <= 0 || q.drainGE(e, over)
	d, r := q.drainWide(e).QuoRemWide(q.rule.W) // drain < a: d fits
	ceil := int64(d.Lo)
	if r > 0 {
		ceil++
	}
	return fits, a - ceil + extra
}

// Decide admits iff excess' <= burst*1000.
func (q *LuaRestyReq) Decide(id int32, t, cost int64) bool {
	switch {
	case q.exact != nil:
		return q.exact.Decide(id, q.clockNs(t), oneHit(q.OnAt(luaReqOneHit), cost))
	case q.OnAt(luaReqFloatDev):
		e, _ := q.nextFloat(q.fl.At(id), t, cost)
		return e <= q.burst
	}
	fits, _ := q.nextInt(q.in.At(id), q.clockNs(t), cost)
	return fits
}

// Record stores excess' and now, as an admission does (truncated with
// truncation on). A refused request stores nothing in the module;
// recording one (shadow mode) stores it the same way.
func (q *LuaRestyReq) Record(id int32, t, cost int64) {
	switch {
	case q.exact != nil:
		q.exact.Record(id, q.clockNs(t), oneHit(q.OnAt(luaReqOneHit), cost))
	case q.OnAt(luaReqFloatDev):
		s := q.fl.At(id)
		e, now := q.nextFloat(s, t, cost)
		if q.OnAt(luaReqTruncation) {
			e, now = math.Trunc(e), math.Trunc(now)
		}
		*s = luaReqFloat{excess: e, last: now, seen: true}
	default:
		s := q.in.At(id)
		now := q.clockNs(t)
		_, e := q.nextInt(s, now, cost)
		ms := int64(time.Millisecond)
		*s = luaReqInt{excess: e, last: algorithms.FloorDiv(now, ms) * ms, seen: true}
	}
}

// Idle: no record, or the next request's excess' is 0 before its extra,
// as on a new key (the record stored is then a new key's).
func (q *LuaRestyReq) Idle(id int32, t int64) bool {
	switch {
	case q.exact != nil:
		return q.exact.Idle(id, q.clockNs(t))
	case q.OnAt(luaReqFloatDev):
		s := q.fl.At(id)
		e, _ := q.nextFloat(s, t, 1)
		return !s.seen || e == 0
	}
	s := q.in.At(id)
	if !s.seen {
		return true
	}
	e := q.clockNs(t) - s.last
	return e >= 0 && q.drainGE(e, s.excess+1000)
}

func (q *LuaRestyReq) Release(id int32) {
	switch {
	case q.exact != nil:
		q.exact.Release(id)
	case q.OnAt(luaReqFloatDev):
		*q.fl.At(id) = luaReqFloat{}
	default:
		*q.in.At(id) = luaReqInt{}
	}
}
