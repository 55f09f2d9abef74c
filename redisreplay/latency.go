package redisreplay

import (
	"math/rand/v2"
	"slices"
	"sync"

	"gonum.org/v1/gonum/stat"
)

// DefaultLatencySamples is the default size of the latency reservoir.
const DefaultLatencySamples = 100_000

// reservoir keeps a uniform sample of at most cap latencies (Vitter's
// algorithm R, seeded, so the sample depends only on the order in which
// latencies arrive) and the exact maximum. While fewer than cap latencies
// have been added, it holds them all and its quantiles are exact. It is
// safe for concurrent use.
type reservoir struct {
	mu   sync.Mutex
	cap  int
	n    int64
	max  int64
	xs   []float64
	rand *rand.Rand
}

func newReservoir(capacity int, seed uint64) *reservoir {
	return &reservoir{cap: capacity, rand: rand.New(rand.NewPCG(seed, 0x7265646973))}
}

func (r *reservoir) add(ns int64) {
	r.mu.Lock()
	r.n++
	r.max = max(r.max, ns)
	if len(r.xs) < r.cap {
		r.xs = append(r.xs, float64(ns))
	} else if i := r.rand.Int64N(r.n); i < int64(r.cap) {
		r.xs[i] = float64(ns)
	}
	r.mu.Unlock()
}

// latency summarizes the reservoir: p50 and p99 are gonum's empirical
// quantiles (stat.Empirical: the smallest sample with at least that
// fraction of the samples at or below it) of the sorted sample.
func (r *reservoir) latency() Latency {
	r.mu.Lock()
	defer r.mu.Unlock()
	l := Latency{Decisions: r.n, Samples: len(r.xs), Exact: int64(len(r.xs)) == r.n, MaxNS: r.max}
	if len(r.xs) == 0 {
		return l
	}
	xs := slices.Clone(r.xs)
	slices.Sort(xs)
	l.P50NS = int64(stat.Quantile(0.5, stat.Empirical, xs, nil))
	l.P99NS = int64(stat.Quantile(0.99, stat.Empirical, xs, nil))
	return l
}
