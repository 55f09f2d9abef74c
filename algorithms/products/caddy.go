package products

import "ratebench/algorithms"

func init() {
	algorithms.Register(algorithms.Kind{Spec: "caddy", Place: 23, About: "mholt/caddy-ratelimit (Caddy's rate_limit handler, events L, window W): a ring of the last L recorded events' times per key; a request is admitted while the oldest is at least W old, and recorded only if more than W old; one event per request whatever its cost",
		Build: algorithms.NoParams(func(r algorithms.Rule) algorithms.Limiter { return NewCaddy(r) })})
}

// Caddy is the rate_limit HTTP handler of github.com/mholt/caddy-ratelimit
// (commit 5625512f24f6f59d6f64fb3aafe5eecff0b286db, after v0.1.0), without
// its distributed mode, modelled from ringbuffer.go, ratelimit.go and
// handler.go (line numbers below are that commit's). Model only: the
// module is not run here. Its ring buffer is an unexported type of a
// package that imports Caddy's server, so no test of this module can
// reach it; run once outside this repository, from a test inside that
// package with its clock (the package's now) set to each request's time,
// the ring agreed with this model on every one of 60,000 requests (six
// rules, random and W-spaced traces, costs up to L/40, the sweep run every
// 500 requests), 426 of them decided otherwise without the deviation
// boundary.
//
// # Configuration
//
// Its README writes a zone as "100 events every 1 minute", max_events 100
// and window 1m (Caddyfile: events 100, window 1m): the rule L/W is
// max_events L, window W.
//
// # Decision
//
// Each key has a ring buffer of max_events times, zero (year 1) at first,
// and a cursor at the oldest (ringbuffer.go:26-48). ServeHTTP refuses a
// request iff When() > 0 (handler.go:220). When (lines 53-60) first asks
// allowed(): iff now().Sub(ring[cursor]) > window, now() is written at the
// cursor, which moves on, and When returns 0 (lines 66-94); otherwise it
// returns ring[cursor] + window - now(), which is 0, not positive, when
// the oldest is exactly W old. So a request is admitted iff the oldest of
// the last L recorded events is at least W old, that is iff fewer than L
// recorded events lie in (t-W, t], the exact log's window; but one that
// comes when the oldest is exactly W old is let through without being
// recorded. A refused request writes nothing. A request is one event
// whatever its cost.
//
// The clock is time.Now() (the package's now), nanoseconds, read up to
// three times: to decide, to record, and for When's wait, each a few
// nanoseconds later in a server, which widens the instant at which a
// request passes unrecorded to those few nanoseconds; the model reads the
// request's time for all three.
//
// # Idle keys
//
// A sweeper, every sweep_interval (default 1m, handler.go:186-190, 353-382),
// deletes a key whose newest event is more than window old
// (ratelimit.go:143-174); its next request makes a new, empty ring. Every
// event of a deleted ring was more than W old, so the new ring decides and
// records as the old one would have: the sweep changes no decision, and is
// not modelled.
//
// # Twin and deviations
//
// Its twin is the sliding log. Deviations, each turned off by
// :without=NAME:
//
//   - boundary: a request admitted when the events in [t-W, t] would not
//     leave room for it, that is when the oldest of the last L is exactly
//     W old, is not recorded (off: every admitted request is recorded).
//   - cost: a request is one event whatever its cost (off: it counts its
//     cost; it is admitted iff the cost in (t-W, t] plus its own is at
//     most L, and with boundary recorded iff the cost in [t-W, t] plus its
//     own is).
//
// With both off it decides as log. Refused requests are not counted
// (CountsRejected false); a request the caller records although it was
// refused is recorded. Left out: distributed mode (distributed.go),
// which adds other instances' counts read from storage every few seconds;
// jitter, which changes only the Retry-After header; ipv4_prefix and
// ipv6_prefix, which only choose the key.
//
// Memory: the ring of L time.Time values, 24 bytes each, and the limiter
// (mutex 8, window 8, the ring's slice header 24, cursor 8): 24*L + 48
// bytes per key, allocated whole at the key's first request; the key and
// the Go map's entry are not counted.
type Caddy struct {
	algorithms.DeviationSet
	rule   algorithms.Rule
	events algorithms.KeyEntries // each key's recorded events
}

// The deviations, in the order of the list.
const (
	caddyBoundary = iota
	caddyCost
)

// NewCaddy returns caddy-ratelimit's zone for rule r: max_events L, window
// W.
func NewCaddy(r algorithms.Rule) *Caddy {
	c := &Caddy{rule: r, events: algorithms.NewKeyEntries(algorithms.RingFor(r.L))}
	c.SetDeviations(
		algorithms.Deviation{Name: "boundary", About: "lets a request through without recording it when the oldest of the last L recorded events is exactly W old (the ring refuses it, but its wait is 0, which the handler does not refuse)"},
		algorithms.Deviation{Name: "cost", About: "counts one event per request whatever its cost"},
	)
	return c
}

func (c *Caddy) Name() string         { return "caddy" + c.Suffix() }
func (*Caddy) Twin() string           { return "log" }
func (*Caddy) FixedSize() bool        { return true }
func (*Caddy) CountsRejected() bool   { return false }
func (c *Caddy) Warm(id int32) uint64 { return c.events.Key(id).Warm() }

// Bytes is the ring of L times and the limiter: 24*L + 48.
func (c *Caddy) Bytes(int32) int64 {
	ring, ok := algorithms.MulOK(24, c.rule.L)
	if !ok {
		return 1<<63 - 1
	}
	return algorithms.SatAdd(ring, 48)
}

// Grow makes ids below n valid, each a key never seen.
func (c *Caddy) Grow(n int) { c.events.Grow(n) }

// count is what a request counts: one, or its cost without the cost
// deviation.
func (c *Caddy) count(cost int64) int64 {
	if c.OnAt(caddyCost) {
		return 1
	}
	return cost
}

// sums returns the cost recorded in (t-W, t] and in [t-W, t], after
// dropping what is older.
func (c *Caddy) sums(e algorithms.Entries, t int64) (open, closed int64) {
	e.Expire(t - c.rule.W - 1)
	closed = e.Sum()
	return closed - e.SumThrough(t-c.rule.W), closed
}

// Decide admits iff the cost in (t-W, t] leaves room for the request's:
// When() <= 0.
func (c *Caddy) Decide(id int32, t, cost int64) bool {
	open, _ := c.sums(c.events.Key(id), t)
	n := c.count(cost)
	return n <= c.rule.L && open <= c.rule.L-n
}

// Record writes the request, unless (with boundary) it was admitted only
// because an event exactly W old no longer counts: the ring refused it
// (allowed() was false) and wrote nothing.
func (c *Caddy) Record(id int32, t, cost int64) {
	e := c.events.Key(id)
	n := c.count(cost)
	if c.OnAt(caddyBoundary) {
		open, closed := c.sums(e, t)
		L := c.rule.L
		if n <= L && open <= L-n && closed > L-n {
			return
		}
	}
	e.Add(t, n)
}

// Idle: no event is in [t-W, t] (one at t-W may still keep the request at
// t from being recorded).
func (c *Caddy) Idle(id int32, t int64) bool {
	e := c.events.Key(id)
	e.Expire(t - c.rule.W - 1)
	return e.Len() == 0
}

func (c *Caddy) Release(id int32) { c.events.Key(id).Drop() }
