package distributed

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"ratebench/algorithms"
	"ratebench/internal/firstseen"
	"ratebench/internal/mix"
	"ratebench/internal/request"
)

// alg is the algorithm a Sim runs.
type alg int

const (
	algLog     alg = iota
	algCounter     // counter, counter-lt and counter-floor
	algFixed
	algBuckets
)

// Sim replays a trace through one simulated deployment (see the package doc
// for the model) and compares it with the exact central log. Feed it the
// trace with Add, then call Result. A Sim is not safe for concurrent use; to
// use several cores, split the keys among Sims and merge their Results with
// summary.MergeDistributedResults.
type Sim struct {
	cfg     Config
	spec    string // canonical algorithm name
	alg     alg
	rule    algorithms.Rule
	skews   []int64 // node j's clock offset
	skewMin int64   // the smallest offset: the clock furthest behind
	central bool    // Sync == 0
	nb      int64   // N of buckets:N

	// The window algorithms decide as their in-process limiters do, from the
	// counts a node sees (which these limiters do not keep): one is set.
	counter *algorithms.Counter
	fixed   *algorithms.Fixed
	buckets *algorithms.Buckets

	ids  map[string]int32
	keys []keyState
	win  []windowKey // window algorithms, by key id
	logs []logKey    // log, by key id
	ref  *algorithms.Log

	r counts

	// onDecide, if set (tests), is called after each decision: the key id,
	// the true time, the cost, the node, and the deployment's and the
	// reference's decisions.
	onDecide func(id int32, t, cost int64, node int, admit, ref bool)
}

// keyState is what the Sim keeps of one key apart from the algorithm's state.
type keyState struct {
	hash     uint64 // mix.Mix64(FNV-1a-64(key))
	n        uint64 // requests of the key so far: the index of the next one
	last     int64  // true time of its last request
	interval int64  // sync interval of its last request (Sync > 0)
	burst    algorithms.WindowSum
	peak     int64 // the largest burst.Sum() so far
}

// counts are the Result's counters.
type counts struct {
	requests, admitted, refAdmitted, over, under int64
	burst                                        int64
}

// New returns a Sim of the deployment c.
func New(c Config) (*Sim, error) {
	spec, err := c.check()
	if err != nil {
		return nil, err
	}
	s := &Sim{cfg: c, spec: spec, rule: c.Rule, skews: c.Skews(), central: c.Sync == 0,
		ids: map[string]int32{}, ref: algorithms.NewLog(c.Rule)}
	s.cfg.Spec = spec
	s.skewMin = s.skews[0]
	for _, k := range s.skews {
		s.skewMin = min(s.skewMin, k)
	}
	switch spec {
	case "log":
		s.alg = algLog
	case "counter":
		s.alg, s.counter = algCounter, algorithms.NewCounter(c.Rule)
	case "counter-lt":
		s.alg, s.counter = algCounter, algorithms.NewCounterLT(c.Rule)
	case "counter-floor":
		s.alg, s.counter = algCounter, algorithms.NewCounterFloor(c.Rule)
	case "fixed":
		s.alg, s.fixed = algFixed, algorithms.NewFixed(c.Rule)
	default: // buckets:N, checked
		s.alg = algBuckets
		s.nb, _ = strconv.ParseInt(strings.TrimPrefix(spec, "buckets:"), 10, 64)
		if s.buckets, err = algorithms.NewBuckets(c.Rule, s.nb); err != nil {
			return nil, fmt.Errorf("distributed: %w", err)
		}
	}
	return s, nil
}

// Config returns the Sim's configuration (its Spec canonical).
func (s *Sim) Config() Config { return s.cfg }

// Add replays one request: key at true time t (ns, >= 0) of the given cost.
// Requests of one key must come in non-decreasing time; keys may be
// interleaved in any order.
func (s *Sim) Add(key []byte, t, cost int64) error {
	return firstseen.Add(s.ids, key, func(id int32) error { return s.AddID(id, key, t, cost) })
}

// AddID is Add for a caller that interns the keys itself: id is key's dense
// id in order of first appearance, so that a key never seen has the next
// one (the number of keys seen so far). key is read at a key's first
// request only (and in errors). A Sim is fed by Add or by AddID, not both.
func (s *Sim) AddID(id int32, key []byte, t, cost int64) error {
	if err := request.CheckKeyed(key, id, len(s.keys), t, cost); err != nil {
		return fmt.Errorf("distributed: %w", err)
	}
	ok := int(id) < len(s.keys)
	if !ok {
		s.intern(key)
	}
	k := &s.keys[id]
	if ok && t < k.last {
		return fmt.Errorf("distributed: key %q: time goes back from %d to %d", key, k.last, t)
	}

	// The sync: a request in a later interval than the key's previous one
	// sees everything recorded before its interval.
	if !s.central {
		iv := t / s.cfg.Sync
		if ok && iv > k.interval {
			s.commit(id)
		}
		k.interval = iv
	}
	k.last = t
	node := s.route(k)
	k.n++

	admit := s.decide(id, node, t, cost)
	ref := s.ref.Decide(id, t, cost)
	if ref || s.cfg.CountAll {
		s.ref.Record(id, t, cost)
	}
	s.tally(k, t, cost, admit, ref)
	if s.onDecide != nil {
		s.onDecide(id, t, cost, node, admit, ref)
	}
	return nil
}

// decide returns whether node admits key id's request at true time t on
// its own clock, reading what it sees of the key's records, and records
// the request if it admits it (or counts all).
func (s *Sim) decide(id int32, node int, t, cost int64) bool {
	// Forget what no node can read any more: every future clock is at least
	// that of the node furthest behind now.
	low := clock(t, s.skewMin)
	tp := clock(t, s.skews[node])
	var admit bool
	switch s.alg {
	case algLog:
		l := &s.logs[id]
		l.expire(low - s.rule.W)
		admit = cost <= s.rule.L-l.visible(int32(node), tp, s.rule.W)
		if admit || s.cfg.CountAll {
			l.record(int32(node), tp, cost, s.central)
		}
	case algBuckets:
		wk := &s.win[id]
		lowS, _ := s.buckets.SubWindow(low)
		wk.prune(lowS - s.nb)
		sw, rem := s.buckets.SubWindow(tp)
		admit = s.decideBuckets(wk, int32(node), sw, rem, cost)
		if admit || s.cfg.CountAll {
			wk.record(int32(node), sw, cost, s.central)
		}
	default:
		wk := &s.win[id]
		wk.prune(low/s.rule.W - 1)
		admit = s.decideWindow(wk, int32(node), tp, cost)
		if admit || s.cfg.CountAll {
			wk.record(int32(node), tp/s.rule.W, cost, s.central)
		}
	}
	return admit
}

// tally counts a request of key k at t, admitted by the deployment or not
// and by the reference, and the burst it brings the key to.
func (s *Sim) tally(k *keyState, t, cost int64, admit, ref bool) {
	s.r.requests++
	if ref {
		s.r.refAdmitted++
	}
	if admit {
		s.r.admitted++
		if !ref {
			s.r.over++
		}
		b := &k.burst
		b.Expire(t - s.rule.W)
		b.Add(t, cost)
		k.peak = max(k.peak, b.Sum())
		s.r.burst = max(s.r.burst, k.peak)
	} else if ref {
		s.r.under++
	}
}

// commit folds key id's uncommitted records into the shared store.
func (s *Sim) commit(id int32) {
	if s.alg == algLog {
		s.logs[id].commit()
	} else {
		s.win[id].commit()
	}
}

// clock returns a node's clock at true time t: t + skew, clamped at 0 and
// saturating at the largest int64.
func clock(t, skew int64) int64 {
	c := t + skew
	switch {
	case skew > 0 && c < t:
		return math.MaxInt64
	case c < 0:
		return 0
	}
	return c
}

// route returns the node of key k's next request (index k.n).
func (s *Sim) route(k *keyState) int {
	n := uint64(s.cfg.Nodes)
	if n == 1 {
		return 0
	}
	switch s.cfg.Route {
	case Hash:
		return int(k.hash % n)
	case RoundRobin:
		return int((k.hash%n + k.n%n) % n)
	}
	var p rand.PCG
	p.Seed(mix.Mix64(s.cfg.Seed^k.hash), mix.Mix64(k.hash+mix.Mix64(k.n)))
	return int(mix.Uniform(&p, n))
}

// intern gives key the next dense id.
func (s *Sim) intern(key []byte) int32 {
	if len(s.keys) >= math.MaxInt32 {
		panic("distributed: more than 2^31-1 keys")
	}
	id := int32(len(s.keys))
	h := fnv.New64a()
	h.Write(key)
	s.keys = append(s.keys, keyState{hash: mix.Mix64(h.Sum64())})
	if s.alg == algLog {
		s.logs = append(s.logs, logKey{})
	} else {
		s.win = append(s.win, windowKey{})
	}
	s.ref.Grow(len(s.keys))
	return id
}
