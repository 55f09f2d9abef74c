package products

import "ratebench/algorithms"

func init() {
	algorithms.Register(algorithms.Kind{Spec: "caddy", About: "mholt/caddy-ratelimit (Caddy's rate_limit handler, events L, window W): a ring of the last L admitted events' times per key, admitting while the oldest is more than W old, so an event exactly W old still counts; one event per request whatever its cost",
		Build: algorithms.NoParams(func(r algorithms.Rule) algorithms.Limiter { return NewCaddy(r) })})
}

// Caddy is the rate_limit HTTP handler of github.com/mholt/caddy-ratelimit
// (commit 5625512f24f6f59d6f64fb3aafe5eecff0b286db, after v0.1.0), without
// its distributed mode, modelled from ringbuffer.go, ratelimit.go and
// handler.go (line numbers below are that commit's). Model only: it is not
// run here (the ring buffer is an unexported type of a package that
// imports Caddy's server).
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
// and a cursor at the oldest (ringbuffer.go:26-48). A request is allowed
// iff now().Sub(ring[cursor]) > window; then now() is written at the
// cursor, which moves on (allowed and reserve, lines 66-94; When, 53-60,
// called from ServeHTTP, handler.go:220). The oldest of the last L
// admitted events is more than W old iff fewer than L admitted events lie
// in [t-W, t]: the window includes its far end, where the exact log's
// (t-W, t] does not. A refused request writes nothing. A request is one
// event whatever its cost.
//
// The clock is time.Now() (the package's now), nanoseconds, read twice: to
// decide and again to record, a few nanoseconds later in a server; the
// model reads the request's time for both.
//
// # Idle keys
//
// A sweeper, every sweep_interval (default 1m, handler.go:186-190, 353-382),
// deletes a key whose newest event is more than window old
// (ratelimit.go:143-174); its next request makes a new, empty ring. Every
// event of a deleted ring was more than W old, so the new ring decides as
// the old one would have: the sweep changes no decision, and is not
// modelled.
//
// # Twin and deviations
//
// Its twin is the sliding log. Deviations, each turned off by
// :without=NAME:
//
//   - closed: an event exactly W old still counts: the window is
//     [t-W, t] (off: (t-W, t], the log's).
//   - cost: a request is one event whatever its cost (off: it counts its
//     cost, and is admitted iff the cost in the window plus its own is at
//     most L).
//
// With both off it decides as log. Refused requests are not counted
// (CountsRejected false). Left out: distributed mode (distributed.go),
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
	rule algorithms.Rule
	keys []algorithms.WindowSum
}

// The deviations, in the order of the list.
const (
	caddyClosed = iota
	caddyCost
)

// NewCaddy returns caddy-ratelimit's zone for rule r: max_events L, window
// W.
func NewCaddy(r algorithms.Rule) *Caddy {
	c := &Caddy{rule: r}
	c.SetDeviations(
		algorithms.Deviation{Name: "closed", About: "counts an event exactly W old: admits iff fewer than L admitted events lie in [t-W, t]"},
		algorithms.Deviation{Name: "cost", About: "counts one event per request whatever its cost"},
	)
	return c
}

func (c *Caddy) Name() string         { return "caddy" + c.Suffix() }
func (*Caddy) Twin() string           { return "log" }
func (*Caddy) FixedSize() bool        { return true }
func (*Caddy) CountsRejected() bool   { return false }
func (c *Caddy) Warm(id int32) uint64 { return c.keys[id].Warm() }

// Bytes is the ring of L times and the limiter: 24*L + 48.
func (c *Caddy) Bytes(int32) int64 {
	ring, ok := algorithms.MulOK(24, c.rule.L)
	if !ok {
		return 1<<63 - 1
	}
	return algorithms.SatAdd(ring, 48)
}

// Grow makes ids below n valid, each a key never seen.
func (c *Caddy) Grow(n int) {
	if n <= len(c.keys) {
		return
	}
	if n > cap(c.keys) {
		keys := make([]algorithms.WindowSum, len(c.keys), max(n, 2*cap(c.keys)))
		copy(keys, c.keys)
		c.keys = keys
	}
	c.keys = c.keys[:n]
}

// cutoff is the latest time of an event that no longer counts at t: t-W-1
// with closed (an event at t-W counts), else t-W.
func (c *Caddy) cutoff(t int64) int64 {
	if c.OnAt(caddyClosed) {
		return t - c.rule.W - 1
	}
	return t - c.rule.W
}

// events is what a request counts: one, or its cost without the cost
// deviation.
func (c *Caddy) events(cost int64) int64 {
	if c.OnAt(caddyCost) {
		return 1
	}
	return cost
}

func (c *Caddy) Decide(id int32, t, cost int64) bool {
	w := &c.keys[id]
	w.Expire(c.cutoff(t))
	n := c.events(cost)
	return n <= c.rule.L && w.Sum() <= c.rule.L-n
}

func (c *Caddy) Record(id int32, t, cost int64) {
	c.keys[id].Add(t, c.events(cost))
}

// Idle: no event still counts at t.
func (c *Caddy) Idle(id int32, t int64) bool {
	w := &c.keys[id]
	w.Expire(c.cutoff(t))
	return w.Len() == 0
}

func (c *Caddy) Release(id int32) { c.keys[id] = algorithms.WindowSum{} }
