package compare

import (
	"math/rand/v2"
	"slices"
	"testing"

	"ratebench/algorithms"
	"ratebench/summary"
)

// The memory series and peak total of a candidate of fixed size, recomputed from its
// definition by brute force on small random traces: in each window [a,
// a+W) of the rule, its bytes times the keys with a request there or whose
// state at a is not the initial one, where a key's state is taken to be
// initial when no request at a decides otherwise on it than on a key never
// seen (each key's history replayed afresh into a new limiter for every
// probe). The engine's figures, from its windows and idle tests, must agree
// in both modes, and under count all.
func TestPeakTotalByItsDefinition(t *testing.T) {
	t.Parallel()
	rule := mustRule(t, "3/10s")
	algs := []string{"counter", "fixed", "token", "gcra", "buckets:3", "leaky"}
	type setting struct {
		count Count
		mode  Mode
	}
	for seed := range uint64(8) {
		reqs := refusingTrace(seed, 50, 4, rule)
		for _, st := range []setting{{CountAccepted, Independent}, {CountAccepted, Shadow}, {CountAll, Independent}} {
			cfg := Config{Rules: []algorithms.Rule{rule}, Algorithms: algs, Modes: []Mode{st.mode}, Counts: []Count{st.count}}
			s := replay(t, cfg, reqs)
			for _, alg := range algs {
				r := findRun(t, s, string(st.mode), alg)
				first, want := definedMemory(t, alg, rule, st.count, st.mode, reqs)
				if r.Timeline.WidthNS != rule.W || r.Timeline.First != first {
					t.Fatalf("timeline of bins %d ns from bin %d: want the rule's windows from %d", r.Timeline.WidthNS, r.Timeline.First, first)
				}
				if peak := slices.Max(want); peak == 0 || r.Memory.PeakTotal != peak || !slices.Equal(r.Timeline.Memory, summary.TrimZeros(want)) {
					t.Errorf("seed %d, count %s, %s, %s: memory %v, peak total %d B; by the definition %v, %d B", seed, st.count, st.mode, alg, r.Timeline.Memory, r.Memory.PeakTotal, want, peak)
				}
			}
		}
	}
}

// refusingTrace returns n requests of keys keys, each key's in time order,
// a few per window of rule and of costs from 1 to L+1: many windows hold
// only requests that are refused, and one costing more than L always is.
func refusingTrace(seed uint64, n, keys int, rule algorithms.Rule) []rq {
	rng := rand.New(rand.NewPCG(seed, 7))
	last := make([]int64, keys)
	out := make([]rq, n)
	for i := range out {
		k := rng.IntN(keys)
		last[k] += rng.Int64N(rule.W)
		out[i] = rq{string(rune('a' + k)), last[k], 1 + rng.Int64N(rule.L+1)}
	}
	return out
}

// definedMemory returns the index of the first window of rule from the
// trace's first request to its last, and in each, alg's bytes per key
// times the keys it holds state for there (see
// TestPeakTotalByItsDefinition).
func definedMemory(t *testing.T, alg string, rule algorithms.Rule, count Count, mode Mode, reqs []rq) (int64, []int64) {
	t.Helper()
	byKey := map[string][]rq{}
	first, last := reqs[0].t, reqs[0].t
	for _, q := range reqs {
		byKey[q.key] = append(byKey[q.key], q)
		first, last = min(first, q.t), max(last, q.t)
	}
	size := mustLimiter(t, alg, rule).Bytes(0)
	var series []int64
	for a := first / rule.W * rule.W; a <= last; a += rule.W {
		var held int64
		for _, kr := range byKey {
			var before []rq
			inWindow := false
			for _, q := range kr {
				if q.t < a {
					before = append(before, q)
				}
				inWindow = inWindow || q.t >= a && q.t < a+rule.W
			}
			if inWindow || len(before) > 0 && !decidesAsNew(t, alg, rule, count, mode, before, a) {
				held++
			}
		}
		series = append(series, held*size)
	}
	return first / rule.W, series
}

// decidesAsNew reports whether a key that sent hist decides at a as a key
// never seen on every probe: one request of cost c, for each c up to 2L,
// and a run of 2L+2 requests of cost 1, each recorded when admitted.
func decidesAsNew(t *testing.T, alg string, rule algorithms.Rule, count Count, mode Mode, hist []rq, a int64) bool {
	t.Helper()
	replayed := func() algorithms.Limiter {
		lim := mustLimiter(t, alg, rule)
		ref := algorithms.NewLog(rule)
		lim.Grow(1)
		ref.Grow(1)
		for _, q := range hist {
			logAdmits := ref.Decide(0, q.t, q.cost)
			if logAdmits || count == CountAll {
				ref.Record(0, q.t, q.cost)
			}
			if records(lim.Decide(0, q.t, q.cost), logAdmits, recordsAll(lim, count), mode) {
				lim.Record(0, q.t, q.cost)
			}
		}
		return lim
	}
	fresh := func() algorithms.Limiter {
		lim := mustLimiter(t, alg, rule)
		lim.Grow(1)
		return lim
	}
	for c := int64(1); c <= 2*rule.L; c++ {
		if replayed().Decide(0, a, c) != fresh().Decide(0, a, c) {
			return false
		}
	}
	old, nw := replayed(), fresh()
	for range 2*rule.L + 2 {
		x, y := old.Decide(0, a, 1), nw.Decide(0, a, 1)
		if x != y {
			return false
		}
		if x {
			old.Record(0, a, 1)
			nw.Record(0, a, 1)
		}
	}
	return true
}
