package products

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"ratebench/algorithms"
)

func init() {
	algorithms.Register(algorithms.Kind{Spec: "cloudflare-waf[:timeout=D][:lag=D][:dcs=N]", Place: 33, About: "Cloudflare WAF rate limiting rule (Requests L, Period W of 10 s, 1, 2, 5 or 10 min or 1 h), model only: a sliding-window counter per data centre, a key over the rate blocked for the mitigation timeout (default W; timeout=0 throttles), every matching request counted, the counters updated with a lag (default 2 s); dcs=N spreads a key's requests over N data centres that share nothing",
		Build: func(c algorithms.Call, r algorithms.Rule) (algorithms.Limiter, error) {
			return NewCloudflareWAF(r, c.Arg, c.HasArg)
		}})
}

// CloudflareWAF is a Cloudflare WAF rate limiting rule, modelled from
// Cloudflare's documentation (cloudflare/cloudflare-docs,
// src/content/docs/waf/rate-limiting-rules/): "Rate limiting rules"
// (index.mdx, commit 75617bb), "Rate limiting parameters" (parameters.mdx,
// commit 5d2cc64), "Request rate calculation" (request-rate.mdx, commit
// ccfc092) and the availability by plan
// (src/content/partials/waf/rate-limiting-availability-by-plan.mdx, commit
// 8bce8c0); and, for how a counter counts, which the documentation does
// not say, from Cloudflare's description of its rate limiting, "How we
// built rate limiting capable of scaling to millions of domains"
// (blog.cloudflare.com/counting-things-a-lot-of-different-things). No
// such service runs here: the model is what these say, and where they
// leave a choice open the model says which it takes.
//
// The rule "L requests per W" is Requests (requests_per_period) L and
// Period W, with the key as the rule's characteristics. "The available
// API values are: 10, 60 (one minute), 120 (two minutes), 300 (five
// minutes), 600 (10 minutes), or 3600 (one hour)": any other window is
// refused, naming them.
//
// # What the documentation says
//
//   - The counters: "Cloudflare keeps separate rate counters for rate
//     limiting rules for each value combination of the rule
//     characteristics", and "counters are not shared across data
//     centers" (the data center ID is a mandatory characteristic).
//   - What counts: the counting model is the number of requests (on
//     every plan; complexity-based counting is an Enterprise beta, not
//     modelled): one per request, whatever it costs. In its Example A a
//     request "increases the value of the existing counter, setting it to
//     2. The counter value is now above the limit ..., and so request 3
//     gets blocked": the request is counted, and blocked iff the count
//     with it is above L.
//   - The block: "Once the rate is reached, the rate limiting rule
//     applies the rule action to further requests for the period of time
//     defined in this field" (mitigation_timeout: 0, 10, 60, 120, 300,
//     600, 3600 or 86400 s, and any value via the API for Enterprise
//     customers); with 0, "Throttle requests over the maximum configured
//     rate: Applies the selected action to incoming requests over the
//     configured limit, allowing other requests".
//   - The lag: "Rate limiting rules are not designed to allow a precise
//     number of requests to reach the origin server. In some situations,
//     there may be a delay (up to a few seconds) between detecting a
//     request and updating internal counters."
//   - The counter (the blog): every request that matches is counted per
//     client, in the current fixed window of the period and the previous
//     one, the rate being previous · (period − elapsed)/period + current:
//     the sliding-window counter, which experiments/cloudflare reproduces
//     against Cloudflare's published accuracy.
//
// # What the model assumes
//
//   - Windows on the epoch's multiples of W; a request admitted iff the
//     counter's estimate, it included, is at most L (counter: prev·(W −
//     e)/W + curr + 1 <= L).
//   - timeout=D (default W, the model's choice: the Free plan's only
//     setting pairs a 10 s period with a 10 s timeout) blocks a key for D
//     from the request its counter refuses, every request of the key
//     refused meanwhile whatever the counter says; timeout=0 throttles:
//     each request decided by the counter alone.
//   - Every request the rule sees is counted, the blocked ones too.
//   - lag=D (default 2 s: the documentation says "up to a few seconds"
//     and no more; the model's choice) delays every count: a decision at
//     t sees the requests counted up to t − D, and its own.
//   - Data centres: a key's requests reach the data centre the anycast
//     network routes them to, which a trace does not say, and a limiter
//     sees no node. With dcs=N (default 1: a client's requests at the one
//     data centre nearest it) the i-th request of a key goes to data
//     centre i mod N, a round robin per key (as compare's -nodes
//     -route roundrobin, which runs the textbook windows), each data
//     centre with its own counter and block. Cloudflare's exception, data
//     centres of one location sharing counters, is one data centre here.
//
// # Deviations from counter:block=D (counter when D = 0)
//
//   - lag: a decision sees the requests counted up to D before it (off:
//     all of them).
//   - counts-refused: every request is counted, the blocked ones too
//     (off: only the admitted).
//   - one-hit: a request counts one whatever its cost (off: its cost).
//   - data-centres, with dcs=N above 1: a key's requests spread over N
//     data centres that share nothing (off: one counter and block).
//
// Memory: per data centre, the counter's window, previous and current
// counts and the block's end, 32 bytes; the requests still in the lag are
// in flight, not in the counter.
type CloudflareWAF struct {
	algorithms.DeviationSet
	rule             algorithms.Rule
	timeout, lag     int64
	dcs              int64
	tNamed, lagNamed bool
	dcsNamed         bool
	st               algorithms.PerKey[cfCounter] // dcs per key
	keys             algorithms.PerKey[cfKey]
	pend             []algorithms.KeyEntries // by data centre, then key: the counted requests still in the lag (with lag on)
}

// cfLagRing is the ring each key's requests in the lag take, at each data
// centre, in the replay's block: a key makes few requests within a lag
// of seconds, and the busiest spill to the store's pool.
const cfLagRing = 4

// cfCounter is one data centre's counter of a key and its block's end
// (blocked while t < until).
type cfCounter struct {
	c     algorithms.CounterState
	until int64
}

// cfKey is where a key's requests go: how many it has made, and the data
// centre of the last.
type cfKey struct {
	n  int64
	dc int64
}

const (
	cfLag = iota
	cfCountsRefused
	cfOneHit
	cfDataCentres
)

const (
	cfDefaultLag = int64(2 * time.Second)
	cfMaxTimeout = int64(24 * time.Hour)
	cfMaxDCs     = 1024
)

// cfPeriods are the periods a rule takes, in seconds.
var cfPeriods = []int64{10, 60, 120, 300, 600, 3600}

// NewCloudflareWAF returns the rate limiting rule for rule r with the
// parameters of arg (timeout=D, lag=D, dcs=N), or an error for a rule or a
// parameter Cloudflare does not take.
func NewCloudflareWAF(r algorithms.Rule, arg string, hasArg bool) (*CloudflareWAF, error) {
	ok := false
	for _, p := range cfPeriods {
		ok = ok || r.W == p*int64(time.Second)
	}
	if !ok {
		return nil, fmt.Errorf("algorithm \"cloudflare-waf\": a rate limiting rule's period is 10, 60, 120, 300, 600 or 3600 seconds: give a window of 10s, 1m, 2m, 5m, 10m or 1h, not %s", algorithms.FormatWindow(r.W))
	}
	w := &CloudflareWAF{rule: r, timeout: r.W, lag: cfDefaultLag, dcs: 1}
	if hasArg {
		for _, f := range strings.Split(arg, ":") {
			if err := w.param(strings.TrimSpace(f)); err != nil {
				return nil, fmt.Errorf("algorithm \"cloudflare-waf:%s\": %v", arg, err)
			}
		}
	}
	if w.lag >= r.W {
		return nil, fmt.Errorf("algorithm \"cloudflare-waf\": lag=%s is not below the period %s: the documentation's lag is a few seconds", algorithms.FormatWindow(w.lag), algorithms.FormatWindow(r.W))
	}
	devs := []algorithms.Deviation{
		{Name: "lag", About: "counts a request " + algorithms.FormatWindow(w.lag) + " after it arrives: a decision does not see the requests of the lag before it"},
		{Name: "counts-refused", About: "counts every request the rule sees, the blocked ones too"},
		{Name: "one-hit", About: "counts one per request whatever its cost"},
	}
	if w.dcs > 1 {
		devs = append(devs, algorithms.Deviation{Name: "data-centres", About: "spreads a key's requests over " + itoa(w.dcs) + " data centres, the i-th to data centre i mod " + itoa(w.dcs) + ", each counting and blocking on its own"})
	}
	w.SetDeviations(devs...)
	w.st = algorithms.NewPerKey[cfCounter](int(w.dcs))
	return w, nil
}

// param reads one parameter of the spec.
func (w *CloudflareWAF) param(f string) error {
	k, v, _ := strings.Cut(f, "=")
	switch k {
	case "timeout":
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 || d%time.Second != 0 || int64(d) > cfMaxTimeout {
			return fmt.Errorf("want timeout=D, the mitigation timeout in whole seconds from 0 (throttle) to 24h (the API's 0, 10s, 1m, 2m, 5m, 10m, 1h, 24h, or any for Enterprise), not %q", v)
		}
		w.timeout, w.tNamed = int64(d), true
	case "lag":
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return fmt.Errorf("want lag=D, a positive duration below the period (without=lag for none), not %q", v)
		}
		w.lag, w.lagNamed = int64(d), true
	case "dcs":
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 || n > cfMaxDCs {
			return fmt.Errorf("want dcs=N, the data centres a key's requests reach, from 1 to %d, not %q", cfMaxDCs, v)
		}
		w.dcs, w.dcsNamed = n, true
	default:
		return fmt.Errorf("want cloudflare-waf[:timeout=D][:lag=D][:dcs=N], not %q", f)
	}
	return nil
}

func (w *CloudflareWAF) Name() string {
	name := "cloudflare-waf"
	if w.tNamed {
		if w.timeout == 0 {
			name += ":timeout=0"
		} else {
			name += ":timeout=" + algorithms.FormatWindow(w.timeout)
		}
	}
	if w.lagNamed {
		name += ":lag=" + algorithms.FormatWindow(w.lag)
	}
	if w.dcsNamed {
		name += ":dcs=" + itoa(w.dcs)
	}
	return name + w.Suffix()
}

// Twin is the sliding-window counter behind the mitigation timeout.
func (w *CloudflareWAF) Twin() string {
	if w.timeout == 0 {
		return "counter"
	}
	return "counter:block=" + algorithms.FormatWindow(w.timeout)
}

// spread is the number of data centres a key's requests go to: dcs, or
// one with data-centres off.
func (w *CloudflareWAF) spread() int64 {
	if w.dcs > 1 && w.OnAt(cfDataCentres) {
		return w.dcs
	}
	return 1
}

func (w *CloudflareWAF) Grow(n int) {
	w.st.Grow(n)
	w.keys.Grow(n)
	for i := range w.lagged() {
		w.pend[i].Grow(n)
	}
}

// lagged returns the stores of the requests in the lag, one per data
// centre, made at the first call: none with lag off.
func (w *CloudflareWAF) lagged() []algorithms.KeyEntries {
	if w.pend == nil && w.OnAt(cfLag) {
		w.pend = make([]algorithms.KeyEntries, w.dcs)
		for i := range w.pend {
			w.pend[i] = algorithms.NewKeyEntries(cfLagRing)
		}
	}
	return w.pend
}

func (w *CloudflareWAF) Bytes(int32) int64  { return 32 * w.spread() }
func (*CloudflareWAF) FixedSize() bool      { return true }
func (*CloudflareWAF) CountsRejected() bool { return true }

// CountsEvery: with counts-refused, every request is counted.
func (w *CloudflareWAF) CountsEvery() bool { return w.OnAt(cfCountsRefused) }

func (w *CloudflareWAF) Place(b *algorithms.Block) {
	w.st.Place(b)
	w.keys.Place(b)
	for i := range w.lagged() {
		w.pend[i].Place(b)
	}
}

func (w *CloudflareWAF) Warm(id int32) uint64 { return uint64(w.st.At(id).c.Start) }

// pending returns the requests of key id at data centre dc still in the
// lag.
func (w *CloudflareWAF) pending(id int32, dc int64) algorithms.Entries {
	return w.pend[dc].Key(id)
}

// hit is what a request of cost counts.
func (w *CloudflareWAF) hit(cost int64) int64 { return oneHit(w.OnAt(cfOneHit), cost) }

// Decide routes the request to its data centre, where a block in force
// refuses it; otherwise the counter's estimate (less what the lag hides),
// the request included, must be at most L, and a refusal starts the
// block.
func (w *CloudflareWAF) Decide(id int32, t, cost int64) bool {
	k := w.keys.At(id)
	k.dc = k.n % w.spread()
	k.n++
	s := &w.st.Row(id)[k.dc]
	if t < s.until {
		return false
	}
	e := s.c.Advance(t, w.rule.W)
	prev, curr := s.c.Prev, s.c.Curr
	if w.OnAt(cfLag) {
		p := w.pending(id, k.dc)
		p.Expire(t - w.lag)
		hidPrev := p.SumThrough(s.c.Start - 1) // the lag is below W: in the previous window or this one
		prev, curr = prev-hidPrev, curr-(p.Sum()-hidPrev)
	}
	if algorithms.CounterLE(prev, curr, e, w.hit(cost), w.rule.L, w.rule.W) {
		return true
	}
	if w.timeout > 0 {
		s.until = algorithms.SatAdd(t, w.timeout)
	}
	return false
}

// Record counts the request at the data centre its decision went to.
func (w *CloudflareWAF) Record(id int32, t, cost int64) {
	k := w.keys.At(id)
	s := &w.st.Row(id)[k.dc]
	s.c.Advance(t, w.rule.W)
	n := w.hit(cost)
	s.c.Curr = algorithms.SatAdd(s.c.Curr, n)
	if w.OnAt(cfLag) {
		w.pending(id, k.dc).Add(t, n)
	}
}

// Idle: at every data centre the block is over and the counter reads
// nothing (nothing counted is then still in the lag); the data centres
// being alike, the key decides as a new one whichever its next request
// reaches.
func (w *CloudflareWAF) Idle(id int32, t int64) bool {
	for _, s := range w.st.Row(id) {
		if t < s.until || !s.c.Idle(t, w.rule.W) {
			return false
		}
	}
	return true
}

func (w *CloudflareWAF) Release(id int32) {
	clear(w.st.Row(id))
	*w.keys.At(id) = cfKey{}
	if w.OnAt(cfLag) {
		for dc := range w.dcs {
			w.pending(id, dc).Drop()
		}
	}
}
