package products

import (
	"fmt"
	"math/big"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"time"

	"ratebench/algorithms"
)

func init() {
	algorithms.Register(algorithms.Kind{Spec: "nginx[:rate=Nr/s|Nr/m][:burst=N][:zone]", Place: 1, About: "nginx limit_req: leaky bucket in milli-requests on a millisecond clock, rate truncated as nginx parses it (default: rate L/W, burst L-1); zone models the zone's expiry of idle nodes, which couples keys",
		Build: func(c algorithms.Call, r algorithms.Rule) (algorithms.Limiter, error) {
			if c.HasArg && strings.TrimSpace(c.Arg) == "" {
				return nil, fmt.Errorf("algorithm %q: want nginx, or nginx:rate=Nr/s or Nr/m and :burst=N", c.Spec)
			}
			return NewNginx(r, c.Arg)
		}})
}

// Nginx is nginx's limit_req, modelled on its source as it decides: the
// file src/http/modules/ngx_http_limit_req_module.c of nginx/nginx at
// commit 3f6f7824d4e2eb1ac37dec76683d525ac0ff521c (line numbers below are
// that version's). It is a leaky bucket kept in milli-requests on a
// millisecond clock, configured as "limit_req_zone ... rate=Nr/s|Nr/m" and
// "limit_req ... burst=B".
//
// # Configuration
//
// The rate is kept in milli-requests per second, truncated as nginx parses
// it: ctx->rate = rate * 1000 / scale, scale 1 for r/s and 60 for r/m
// (lines 903-923, 939), so 1r/m is 16, not 16.67, and 10r/m is 166. The
// burst is kept as burst * 1000 (line 1060); nginx refuses burst <= 0
// (line 999), burst=0 here stands for no burst parameter (nginx's default
// 0). With no parameters the rule L/W gives rate = L/W, written as N r/s
// or, failing that, N r/m with N whole (a rule nginx cannot express is
// refused, naming the rate to give), and burst = L-1: a bucket that holds
// L requests, the one being admitted and L-1 in excess.
//
// # Decision (ngx_http_limit_req_lookup, lines 404-532)
//
// now is ngx_current_msec, here the trace's time floored to whole
// milliseconds (the phase of nginx's millisecond clock against the trace's
// epoch is taken as 0). For a key that has a node:
//
//	ms = now - last; ms < -60000 -> 1; ms < 0 -> 0          (lines 445-452)
//	excess' = excess - rate*ms/1000 + 1000, below 0 -> 0    (lines 454-458)
//	refused iff excess' > burst*1000 (">", not ">=")        (lines 462-464)
//
// A refused request returns NGX_BUSY before anything is stored: excess and
// last are unchanged (a refused request changes nothing, so CountsRejected
// is false). An admitted one (account set: one limit_req) stores
// excess = excess' and, only if ms != 0, last = now (lines 466-474). With
// a clock that never goes back ms == 0 means now == last, so the condition
// matters only to a clock that steps back; but ms > 0 with rate*ms < 1000
// does move last while the decay rate*ms/1000 truncates to 0: the fraction
// is lost (at 1r/m, admitted requests less than 63 ms apart never drain).
// A key without a node gets one with excess 0 and last = now, admitted
// without a burst check (lines 512, 520-523).
//
// nginx has no request cost: limit_req counts each request once, adding
// 1000 (lines 454-458), whatever the request; so a request of cost c
// counts as one (deviation one-hit). With one-hit off, a request of cost c
// is taken as c requests arriving in the same millisecond, all admitted or
// none, as the twin takes a cost: the first as above, each further one
// with ms = 0 adding 1000, so excess' = max(0, excess - rate*ms/1000 +
// 1000) + (c-1)*1000, and a new node gets (c-1)*1000; for c = 1 that is
// nginx exactly. A product rate*ms of 2^64 or more (beyond nginx's own
// integer range) counts as fully drained.
//
// # Zone expiry (ngx_http_limit_req_expire, lines 632-695): nginx:zone
//
// On creating a node (line 492) the zone drops up to two least recently
// used nodes not in use (lines 660-667) whose last is at least 60000 ms old
// and whose excess - rate*ms/1000 <= 0 (lines 670-684), and when the zone
// is full it drops the oldest node by force (lines 494-497, n == 0 skipping
// the test on its first pass). With the parameter zone the first is
// modelled (nginxZone), as the deviation zone-expiry; the zone never fills
// (its size is not modelled). Without it nodes are never dropped, and keys
// do not interact. The expiry can change a decision. A dropped node comes
// back fresh (excess 0, always admitted), a kept one decides
// max(0, excess - rate*ms/1000 + 1000): the two agree iff
// rate*ms/1000 >= excess + 1000, while the drop needs only
// rate*ms/1000 >= excess. A key that returns while
// excess <= rate*ms/1000 < excess + 1000 after another key created a node
// is therefore admitted with excess 0 by nginx:zone but keeps up to 999
// milli-requests in nginx (and, with no burst, is refused by nginx and
// admitted by nginx:zone). This cannot happen when
// rate*60 >= (burst+1)*1000, since a node then drains burst+1 requests in
// the 60 s it must idle (excess never exceeds burst*1000 when only
// admissions are recorded): for rule L/W with the default mapping, when
// W < 1m, or W = 1m with L a multiple of 3 (so that L r/m is not
// truncated); at 10/1m (rate 166, burst 9, 166*60 = 9960 < 10000) it can.
// Which node is dropped depends on every key's requests: nginx:zone
// couples keys (CouplesKeys), and the harness replays it in one pass.
//
// nodelay and delay=N (lines 1008-1023, 1061) change when an admitted
// request is served (ngx_http_limit_req_account), never whether it is
// admitted.
//
// Memory: 16 bytes per key, excess and last (ngx_uint_t and ngx_msec_t on
// a 64-bit build), the state the decision reads, as Token's deficit and
// time. nginx's node (lines 20-30) also holds count (8), color, len and a
// queue link (24), inside an rbtree node (32) and the key's bytes, none of
// which the bucket's arithmetic needs.
type Nginx struct {
	algorithms.DeviationSet
	rate      int64 // milli-requests per second, truncated as nginx
	burst     int64 // burst*1000
	name      string
	st        algorithms.PerKey[nginxState]
	rateGiven string // as given, "10r/s", or "" for the default
	rule      algorithms.Rule
	n, scale  int64 // the rate as configured: n r/s (scale 1) or n r/m (scale 60)

	// The arithmetic, as the deviations set it (configure): the clock's
	// unit in ns, and the drain of an elapsed e units, floor(rn*e/dd)
	// milli-requests; or, with the drain's truncation off, the exact token
	// bucket it approximates.
	unit, rn, dd int64
	exact        *algorithms.Token

	zone *nginxZone // with :zone, the zone's expiry of idle nodes
}

// The deviations of nginx from its twin, the token bucket of capacity
// burst+1 at the configured rate, in the order of Deviations.
const (
	nginxClock = iota
	nginxRateTruncation
	nginxDrainTruncation
	nginxOneHit
)

// nginxZoneExpiry is the deviation of nginx:zone: the zone's expiry.
const nginxZoneExpiry = nginxOneHit + 1

var nginxZoneDeviation = algorithms.Deviation{Name: "zone-expiry", About: "drops idle, drained nodes when another key's node is created, so that a key returning after 60 s may start afresh, with more room than its bucket had left"}

var nginxDeviations = []algorithms.Deviation{
	{Name: "clock", About: "decides on a millisecond clock: the trace's time floored to whole milliseconds"},
	{Name: "rate-truncation", About: "keeps the rate in whole milli-requests per second, truncated as it parses it (10r/m becomes 166, not 166.67)"},
	{Name: "drain-truncation", About: "drains whole milli-requests: rate*ms/1000 truncated, the fraction lost while the time of the last request moves on"},
	{Name: "one-hit", About: "counts each request as one whatever its cost (limit_req has no cost)"},
}

// nginxState is one key's node: excess in milli-requests and last in
// whole milliseconds. The zero value (seen false) is no node.
type nginxState struct {
	excess int64
	last   int64
	seen   bool
}

// nginxMaxParam bounds the rate's N and the burst, so that N*1000 and
// burst*1000 + MaxCost*1000 stay far below 2^63.
const nginxMaxParam = 1 << 40

// NewNginx returns nginx's limit_req for rule r from the parameters of the
// spec "nginx[:rate=Nr/s|Nr/m][:burst=N]" (arg is what follows "nginx:",
// "" for the defaults).
func NewNginx(r algorithms.Rule, arg string) (*Nginx, error) {
	ng := &Nginx{burst: -1, rule: r}
	ng.SetDeviations(nginxDeviations...)
	if arg != "" {
		for _, kv := range strings.Split(arg, ":") {
			k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
			switch {
			case ok && k == "rate" && ng.rateGiven == "":
				n, scale, err := parseNginxRate(v)
				if err != nil {
					return nil, fmt.Errorf("algorithm \"nginx:%s\": %v", arg, err)
				}
				ng.n, ng.scale, ng.rateGiven = n, scale, v
			case ok && k == "burst" && ng.burst < 0:
				n, err := strconv.ParseInt(v, 10, 64)
				if err != nil || n < 0 || n > nginxMaxParam {
					return nil, fmt.Errorf("algorithm \"nginx:%s\": burst %q is not a whole number from 0 to %d", arg, v, int64(nginxMaxParam))
				}
				ng.burst = n
			case kv == "zone" && ng.zone == nil:
				ng.zone = newNginxZone()
			default:
				return nil, fmt.Errorf("algorithm \"nginx:%s\": want nginx:rate=Nr/s or nginx:rate=Nr/m, :burst=N and :zone, each at most once, e.g. nginx:rate=10r/m:burst=9", arg)
			}
		}
	}
	name := "nginx"
	if ng.rateGiven != "" {
		name += ":rate=" + ng.rateGiven
	} else {
		v, err := NginxRate(r)
		if err != nil {
			return nil, err
		}
		ng.n, ng.scale, _ = parseNginxRate(v)
	}
	if ng.burst >= 0 {
		name += ":burst=" + itoa(ng.burst)
	} else {
		ng.burst = r.L - 1
		if ng.burst > nginxMaxParam {
			return nil, fmt.Errorf("algorithm nginx: rule %s: the limit is too large for a burst (at most %d)", r, int64(nginxMaxParam)+1)
		}
	}
	ng.burst *= 1000
	if ng.zone != nil {
		name += ":zone"
		ng.SetDeviations(append(slices.Clone(nginxDeviations), nginxZoneDeviation)...)
	}
	ng.name = name
	ng.rate = ng.n * 1000 / ng.scale
	ng.configure()
	return ng, nil
}

// Without turns a deviation off (see Product).
func (ng *Nginx) Without(name string) error {
	if err := ng.DeviationSet.Without(name); err != nil {
		return err
	}
	ng.configure()
	return nil
}

// configure sets the arithmetic from the deviations turned on: the clock
// in ms or ns; the rate truncated (rate milli-requests per second) or exact
// (n*1000/scale); the drain truncated to whole milli-requests or exact, a
// token bucket of capacity burst+1 at that rate on that clock. The token
// bucket is nginx exactly with the drain exact: with D its deficit, nginx's
// excess after an admission is D-1 (the request being admitted is not in
// excess), so max(0, excess - drain + 1) + cost-1 <= burst iff
// max(0, D - drain) + cost <= burst+1, and the recorded excess stays D-1.
func (ng *Nginx) configure() {
	ng.unit, ng.exact = 1e6, nil
	if !ng.OnAt(nginxClock) {
		ng.unit = 1
	}
	ng.rn, ng.dd = ng.rate, 1e9/ng.unit // rate*e*unit/1e9
	if !ng.OnAt(nginxRateTruncation) {
		ng.rn, ng.dd = ng.n*1000, ng.scale*(1e9/ng.unit)
	}
	if !ng.OnAt(nginxDrainTruncation) {
		// rn/(dd*unit) milli-requests per ns: rn requests per dd*unit*1000 ns.
		ng.exact = algorithms.NewToken(algorithms.Rule{L: ng.rn, W: ng.dd * ng.unit * 1000}, ng.burst/1000+1)
	}
}

// Twin is the token bucket of capacity burst+1 ("token" when that is L),
// when the rate nginx is configured with is the rule's.
func (ng *Nginx) Twin() string {
	configured := new(big.Int).Mul(big.NewInt(ng.n), big.NewInt(ng.rule.W))
	rule := new(big.Int).Mul(big.NewInt(ng.rule.L), big.NewInt(ng.scale*int64(time.Second)))
	if configured.Cmp(rule) != 0 { // n/(scale s) != L/W
		return ""
	}
	return algorithms.BucketSpec("token", ng.burst/1000+1, ng.rule)
}

// parseNginxRate reads "Nr/s" or "Nr/m" and returns N and the scale, 1 or
// 60; nginx keeps the rate as N*1000/scale milli-requests per second,
// truncated.
func parseNginxRate(v string) (n, scale int64, err error) {
	num, ok := strings.CutSuffix(v, "r/s")
	if ok {
		scale = 1
	} else if num, ok = strings.CutSuffix(v, "r/m"); ok {
		scale = 60
	}
	n, err = strconv.ParseInt(num, 10, 64)
	if scale == 0 || err != nil || n < 1 || n > nginxMaxParam {
		return 0, 0, fmt.Errorf("rate %q: want Nr/s or Nr/m with N a whole number from 1 to %d", v, int64(nginxMaxParam))
	}
	return n, scale, nil
}

// NginxRate returns the rate of rule r as nginx must be configured for it,
// "Nr/s" or else "Nr/m" with N whole, or an error naming the nearest rate
// nginx accepts when neither is whole.
func NginxRate(r algorithms.Rule) (string, error) {
	for _, u := range []struct {
		ns     int64
		suffix string
	}{{1e9, "r/s"}, {60e9, "r/m"}} {
		num := new(big.Int).Mul(big.NewInt(r.L), big.NewInt(u.ns))
		q, m := new(big.Int).QuoRem(num, big.NewInt(r.W), new(big.Int))
		if m.Sign() == 0 && q.IsInt64() && q.Int64() <= nginxMaxParam {
			return q.String() + u.suffix, nil
		}
	}
	// Nearest whole r/m, rounded half up, at least 1.
	num := new(big.Int).Mul(big.NewInt(r.L), big.NewInt(120e9))
	num.Add(num, big.NewInt(r.W))
	q := num.Quo(num, big.NewInt(2*r.W))
	if q.Sign() == 0 {
		q.SetInt64(1)
	}
	return "", fmt.Errorf("algorithm nginx: rule %s is not a whole number of requests per second or per minute, which is all nginx's rate takes; give the rate, e.g. nginx:rate=%sr/m", r, q.String())
}

func (ng *Nginx) Name() string { return ng.name + ng.Suffix() }
func (ng *Nginx) Grow(n int) {
	if ng.zone != nil {
		ng.zone.grow(n)
	}
	if ng.exact != nil {
		ng.exact.Grow(n)
		return
	}
	ng.st.Grow(n)
}

// Bytes: excess and last, and with :zone the node's queue link.
func (ng *Nginx) Bytes(int32) int64 {
	if ng.zone != nil {
		return 32
	}
	return 16
}

// CouplesKeys reports whether the zone's expiry is modelled: a key's
// decision then depends on the other keys' requests (see KeyCoupler).
func (ng *Nginx) CouplesKeys() bool { return ng.zone != nil && ng.OnAt(nginxZoneExpiry) }

// idleNode is the expiry's test of node id, idle for ms >= 60 s:
// excess - rate*ms/1000 <= 0 (with the drain exact, the token bucket's
// deficit at most the one request being served: D - 1 <= 0).
func (ng *Nginx) idleNode(id int32, ms int64) bool {
	if ng.exact != nil {
		return ng.exact.RefillFits(id, algorithms.SatAdd(ng.zone.last[id], ms)*ng.unit, 1, 0)
	}
	return ng.drained(ms, ng.st.At(id).excess)
}
func (*Nginx) FixedSize() bool      { return true }
func (*Nginx) CountsRejected() bool { return false }
func (ng *Nginx) Warm(id int32) uint64 {
	if ng.exact != nil {
		return ng.exact.Warm(id)
	}
	return uint64(ng.st.At(id).last)
}

// Rate returns the rate as nginx keeps it, in milli-requests per second.
func (ng *Nginx) Rate() int64 { return ng.rate }

// Burst returns the burst as nginx keeps it, burst*1000.
func (ng *Nginx) Burst() int64 { return ng.burst }

// clock is ngx_current_msec for trace time t: t floored to whole ms (to
// whole units of the clock, ns with the clock's deviation off).
func (ng *Nginx) clock(t int64) int64 { return algorithms.FloorDiv(t, ng.unit) }

// elapsed returns ms as lines 450-456 clamp it (in the clock's units).
func (ng *Nginx) elapsed(s *nginxState, now int64) int64 {
	ms := now - s.last
	if ms < -60000*(1e6/ng.unit) {
		return 1
	} else if ms < 0 {
		return 0
	}
	return ms
}

// drained reports whether the drain over ms units, floor(rn*ms/dd),
// reaches e, for ms >= 0 and e >= 0.
func (ng *Nginx) drained(ms, e int64) bool {
	q, big := ng.drain(ms)
	return big || q >= uint64(e)
}

// drain returns floor(rn*ms/dd), or big when it is 2^64 or more.
func (ng *Nginx) drain(ms int64) (q uint64, big bool) {
	hi, lo := bits.Mul64(uint64(ng.rn), uint64(ms))
	if hi >= uint64(ng.dd) {
		return 0, true
	}
	q, _ = bits.Div64(hi, lo, uint64(ng.dd))
	return q, false
}

// next returns excess' for a request of cost c at now, and ms.
func (ng *Nginx) next(s *nginxState, now, cost int64) (int64, int64) {
	extra := (cost - 1) * 1000 // cost <= MaxCost: far from overflow
	if !s.seen {
		return extra, 0
	}
	ms := ng.elapsed(s, now)
	e := s.excess + 1000 // excess never exceeds 2^63 - 1001: SatAdd below
	q, big := ng.drain(ms)
	if big || q >= uint64(e) {
		return extra, ms
	}
	return algorithms.SatAdd(e-int64(q), extra), ms
}

// Decide admits iff excess' <= burst*1000 (a new node is admitted if its
// cost fits the burst: always, for cost 1).
func (ng *Nginx) Decide(id int32, t, cost int64) bool {
	cost = oneHit(ng.OnAt(nginxOneHit), cost)
	if ng.CouplesKeys() {
		ng.zone.lookup(id, ng.clock(t), 60000*(1e6/ng.unit), ng.idleNode, ng.Release)
	}
	if ng.exact != nil {
		return ng.exact.Decide(id, ng.clock(t)*ng.unit, cost)
	}
	e, _ := ng.next(ng.st.At(id), ng.clock(t), cost)
	return e <= ng.burst
}

// Record stores excess' and, if ms != 0 or the node is new, last = now, as
// an admission does (lines 470-477, 511-519). A refused request is not
// recorded by nginx; recording one (shadow mode) stores it the same way.
func (ng *Nginx) Record(id int32, t, cost int64) {
	cost = oneHit(ng.OnAt(nginxOneHit), cost)
	now := ng.clock(t)
	if ng.exact != nil {
		ng.exact.Record(id, now*ng.unit, cost)
		if ng.zone != nil {
			ng.zone.last[id] = now
		}
		return
	}
	s := ng.st.At(id)
	e, ms := ng.next(s, now, cost)
	if !s.seen || ms != 0 {
		s.last = now
		if ng.zone != nil {
			ng.zone.last[id] = now
		}
	}
	s.seen = true
	s.excess = min(e, 1<<63-1001)
}

// Idle: no node, or the next request of any cost decides and stores as on
// a new node: rate*ms/1000 >= excess + 1000 (so ms > 0 and last moves to
// now, as a new node's).
func (ng *Nginx) Idle(id int32, t int64) bool {
	if ng.CouplesKeys() { // its node may yet shield another from the expiry
		return false
	}
	if ng.exact != nil {
		return ng.exact.Idle(id, ng.clock(t)*ng.unit)
	}
	s := ng.st.At(id)
	if !s.seen {
		return true
	}
	now := ng.clock(t)
	return now >= s.last && ng.drained(now-s.last, s.excess+1000)
}

func (ng *Nginx) Release(id int32) {
	if ng.zone != nil {
		ng.zone.release(id)
	}
	if ng.exact != nil {
		ng.exact.Release(id)
		return
	}
	*ng.st.At(id) = nginxState{}
}
