package compare

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"ratebench/algorithms"
	"ratebench/summary"
)

// bruteBinding is a rule's binding computed the slow way: per request, its
// key's cost in (t-W, t] over every earlier request and itself, and the
// log's decision from the key's admitted (or, under count all, all)
// requests in the window.
func bruteBinding(reqs []rq, rule algorithms.Rule, c Count) summary.Binding {
	type past struct {
		t, cost int64
		admit   bool
	}
	hist := map[string][]past{}
	bins := map[int64]int64{}
	refusedKeys := map[string]bool{}
	b := summary.Binding{Rule: rule.String(), Count: string(c)}
	for _, q := range reqs {
		var all, counted int64
		for _, p := range hist[q.key] {
			if p.t > q.t-rule.W {
				all += p.cost
				if p.admit || c == CountAll {
					counted += p.cost
				}
			}
		}
		use := all + q.cost
		admit := counted+q.cost <= rule.L
		hist[q.key] = append(hist[q.key], past{q.t, q.cost, admit})
		bins[summary.UseBinTop(use)]++
		b.Requests++
		if !admit {
			b.LogRefused++
			refusedKeys[q.key] = true
		}
		if use > b.PeakUse || (use == b.PeakUse && q.key < b.PeakKey) {
			b.PeakUse, b.PeakKey = use, q.key
		}
	}
	b.KeysRefused = int64(len(refusedKeys))
	b.UseBins = summary.UseBinsOf(bins)
	if err := b.SetTighter(); err != nil {
		panic(err)
	}
	return b
}

// The bindings of a replay are those computed the slow way, under both
// count policies (count accepted then reads the offered use from the
// count-all reference) and under count accepted alone (which keeps the
// log's refusals in the window), with idle keys released and back, on
// several workers and merged from shards; layered rules have none.
func TestBindingsAreBruteForce(t *testing.T) {
	t.Parallel()
	for _, counts := range [][]Count{{CountAccepted, CountAll}, {CountAccepted}} {
		t.Run(fmt.Sprint(counts), func(t *testing.T) { checkBindingsBruteForce(t, counts) })
	}
}

func checkBindingsBruteForce(t *testing.T, counts []Count) {
	reqs := churnTrace(3, 20000)
	for i := range reqs { // times the CSV reader takes for ns
		reqs[i].t += 1700000000e9
	}
	rules := []algorithms.Rule{mustRule(t, "5/30s"), mustRule(t, "40/1m")}
	cfg := Config{Rules: rules, Counts: counts, Algorithms: []string{"log", "counter", "token"}}
	var want []summary.Binding
	for _, r := range rules {
		for _, c := range cfg.Counts {
			want = append(want, bruteBinding(reqs, r, c))
		}
	}
	check := func(name string, s *summary.Summary) {
		t.Helper()
		if err := s.Validate(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got, w := fmt.Sprintf("%+v", s.Bindings), fmt.Sprintf("%+v", want); got != w {
			t.Fatalf("%s: bindings\n%s\nwant\n%s", name, got, w)
		}
		for _, b := range s.Bindings {
			for _, r := range s.Runs {
				if r.Algorithm == "log" && r.Rule == b.Rule && r.Count == b.Count && r.Rejected != b.LogRefused {
					t.Errorf("%s: %s count %s: the log's run refuses %d, its binding %d", name, b.Rule, b.Count, r.Rejected, b.LogRefused)
				}
			}
		}
	}
	released := fed(t, withMinSweep(cfg, 32), reqs)
	if released.workers[0].rel.released < 100 {
		t.Fatalf("%d keys released: the test does not exercise release", released.workers[0].rel.released)
	}
	check("one worker, keys released", released.Summary(summary.TraceInfo{Path: "test", Format: "memory"}))
	two := cfg
	two.Workers = 2
	s, err := replayCSV(t, two, csvTrace(reqs))
	if err != nil {
		t.Fatal(err)
	}
	check("two workers", s)
	var parts []*summary.Summary
	for i := range 3 {
		c := cfg
		c.Shard = &summary.Shard{Index: i, Count: 3}
		p, err := replayCSV(t, c, csvTrace(reqs))
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, p)
	}
	merged, err := summary.Merge(parts)
	if err != nil {
		t.Fatal(err)
	}
	check("three shards merged", merged)

	layered := cfg
	layered.Rules, layered.Layered = nil, [][]algorithms.Rule{rules}
	if s := replay(t, layered, reqs[:2000]); len(s.Bindings) != 0 {
		t.Errorf("a layered rule has bindings %+v", s.Bindings)
	}
}

// A tighter limit the binding names is what the log refuses there:
// exactly under count all, at most under count accepted.
func TestTighterLimitIsTheLogsRefusals(t *testing.T) {
	t.Parallel()
	reqs := churnTrace(5, 20000)
	cfg := Config{Rules: []algorithms.Rule{mustRule(t, "100/1m")}, Counts: []Count{CountAccepted, CountAll}, Algorithms: []string{"log"}}
	s := replay(t, cfg, reqs)
	for _, b := range s.Bindings {
		if b.LogRefused != 0 {
			t.Fatalf("%s count %s: the log refuses %d: the rule binds", b.Rule, b.Count, b.LogRefused)
		}
		if len(b.Tighter) < 2 {
			t.Fatalf("%s count %s: tighter limits %+v", b.Rule, b.Count, b.Tighter)
		}
		for _, tl := range b.Tighter {
			r := mustRule(t, tl.Rule)
			again := replay(t, Config{Rules: []algorithms.Rule{r}, Counts: []Count{Count(b.Count)}, Algorithms: []string{"log"}}, reqs)
			got := again.Runs[0].Rejected
			if b.Count == "all" && got != tl.Refused || got > tl.Refused || got == 0 {
				t.Errorf("at %s count %s the log refuses %d; the binding said %d (upper bound %v)", tl.Rule, b.Count, got, tl.Refused, tl.UpperBound)
			}
			if tl.UpperBound != (b.Count == "accepted") {
				t.Errorf("%s count %s: upper bound %v", tl.Rule, b.Count, tl.UpperBound)
			}
		}
		if !slices.IsSortedFunc(b.Tighter, func(x, y summary.TighterLimit) int { return int(y.Limit - x.Limit) }) {
			t.Errorf("tighter limits not from the loosest: %+v", b.Tighter)
		}
	}
}

// The slice's bins are the summary's: every use at or above the exact
// range lands in the bin whose top is summary.UseBinTop, and the bins are
// in increasing order of use.
func TestUseBinsAreTheSummarys(t *testing.T) {
	check := func(u int64) {
		i := useBin(u)
		if i < 0 || useBinTop(i) != summary.UseBinTop(u) {
			t.Fatalf("use %d: bin %d, top %d; want top %d", u, i, useBinTop(i), summary.UseBinTop(u))
		}
		if u > summary.UseExactBelow && useBin(u-1) > i {
			t.Fatalf("uses %d and %d: bins %d and %d out of order", u-1, u, useBin(u-1), i)
		}
	}
	for u := int64(summary.UseExactBelow); u < 1<<18; u++ {
		check(u)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 100_000 {
		check(summary.UseExactBelow + rng.Int64N(math.MaxInt64-summary.UseExactBelow))
	}
	check(math.MaxInt64)
}
