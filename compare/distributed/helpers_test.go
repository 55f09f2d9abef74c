package distributed

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"ratebench/algorithms"
	"ratebench/summary"
)

// req is one trace request.
type req struct {
	key     string
	t, cost int64
}

const (
	ms  = int64(1e6)
	sec = int64(1e9)
)

// specs is every algorithm a Sim runs.
var specs = []string{"log", "counter", "counter-lt", "counter-floor", "fixed", "buckets:3"}

// poisson generates keys Poisson clients over dur ns, key k sending at rate
// (per second) times a factor in [0.5, 1.5) drawn per key, with costs
// uniform in [1, maxCost]; some requests come in same-instant pairs (a
// client's retry at once). The trace is in time order (ties by key, then
// generation order).
func poisson(seed uint64, keys int, dur int64, rate float64, maxCost int64) []req {
	var out []req
	for k := range keys {
		rng := rand.New(rand.NewPCG(seed, uint64(k)))
		name := "key-" + strconv.Itoa(k)
		r := rate * (0.5 + rng.Float64())
		t := 0.0
		for {
			t += rng.ExpFloat64() * 1e9 / r
			if t >= float64(dur) {
				break
			}
			out = append(out, req{name, int64(t), 1 + rng.Int64N(maxCost)})
			if rng.IntN(10) == 0 {
				out = append(out, req{name, int64(t), 1 + rng.Int64N(maxCost)})
			}
		}
	}
	slices.SortStableFunc(out, func(a, b req) int {
		if c := cmp.Compare(a.t, b.t); c != 0 {
			return c
		}
		return cmp.Compare(a.key, b.key)
	})
	return out
}

func newSim(tb testing.TB, c Config) *Sim {
	tb.Helper()
	s, err := New(c)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

func feed(tb testing.TB, s *Sim, trace []req) {
	tb.Helper()
	for _, q := range trace {
		if err := s.Add([]byte(q.key), q.t, q.cost); err != nil {
			tb.Fatal(err)
		}
	}
}

func run(tb testing.TB, c Config, trace []req) summary.DistributedResult {
	tb.Helper()
	s := newSim(tb, c)
	feed(tb, s, trace)
	r := s.Result()
	checkIdentities(tb, r)
	return r
}

// checkIdentities checks the identities every Result satisfies.
func checkIdentities(tb testing.TB, r summary.DistributedResult) {
	tb.Helper()
	if r.Admitted-r.ReferenceAdmitted != r.Over-r.Under || r.Over > r.Admitted || r.Under > r.ReferenceAdmitted ||
		r.ReferenceAdmitted > r.Requests || r.Over < 0 || r.Under < 0 {
		tb.Errorf("identities fail: %+v", r)
	}
}

// samePlain replays trace through the deployment c and, side by side,
// through the plain algorithm (algorithms.New) and the plain log with the
// same counting policy, and fails at the first decision that differs. It
// returns the deployment's Result.
func samePlain(tb testing.TB, c Config, trace []req) summary.DistributedResult {
	tb.Helper()
	s := newSim(tb, c)
	plain, err := algorithms.New(s.spec, c.Rule)
	if err != nil {
		tb.Fatal(err)
	}
	ref := algorithms.NewLog(c.Rule)
	var n int
	var failed bool
	s.onDecide = func(id int32, t, cost int64, node int, admit, refAdmit bool) {
		if int(id) >= n {
			n = int(id) + 1
			plain.Grow(n)
			ref.Grow(n)
		}
		p := plain.Decide(id, t, cost)
		if p || c.CountAll {
			plain.Record(id, t, cost)
		}
		r := ref.Decide(id, t, cost)
		if r || c.CountAll {
			ref.Record(id, t, cost)
		}
		if !failed && (p != admit || r != refAdmit) {
			failed = true
			tb.Errorf("%+v: key %d at %d cost %d node %d: deployment %v plain %v; reference %v plain log %v",
				c, id, t, cost, node, admit, p, refAdmit, r)
		}
	}
	feed(tb, s, trace)
	res := s.Result()
	checkIdentities(tb, res)
	if res.Requests != int64(len(trace)) {
		tb.Errorf("%+v: %d requests, trace has %d", c, res.Requests, len(trace))
	}
	return res
}
