package algorithms

// Delayer is implemented by the limiters that admit a request with a delay
// rather than at once (shapers).
type Delayer interface {
	// Delay returns the delay, in whole nanoseconds rounded up, of the last
	// request recorded for key id: the time from its arrival until it has
	// left the queue (been served in full). It is 0 before the key's first
	// recorded request.
	Delay(id int32) int64
}

// Leaky is the leaky bucket as a queue, a shaper (docs/definitions.md §10): each key has a
// queue of capacity B cost units (default L) that drains one cost unit every
// W/L, continuously. A request is refused if its cost does not fit in the
// queue; otherwise it joins the queue and is served after a delay. It counts
// only what it records, whatever the policy.
//
// # State
//
// The queue is kept as its virtual finishing time F: the time at which
// everything recorded so far has drained, kept exactly as GCRA's TAT (tat):
// W/L is never rounded to whole nanoseconds, and an F beyond the largest
// int64 nanosecond (a backlog near the end of int64 time) is not
// saturated. The level at t is
// Q(t) = max(F-t, 0)*L/W units. A request fits iff Q(t) + cost <= B, that is
// max(F-t, 0)*L <= (B-cost)*W; recording it sets F = max(F, t) + cost*W/L.
//
// # Delay
//
// The delay of an admitted request is the time from its arrival until it
// has left the queue (docs/definitions.md §10): until the queue ahead of it has drained
// and then its own cost units, F - t with F as after the request, rounded
// up to whole nanoseconds. A request arriving at an empty queue still waits
// cost*W/L. (nginx's limit_req delays a request by the excess ahead of it
// divided by the rate, the time until it starts to be served: this delay
// less cost*W/L.)
//
// # Leaky and token admit the same requests
//
// With the same B, Leaky decides exactly as Token and GCRA under every
// recording policy, including shadow mode where it records requests that
// did not fit: Q(t) is Token's deficit B - tokens (and GCRA's
// max(TAT-t, 0)*L/W, with F = TAT), "fits" is Token's tokens >= cost, and
// recording adds cost to Q as Token takes cost tokens. Counting whole units
// (a unit leaves only when fully drained, Q rounded up) would not change
// that either: ceil(Q) + cost <= B iff Q + cost <= B, B and cost being
// integers. What differs is when the admitted requests pass: the token
// bucket lets a burst of B through at once, the queue spreads it out by the
// delays. (A queue that does not count the unit being served, like
// limit_req's burst=N, holds N+1 unit requests: that is leaky:B=N+1.)
//
// Memory: the finishing time, 8 bytes per key, as GCRA's TAT. The delays
// are the server's business (the requests wait there), not the limiter's
// state; Delay's bookkeeping is the harness's.
type Leaky struct {
	rule  Rule
	b     int64
	named bool // B was given explicitly
	st    PerKey[leakyState]
}

// leakyState is one key's queue. The zero value (F = 0, in the past of
// every request) is an empty queue.
type leakyState struct {
	f  TAT   // F, exact as GCRA's TAT, never saturated
	at int64 // arrival time of the last recorded request, for Delay
}

// NewLeaky returns the leaky bucket queue for rule r with capacity b (b <= 0
// means L).
func NewLeaky(r Rule, b int64) *Leaky {
	lk := &Leaky{rule: r, b: b, named: b > 0}
	if b <= 0 {
		lk.b = r.L
	}
	return lk
}

func (lk *Leaky) Name() string {
	if !lk.named {
		return "leaky"
	}
	return "leaky:B=" + itoa(lk.b)
}

func (lk *Leaky) Grow(n int)        { lk.st.Grow(n) }
func (*Leaky) Bytes(int32) int64    { return 8 }
func (*Leaky) FixedSize() bool      { return true }
func (*Leaky) CountsRejected() bool { return false }

// Capacity returns B.
func (lk *Leaky) Capacity() int64 { return lk.b }

// Decide admits iff the request fits in the queue at t:
// max(F-t, 0)*L <= (B-cost)*W.
func (lk *Leaky) Decide(id int32, t, cost int64) bool {
	return cost <= lk.b && lk.st.At(id).f.Fits(t, lk.b-cost, lk.rule)
}

// Record queues the request: F grows by cost*W/L from max(F, t).
func (lk *Leaky) Record(id int32, t, cost int64) {
	s := lk.st.At(id)
	s.at = t
	s.f.Push(t, cost, lk.rule)
}

// Delay returns the delay of the last request recorded for key id: the
// time from its arrival until the queue, which it ends, has drained, F - t
// rounded up.
func (lk *Leaky) Delay(id int32) int64 {
	s := lk.st.At(id)
	if s.f.Due(s.at) {
		return 0
	}
	d := s.f.Ahead(s.at)
	if s.f.R > 0 {
		d = d.AddInt(1)
	}
	if d.Hi != 0 || d.Lo >= 1<<63 {
		return 1<<63 - 1 // beyond 292 years: reported only
	}
	return int64(d.Lo)
}

// Level returns the queue level of key id at t >= its last request, in cost
// units: max(F-t, 0)*L/W. Reported only (float64).
func (lk *Leaky) Level(id int32, t int64) float64 {
	f := &lk.st.At(id).f
	if f.Due(t) {
		return 0
	}
	ns := f.Ahead(t).float() + float64(f.R)/float64(lk.rule.L)
	return ns * float64(lk.rule.L) / float64(lk.rule.W)
}

// RetryAfter returns the earliest time the request fits in the queue (not
// when it would be served: add the delay for that).
func (lk *Leaky) RetryAfter(id int32, t, cost int64) (int64, bool) {
	if cost > lk.b {
		return 0, false
	}
	return lk.st.At(id).f.retryAfter(t, lk.b-cost, lk.rule)
}
