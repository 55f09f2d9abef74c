package clients

import (
	"container/heap"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"

	"ratebench/algorithms"
	"ratebench/internal/firstseen"
	"ratebench/internal/mix"
	"ratebench/internal/request"
	"ratebench/summary"
)

// Sim replays one trace through one algorithm under one rule with clients
// that retry by one Policy (see the package doc for the model). Feed it the
// trace with Add, then call Finish and Result. A Sim is not safe for
// concurrent use; to use several cores, split the keys among Sims and merge
// their Results with summary.MergeClientsResults.
type Sim struct {
	spec   string // canonical algorithm name
	rule   algorithms.Rule
	policy Policy
	seed   uint64

	lim  algorithms.Limiter      // the closed loop: sees originals and retries
	ra   algorithms.RetryAfterer // lim's, if it has one (honor)
	base algorithms.Limiter      // the open-loop baseline: sees the trace alone

	ids  map[string]int32
	keys []keyState
	seq  uint64 // scheduling order of retries, to break ties in send time

	r   counts
	tts summary.Durations // time to success of the admitted originals

	// onRetry, if set (tests), is called when a retry is scheduled: the
	// refused attempt a, the exact earliest admission time r (honor; else
	// 0) and when the retry is sent.
	onRetry func(id int32, a retry, r, next int64)
}

// keyState is one key's client side.
type keyState struct {
	last    int64    // time of its last trace request
	pending retries  // its scheduled retries, by (at, seq)
	rng     rand.PCG // backoff jitter, seeded from the seed and the key's bytes
}

// retry is a scheduled re-send of an original.
type retry struct {
	at   int64  // when it is sent
	orig int64  // arrival of the original (its first attempt)
	cost int64  //
	n    int32  // 1 for the first retry
	seq  uint64 // scheduling order
}

// counts are the Result's counters.
type counts struct {
	requests, sent, retries        int64
	rejections, rejectionsOriginal int64
	baselineRejections             int64
	retried, firstRetryAdmitted    int64
	gaveUp, gaveUpNoRetryAfter     int64
	pending                        int64
	admitted, admittedFirstTry     int64
}

// New returns a Sim of the algorithm named by spec (as algorithms.New reads
// it) under rule, with clients retrying by policy p. seed seeds the backoff
// jitter (and is reported whatever the policy).
func New(spec string, rule algorithms.Rule, p Policy, seed uint64) (*Sim, error) {
	if err := p.check(); err != nil {
		return nil, err
	}
	lim, err := algorithms.New(spec, rule)
	if err != nil {
		return nil, err
	}
	base, err := algorithms.New(spec, rule)
	if err != nil {
		return nil, err
	}
	s := &Sim{spec: lim.Name(), rule: rule, policy: p.withDefaults(), seed: seed,
		lim: lim, base: base, ids: map[string]int32{}}
	s.ra, _ = lim.(algorithms.RetryAfterer)
	return s, nil
}

// Add replays one request of the trace: the first attempt of a client's
// request of the given cost by key at time t (ns, >= 0). Before it, every
// retry of the key due at or before t is sent. Requests of one key must come
// in non-decreasing time; keys may be interleaved in any order.
func (s *Sim) Add(key []byte, t, cost int64) error {
	return firstseen.Add(s.ids, key, func(id int32) error { return s.AddID(id, key, t, cost) })
}

// AddID is Add for a caller that interns the keys itself: id is key's dense
// id in order of first appearance, so that a key never seen has the next
// one (the number of keys seen so far). key is read at a key's first
// request only (and in errors). A Sim is fed by Add or by AddID, not both.
func (s *Sim) AddID(id int32, key []byte, t, cost int64) error {
	if err := request.CheckKeyed(key, id, len(s.keys), t, cost); err != nil {
		return fmt.Errorf("clients: %w", err)
	}
	if int(id) == len(s.keys) {
		s.intern(key)
	} else if t < s.keys[id].last {
		return fmt.Errorf("clients: key %q: time goes back from %d to %d", key, s.keys[id].last, t)
	}
	s.keys[id].last = t
	s.drain(id, t)
	if s.base.Decide(id, t, cost) {
		s.base.Record(id, t, cost)
	} else {
		s.r.baselineRejections++
	}
	s.r.requests++
	s.r.pending++
	s.attempt(id, retry{at: t, orig: t, cost: cost})
	return nil
}

// intern gives key the next dense id.
func (s *Sim) intern(key []byte) int32 {
	if len(s.keys) >= math.MaxInt32 {
		panic("clients: more than 2^31-1 keys")
	}
	id := int32(len(s.keys))
	s.keys = append(s.keys, keyState{})
	if s.policy.Kind == Backoff {
		h := fnv.New64a()
		h.Write(key)
		k := h.Sum64()
		s.keys[id].rng.Seed(mix.Mix64(s.seed^mix.Mix64(k)), mix.Mix64(k^0x9e3779b97f4a7c15))
	}
	s.lim.Grow(len(s.keys))
	s.base.Grow(len(s.keys))
	return id
}

// Finish sends every pending retry of every key, and the retries they
// cause, until none is left: the clients see the end of their retries.
// The trace may go on afterwards (Add), though that is rarely meaningful.
func (s *Sim) Finish() {
	for id := range s.keys {
		s.drain(int32(id), math.MaxInt64)
	}
}

// drain sends the retries of key id due at or before t, in order.
func (s *Sim) drain(id int32, t int64) {
	for len(s.keys[id].pending) > 0 && s.keys[id].pending[0].at <= t {
		s.attempt(id, s.pop(id))
	}
}

// attempt sends one attempt (the original when a.n == 0) to the limiter
// and, when it is refused, schedules its retry or gives up.
func (s *Sim) attempt(id int32, a retry) {
	s.r.sent++
	if a.n > 0 {
		s.r.retries++
	}
	if s.lim.Decide(id, a.at, a.cost) {
		s.lim.Record(id, a.at, a.cost)
		s.r.pending--
		s.r.admitted++
		switch a.n {
		case 0:
			s.r.admittedFirstTry++
		case 1:
			s.r.firstRetryAdmitted++
		}
		s.tts.Add(a.at - a.orig)
		return
	}
	s.r.rejections++
	if a.n == 0 {
		s.r.rejectionsOriginal++
	}
	if int(a.n) >= s.policy.Max {
		s.giveUp()
		return
	}
	next, hint, ok := s.next(id, a)
	if !ok {
		s.giveUp()
		if s.policy.Kind == Honor {
			s.r.gaveUpNoRetryAfter++
		}
		return
	}
	if s.onRetry != nil {
		s.onRetry(id, a, hint, next)
	}
	if a.n == 0 {
		s.r.retried++
	}
	s.seq++
	s.push(id, retry{at: next, orig: a.orig, cost: a.cost, n: a.n + 1, seq: s.seq})
}

func (s *Sim) giveUp() {
	s.r.pending--
	s.r.gaveUp++
}

// next returns when the client re-sends attempt a, refused at a.at, and
// under honor the exact earliest admission time r it was told (rounded up
// to the policy's unit); ok is false when it cannot (honor without a
// Retry-After, or a time past the largest int64).
func (s *Sim) next(id int32, a retry) (next, r int64, ok bool) {
	p := &s.policy
	var wait int64
	switch p.Kind {
	case Immediate:
		wait = p.Gap
	case Backoff:
		span := p.Cap
		if k := int(a.n); k < 63 && p.Base <= p.Cap>>k {
			span = p.Base << k
		}
		wait = int64(mix.Uniform(&s.keys[id].rng, uint64(span)))
	case Honor:
		if s.ra == nil {
			return 0, 0, false
		}
		if r, ok = s.ra.RetryAfter(id, a.at, a.cost); !ok {
			return 0, 0, false
		}
		if p.Round == DefaultRound {
			wait, ok = algorithms.MulOK(algorithms.RoundUpSeconds(a.at, r), DefaultRound)
		} else if r > a.at {
			wait, ok = algorithms.MulOK((r-a.at-1)/p.Round+1, p.Round)
		}
		if !ok {
			return 0, 0, false
		}
	}
	if a.at > math.MaxInt64-wait {
		return 0, 0, false
	}
	return a.at + wait, r, true
}

// before orders retries by send time, then by scheduling order.
func before(a, b retry) bool {
	return a.at < b.at || (a.at == b.at && a.seq < b.seq)
}

// retries is a key's min-heap of retries by before, for container/heap: a
// key has a few pending at a time, which internal/minheap pushes and pops
// less than 2× faster (1.2× to 1.9× over runs of its BenchmarkClients).
type retries []retry

func (h retries) Len() int           { return len(h) }
func (h retries) Less(i, j int) bool { return before(h[i], h[j]) }
func (h retries) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *retries) Push(x any)        { *h = append(*h, x.(retry)) }
func (h *retries) Pop() any {
	old := *h
	r := old[len(old)-1]
	*h = old[:len(old)-1]
	return r
}

// push adds r to key id's heap of pending retries.
func (s *Sim) push(id int32, r retry) { heap.Push(&s.keys[id].pending, r) }

// pop removes and returns key id's earliest pending retry.
func (s *Sim) pop(id int32) retry { return heap.Pop(&s.keys[id].pending).(retry) }
