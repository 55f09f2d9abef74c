package distributed

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"ratebench/algorithms"
	"ratebench/summary"
)

var rule5 = algorithms.Rule{L: 5, W: 10 * sec}

// A central store (Sync 0) without skew decides exactly as the plain
// algorithm, for any number of nodes and any route; the log is then the
// reference itself.
func TestCentralIsPlain(t *testing.T) {
	trace := poisson(1, 30, 120*sec, 1.5, 2)
	for _, spec := range specs {
		for _, all := range []bool{false, true} {
			for _, n := range []int{1, 2, 3, 8} {
				for _, route := range Routes {
					c := Config{Spec: spec, Rule: rule5, Nodes: n, Route: route, CountAll: all, Seed: 3}
					r := samePlain(t, c, trace)
					if spec == "log" && (r.Over != 0 || r.Under != 0) {
						t.Errorf("%+v: central log differs from the reference: %+v", c, r)
					}
				}
			}
		}
	}
}

// One node sees all of its own traffic: whatever the sync period it decides
// as the plain algorithm. With evenly spread skew one node has offset 0.
func TestSingleNodeIsPlain(t *testing.T) {
	trace := poisson(2, 30, 120*sec, 1.5, 2)
	for _, spec := range specs {
		for _, sync := range []int64{1 * ms, 100 * ms, sec, 7 * sec, 60 * sec} {
			for _, skew := range []int64{0, 3 * sec} {
				c := Config{Spec: spec, Rule: rule5, Nodes: 1, Route: Random, Sync: sync, Skew: skew, Seed: 4}
				samePlain(t, c, trace)
			}
		}
	}
}

// Hash routing puts each key on one node: without skew the deployment
// decides as the plain algorithm for any N and sync period.
func TestHashIsPlain(t *testing.T) {
	trace := poisson(3, 30, 120*sec, 1.5, 2)
	for _, spec := range specs {
		for _, n := range []int{2, 5, 8} {
			for _, sync := range []int64{100 * ms, 3 * sec, 60 * sec} {
				c := Config{Spec: spec, Rule: rule5, Nodes: n, Route: Hash, Sync: sync, Seed: 5}
				samePlain(t, c, trace)
			}
		}
	}
}

// The random route sends a key's requests to every node, and a longer sync
// period hides more of them: over-admission grows with the period.
func TestOverGrowsWithSync(t *testing.T) {
	rule := algorithms.Rule{L: 100, W: 60 * sec}
	trace := poisson(4, 20, 600*sec, 3, 1) // about 180 per minute against 100
	for _, spec := range []string{"log", "counter"} {
		var prev summary.DistributedResult
		syncs := []int64{0, 100 * ms, sec, 10 * sec, 60 * sec}
		for i, sync := range syncs {
			r := run(t, Config{Spec: spec, Rule: rule, Nodes: 4, Route: Random, Sync: sync, Seed: 6}, trace)
			t.Logf("%s sync %v: over %d under %d admitted %d burst %.2f", spec, float64(sync)/1e9, r.Over, r.Under, r.Admitted, r.BurstRatio)
			if i > 0 && r.Over < prev.Over {
				t.Errorf("%s: over-admission falls from %d at sync %d ns to %d at %d ns", spec, prev.Over, prev.SyncNS, r.Over, sync)
			}
			if i == len(syncs)-1 {
				first := run(t, Config{Spec: spec, Rule: rule, Nodes: 4, Route: Random, Seed: 6}, trace)
				if r.Over <= first.Over {
					t.Errorf("%s: sync %d ns over-admits %d, no more than a central store (%d)", spec, sync, r.Over, first.Over)
				}
				if r.BurstRatio <= 1 {
					t.Errorf("%s: sync %d ns: burst ratio %.3f, want above 1", spec, sync, r.BurstRatio)
				}
			}
			prev = r
		}
	}
}

// Skewed clocks make a central log inexact: a node stamps with its own
// clock, and another node reads those stamps on its.
func TestSkew(t *testing.T) {
	rule := algorithms.Rule{L: 10, W: 10 * sec}
	trace := poisson(5, 20, 300*sec, 2, 1)
	for _, random := range []bool{false, true} {
		c := Config{Spec: "log", Rule: rule, Nodes: 2, Route: Random, Skew: 3 * sec, SkewRandom: random, Seed: 7}
		if r := run(t, c, trace); r.Over+r.Under == 0 {
			t.Errorf("%+v: skewed log decides as the exact log: %+v", c, r)
		}
		c.Skew = 0
		if r := run(t, c, trace); r.Over+r.Under != 0 {
			t.Errorf("%+v: unskewed central log differs from the exact log: %+v", c, r)
		}
	}
}

// A hand-checked sync boundary: the sync at k*D commits what was recorded
// before k*D, not what is recorded at k*D.
func TestSyncBoundary(t *testing.T) {
	c := Config{Spec: "log", Rule: algorithms.Rule{L: 2, W: 60 * sec}, Nodes: 2, Route: RoundRobin, Sync: 10 * sec}
	trace := []req{
		{"x", 0, 1},          // node a: admit
		{"x", 10*sec - 1, 1}, // node b, interval 0: a's is not visible, admit
		{"y", 10*sec - 1, 1}, // node a': admit
		{"x", 10 * sec, 1},   // node a, interval 1: sees both, refuse
		{"y", 10 * sec, 1},   // node b': sees a' (committed), admit
		{"x", 10*sec + 1, 1}, // node b: refuse
		{"y", 10*sec + 1, 1}, // node a': b's at 10s uncommitted: sees 1, admit (over)
		{"y", 20 * sec, 1},   // node b', interval 2: sees 3, refuse
		{"x", 70*sec - 1, 1}, // node a: x's stamps 0 expired, sees 1, admit
	}
	want := []bool{true, true, true, false, true, false, true, false, true}
	s := newSim(t, c)
	var got []bool
	nodes := map[int32][]int{}
	s.onDecide = func(id int32, _, _ int64, node int, admit, _ bool) {
		got = append(got, admit)
		nodes[id] = append(nodes[id], node)
	}
	feed(t, s, trace)
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("request %d %+v: admit %v, want %v", i, trace[i], got[i], want[i])
		}
	}
	for id, ns := range nodes {
		for i := 1; i < len(ns); i++ {
			if ns[i] == ns[i-1] {
				t.Errorf("key %d: round robin sends requests %d and %d to node %d", id, i-1, i, ns[i])
			}
		}
	}
	r := s.Result()
	if r.Admitted != 6 || r.ReferenceAdmitted != 5 || r.Over != 1 || r.Under != 0 || r.BurstMax != 3 {
		t.Errorf("result %+v: want 6 admitted, 5 by the reference, over 1, burst 3", r)
	}
}

// A node counts in the fixed windows of its own clock: with clocks 2 s
// apart, two requests on either side of a true-time boundary fall in
// different windows of the two nodes, whatever their order.
func TestSkewWindows(t *testing.T) {
	for _, skew := range []int64{0, sec} {
		c := Config{Spec: "fixed", Rule: algorithms.Rule{L: 1, W: 60 * sec}, Nodes: 2, Route: RoundRobin, Skew: skew}
		r := run(t, c, []req{{"k", 59500 * ms, 1}, {"k", 59600 * ms, 1}})
		if want := map[bool]int64{false: 0, true: 1}[skew > 0]; r.Over != want {
			t.Errorf("skew %d: over %d, want %d (%+v)", skew, r.Over, want, r)
		}
	}
}

func TestClock(t *testing.T) {
	cases := []struct{ t, skew, want int64 }{
		{5 * sec, -2 * sec, 3 * sec}, {sec, -2 * sec, 0}, {0, 3, 3}, {math.MaxInt64 - 1, 5, math.MaxInt64}, {10, MaxSkew, 10 + MaxSkew},
	}
	for _, c := range cases {
		if got := clock(c.t, c.skew); got != c.want {
			t.Errorf("clock(%d, %d) = %d, want %d", c.t, c.skew, got, c.want)
		}
	}
}

func TestSkews(t *testing.T) {
	cases := []struct {
		n    int
		s    int64
		want []int64
	}{
		{1, 100, []int64{0}},
		{2, 100, []int64{-100, 100}},
		{5, 100, []int64{-100, -50, 0, 50, 100}},
		{4, 10, []int64{-10, -3, 3, 10}},
		{3, MaxSkew, []int64{-MaxSkew, 0, MaxSkew}},
		{4, 0, []int64{0, 0, 0, 0}},
	}
	for _, c := range cases {
		cfg := Config{Nodes: c.n, Skew: c.s}
		if got := cfg.Skews(); !equal(got, c.want) {
			t.Errorf("spread skews N=%d S=%d: %v, want %v", c.n, c.s, got, c.want)
		}
	}
	cfg := Config{Nodes: 64, Skew: 1000, SkewRandom: true, Seed: 9}
	a := cfg.Skews()
	if !equal(a, cfg.Skews()) {
		t.Error("random skews are not deterministic")
	}
	distinct := map[int64]bool{}
	for _, v := range a {
		if v < -1000 || v > 1000 {
			t.Errorf("random skew %d outside [-1000, 1000]", v)
		}
		distinct[v] = true
	}
	if len(distinct) < 32 {
		t.Errorf("64 random skews take only %d values", len(distinct))
	}
	cfg.Seed++
	if equal(a, cfg.Skews()) {
		t.Error("random skews do not depend on the seed")
	}
}

func equal(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// The random route is uniform over the nodes and depends on the seed; the
// round robin visits every node in turn.
func TestRoutes(t *testing.T) {
	const n = 4
	for _, route := range Routes {
		s := newSim(t, Config{Spec: "counter", Rule: rule5, Nodes: n, Route: route, Sync: sec, Seed: 1})
		hits := make([]int, n)
		var seq []int
		s.onDecide = func(id int32, _, _ int64, node int, _, _ bool) {
			hits[node]++
			if id == 0 {
				seq = append(seq, node)
			}
		}
		for i := range 4000 {
			for k := range 2 {
				if err := s.Add([]byte{byte('a' + k)}, int64(i)*ms, 1); err != nil {
					t.Fatal(err)
				}
			}
		}
		switch route {
		case Random:
			for j, h := range hits {
				if h < 1800 || h > 2200 {
					t.Errorf("random: node %d got %d of 8000", j, h)
				}
			}
		case Hash:
			for i := range seq {
				if seq[i] != seq[0] {
					t.Fatalf("hash: key a goes to nodes %d and %d", seq[0], seq[i])
				}
			}
		case RoundRobin:
			for i := range seq {
				if seq[i] != (seq[0]+i)%n {
					t.Fatalf("roundrobin: request %d of key a on node %d after %d", i, seq[i], seq[0])
				}
			}
		}
	}
	seqOf := func(seed uint64) []int {
		s := newSim(t, Config{Spec: "counter", Rule: rule5, Nodes: n, Route: Random, Seed: seed})
		var seq []int
		s.onDecide = func(_ int32, _, _ int64, node int, _, _ bool) { seq = append(seq, node) }
		for i := range 64 {
			s.Add([]byte("k"), int64(i), 1)
		}
		return seq
	}
	a, b := seqOf(1), seqOf(2)
	same := true
	for i := range a {
		same = same && a[i] == b[i]
	}
	if same {
		t.Error("random route does not depend on the seed")
	}
}

// Results do not depend on how keys are interleaved, and MergeResults of
// Sims over a random partition of the keys is, byte for byte, one Sim over
// all of them.
func TestDeterminismAndMerge(t *testing.T) {
	trace := poisson(8, 60, 180*sec, 2, 3)
	rule := algorithms.Rule{L: 8, W: 10 * sec}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, spec := range specs {
		for _, route := range Routes {
			c := Config{Spec: spec, Rule: rule, Nodes: 4, Route: route, Sync: 700 * ms, Skew: 250 * ms, SkewRandom: route == Hash, Seed: 11}
			whole := run(t, c, trace)
			if again := run(t, c, trace); mustJSON(t, again) != mustJSON(t, whole) {
				t.Errorf("%+v: two runs differ", c)
			}
			if whole.Over == 0 || whole.Keys != 60 {
				t.Errorf("%+v: over %d keys %d: the trace does not exercise the deployment", c, whole.Over, whole.Keys)
			}
			parts := 2 + rng.IntN(4)
			sims := make([]*Sim, parts)
			for i := range sims {
				sims[i] = newSim(t, c)
			}
			part := map[string]int{}
			for _, q := range trace {
				p, ok := part[q.key]
				if !ok {
					p = rng.IntN(parts)
					part[q.key] = p
				}
				if err := sims[p].Add([]byte(q.key), q.t, q.cost); err != nil {
					t.Fatal(err)
				}
			}
			var rs []summary.DistributedResult
			for _, s := range sims {
				rs = append(rs, s.Result())
			}
			m, err := summary.MergeDistributedResults(rs)
			if err != nil {
				t.Fatal(err)
			}
			if a, b := mustJSON(t, m), mustJSON(t, whole); a != b {
				t.Errorf("%+v: merge of %d parts\n%s\nwant\n%s", c, parts, a, b)
			}
		}
	}
	r := run(t, Config{Spec: "log", Rule: rule, Nodes: 2, Seed: 1}, trace[:10])
	o := r
	o.Seed++
	if _, err := summary.MergeDistributedResults([]summary.DistributedResult{r, o}); err == nil {
		t.Error("merge of different seeds: no error")
	}
	if _, err := summary.MergeDistributedResults(nil); err == nil {
		t.Error("merge of nothing: no error")
	}
}

func mustJSON(tb testing.TB, v any) string {
	tb.Helper()
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	if err := e.Encode(v); err != nil {
		tb.Fatal(err)
	}
	return b.String()
}

func TestResultJSON(t *testing.T) {
	r := run(t, Config{Spec: "counter", Rule: rule5, Nodes: 3, Route: RoundRobin, Sync: sec, Skew: ms, Seed: 2}, poisson(9, 3, 30*sec, 2, 1))
	js := mustJSON(t, r)
	for _, f := range []string{"algorithm", "rule", "count", "nodes", "route", "sync_ns", "skew_ns", "skew_random", "node_skew_ns", "seed",
		"keys", "requests", "admitted", "reference_admitted", "over", "under", "over_rate", "under_rate", "burst_max", "burst_ratio"} {
		if !strings.Contains(js, `"`+f+`":`) {
			t.Errorf("JSON lacks %q: %s", f, js)
		}
	}
	var back summary.DistributedResult
	if err := json.Unmarshal([]byte(js), &back); err != nil || mustJSON(t, back) != js {
		t.Errorf("JSON does not round-trip: %v\n%s", err, js)
	}
	if !strings.Contains(js, `"rule":"5/10s"`) || !strings.Contains(js, `"route":"roundrobin"`) || !strings.Contains(js, `"node_skew_ns":[-1000000,0,1000000]`) {
		t.Errorf("JSON: %s", js)
	}
}

func TestConfigErrors(t *testing.T) {
	ok := Config{Spec: "counter", Rule: rule5, Nodes: 2}
	cases := []struct {
		mod  func(*Config)
		want string
	}{
		{func(c *Config) { c.Spec = "token" }, "not simulated distributed"},
		{func(c *Config) { c.Spec = "token" }, "not simulated distributed"},
		{func(c *Config) { c.Spec = "buckets:0" }, "buckets:0"},
		{func(c *Config) { c.Spec = "nope" }, "unknown algorithm"},
		{func(c *Config) { c.Nodes = 0 }, "nodes"},
		{func(c *Config) { c.Nodes = MaxNodes + 1 }, "nodes"},
		{func(c *Config) { c.Sync = -1 }, "sync"},
		{func(c *Config) { c.Skew = -1 }, "skew"},
		{func(c *Config) { c.Route = 7 }, "route"},
		{func(c *Config) { c.Rule.W = 0 }, "rule"},
	}
	for _, cs := range cases {
		c := ok
		cs.mod(&c)
		if _, err := New(c); err == nil || !strings.Contains(err.Error(), cs.want) {
			t.Errorf("%+v: error %v, want one with %q", c, err, cs.want)
		}
	}
	if _, err := New(ok); err != nil {
		t.Error(err)
	}
	for _, s := range []string{"random", "hash", "roundrobin"} {
		if r, err := ParseRoute(s); err != nil || r.String() != s {
			t.Errorf("ParseRoute(%q) = %v, %v", s, r, err)
		}
	}
	if _, err := ParseRoute("sticky"); err == nil {
		t.Error("ParseRoute(sticky): no error")
	}
}

func TestAddErrors(t *testing.T) {
	s := newSim(t, Config{Spec: "log", Rule: rule5, Nodes: 2})
	if err := s.Add([]byte("a"), -1, 1); err == nil {
		t.Error("negative time: no error")
	}
	if err := s.Add([]byte("a"), 5, 0); err == nil {
		t.Error("cost 0: no error")
	}
	if err := s.Add([]byte("a"), 5, 1); err != nil {
		t.Fatal(err)
	}
	if err := s.Add([]byte("a"), 4, 1); err == nil || !strings.Contains(err.Error(), "back") {
		t.Errorf("time going back: %v", err)
	}
	if err := s.Add([]byte("b"), 4, 1); err != nil {
		t.Errorf("another key earlier: %v", err)
	}
	if r := s.Result(); r.Requests != 2 || r.Keys != 2 {
		t.Errorf("rejected requests were counted: %+v", r)
	}
}

// The state a key keeps stays bounded on a long hot trace: window counts
// for a few windows, log entries for about a window.
func TestStateBounded(t *testing.T) {
	rule := algorithms.Rule{L: 100, W: 60 * sec}
	trace := poisson(10, 1, 3600*sec, 20, 1)
	for _, spec := range []string{"log", "counter"} {
		c := Config{Spec: spec, Rule: rule, Nodes: 4, Route: Random, Sync: sec, Skew: 2 * sec, Seed: 3}
		s := newSim(t, c)
		var worst int
		s.onDecide = func(id int32, _, _ int64, _ int, _, _ bool) {
			size := 0
			if spec == "log" {
				for _, l := range s.logs[id].nodes {
					size += len(l.st)
				}
			} else {
				size = len(s.win[id].g) + len(s.win[id].p)
			}
			worst = max(worst, size)
		}
		feed(t, s, trace)
		limit := 3 + 3*c.Nodes // windows w-1, w and one more per node's clock
		if spec == "log" {
			limit = 2*c.Nodes*int(rule.L) + 32*c.Nodes // each node's live entries, twice for compaction
		}
		if worst > limit || worst == 0 {
			t.Errorf("%s: a key held %d entries (limit %d) over %d requests", spec, worst, limit, len(trace))
		}
	}
}
