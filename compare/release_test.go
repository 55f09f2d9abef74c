package compare

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"ratebench/internal/hugemem"
	"runtime"
	"strings"
	"testing"

	"ratebench/algorithms"
	"ratebench/compare/clients"
	"ratebench/summary"
)

// churnTrace is in time order across keys: clients come in cohorts, stay a
// while and leave; now and then an old client comes back.
func churnTrace(seed uint64, n int) []rq {
	rng := rand.New(rand.NewPCG(seed, 99))
	out := make([]rq, n)
	var t int64 = 1_000 * sec
	for i := range out {
		t += int64(rng.ExpFloat64() * float64(sec) / 20)
		k := i/400*40 + rng.IntN(50)
		if rng.IntN(40) == 0 && k > 200 {
			k = rng.IntN(k - 100) // a client long gone comes back
		}
		c := int64(1)
		if rng.IntN(10) == 0 {
			c = 2
		}
		out[i] = rq{fmt.Sprintf("client-%d", k), t, c}
	}
	return out
}

// withMinSweep returns cfg with the sweep threshold set to n.
func withMinSweep(cfg Config, n int) Config {
	cfg.tuning.minSweep = n
	return cfg
}

// Releasing idle keys changes nothing in the summary: every count, top
// key, burst and memory figure is what a replay that keeps every key
// gives, also for keys that come back after their release.
func TestReleaseChangesNothing(t *testing.T) {
	t.Parallel()
	reqs := churnTrace(1, 40000)
	cfg := fullConfig(t)
	cfg.Algorithms = []string{"counter", "counter-lt", "counter-floor", "fixed", "token", "gcra", "buckets:3", "leaky", "xrate"}
	keep := replay(t, withMinSweep(cfg, 1<<62), reqs)
	e := fed(t, withMinSweep(cfg, 32), reqs)
	rel := e.Summary(summary.TraceInfo{Path: "test", Format: "memory"})
	if e.workers[0].rel.released < 500 || len(e.workers[0].rel.full) == 0 {
		t.Fatalf("%d keys released, %d kept full records: the test did not exercise release", e.workers[0].rel.released, len(e.workers[0].rel.full))
	}
	returned := int64(len(e.workers[0].rel.index)) // distinct keys ever released
	if e.workers[0].rel.released <= returned {
		t.Fatalf("no released key came back (%d releases of %d keys)", e.workers[0].rel.released, returned)
	}
	if g, w := marshal(t, rel), marshal(t, keep); !bytes.Equal(g, w) {
		t.Errorf("releasing idle keys changed the summary\n%s", firstDiff(g, w))
	}
	if e.workers[0].keys.size() > 2000 {
		t.Errorf("%d ids for %d keys: released ids are not reused", e.workers[0].keys.size(), keep.Trace.Keys)
	}
}

// Ten times the keys, each seen once, and the state stays that of the
// keys active in the window.
func TestReleaseBoundsLiveKeys(t *testing.T) {
	t.Parallel()
	for _, n := range []int{20000, 200000} {
		e, err := New(withMinSweep(Config{Algorithms: []string{"counter", "token"}, Modes: []Mode{Independent}}, 1024))
		if err != nil {
			t.Fatal(err)
		}
		for i := range n { // 1,000 new keys a second; 5/30s: a key is idle 60 s after its request
			if err := e.Add([]byte(fmt.Sprint("k", i)), int64(i)*sec/1000, 1); err != nil {
				t.Fatal(err)
			}
		}
		if e.workers[0].keys.seen != n {
			t.Errorf("%d keys counted, want %d", e.workers[0].keys.seen, n)
		}
		// 60 s of keys (60,000) are not idle yet; a sweep runs when the
		// live keys double.
		if e.workers[0].rel.peakLive > 2*62000 || e.workers[0].keys.size() > 2*62000 {
			t.Errorf("%d keys: %d live at most, %d ids: not bounded by the active keys", n, e.workers[0].rel.peakLive, e.workers[0].keys.size())
		}
	}
}

// A released key that comes back earlier than its release, in a trace
// that is not in time order across keys, is an error, not a wrong
// decision.
func TestReleasedKeyBackInThePastIsAnError(t *testing.T) {
	t.Parallel()
	e, err := New(withMinSweep(Config{Algorithms: []string{"counter"}, Modes: []Mode{Independent}}, 2))
	if err != nil {
		t.Fatal(err)
	}
	add := func(k string, at int64) error { return e.Add([]byte(k), at, 1) }
	for i, q := range []rq{{"a", 1 * sec, 1}, {"b", 2 * sec, 1}, {"c", 500 * sec, 1}, {"d", 501 * sec, 1}} {
		if err := add(q.key, q.t); err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
	}
	if e.workers[0].rel.released == 0 {
		t.Fatal("nothing released")
	}
	if err := add("e", 100*sec); err != nil { // out of order across keys: allowed
		t.Fatal(err)
	}
	err = add("a", 200*sec) // a was released at 501 s
	if err == nil || !strings.Contains(err.Error(), "released") {
		t.Errorf("a back at 200 s after its release at 501 s: %v", err)
	}
}

// Releasing idle keys changes nothing in the closed-loop and distributed
// simulations either: a key that comes back after its release is the
// same key to them (its simulation id stays with it).
func TestReleaseKeepsSimulationKeys(t *testing.T) {
	t.Parallel()
	pol, err := clients.ParsePolicy("backoff")
	if err != nil {
		t.Fatal(err)
	}
	reqs := churnTrace(5, 30000)
	cfg := Config{Rules: []algorithms.Rule{mustRule(t, "5/30s")}, Algorithms: []string{"counter", "token"},
		Modes: []Mode{Independent}, Clients: []clients.Policy{pol}, ClientSeed: 7,
		Deployment: &summary.Deployment{Nodes: []int{3}, Route: "random", Sync: []int64{sec}, Skew: []int64{0}, Seed: 3}}
	want := marshal(t, replay(t, withMinSweep(cfg, 1<<62), reqs))
	e := fed(t, withMinSweep(cfg, 32), reqs)
	got := marshal(t, e.Summary(summary.TraceInfo{Path: "test", Format: "memory"}))
	if r := e.workers[0].rel; r.released <= int64(len(r.index)) {
		t.Fatalf("%d releases of %d keys: no released key came back", r.released, len(r.index))
	}
	if !bytes.Equal(got, want) {
		t.Errorf("releasing idle keys changed the simulations\n%s", firstDiff(got, want))
	}
}

// A key's over- and under-admissions and burst that outgrow its 32-bit
// row are kept exactly in the wide table: with the narrow limit lowered to
// 3, the summary (counts, top keys, keys disagreeing, bursts) is what the
// 32-bit rows give, with and without the release of idle keys, whose kept
// counts go back to the row or the wide table when they return.
func TestWideCountsChangeNothing(t *testing.T) {
	t.Parallel()
	reqs := churnTrace(2, 40000)
	cfg := fullConfig(t)
	cfg.Algorithms = []string{"counter", "counter-lt", "fixed", "token", "buckets:3", "upstash"}
	for _, sweep := range []int{1 << 62, 32} {
		want := replay(t, withMinSweep(cfg, sweep), reqs)
		narrow := withMinSweep(cfg, sweep)
		narrow.tuning.narrowMax = 3
		e := fed(t, narrow, reqs)
		got := e.Summary(summary.TraceInfo{Path: "test", Format: "memory"})
		fields := map[wideField]bool{}
		for c := range e.workers[0].rows.wide {
			fields[c.field] = true
		}
		if !fields[wideOver] || !fields[wideUnder] || !fields[widePeak] {
			t.Fatalf("sweep %d: wide table holds fields %v, want an over, an under and a burst past the narrow limit: the test lacks power", sweep, fields)
		}
		if g, w := marshal(t, got), marshal(t, want); !bytes.Equal(g, w) {
			t.Errorf("sweep %d: counts past the narrow limit changed the summary\n%s", sweep, firstDiff(g, w))
		}
	}
}

// A block whose chunks come from an arena of huge pages (past the first
// bytes of the Go heap) replays as one all on the heap, byte for byte.
func TestBlockArenaChangesNothing(t *testing.T) {
	t.Parallel()
	reqs := churnTrace(3, 40000)
	cfg := fullConfig(t)
	heap := cfg
	heap.tuning.heapBlock = 1 << 62
	want := replay(t, heap, reqs)
	arena := cfg
	arena.tuning.heapBlock = 1
	e := fed(t, arena, reqs)
	got := e.Summary(summary.TraceInfo{Path: "test", Format: "memory"})
	if runtime.GOOS == "linux" && e.workers[0].blockMem.arena.Mapped() == 0 {
		t.Fatalf("no chunk came from the arena: the test lacks power")
	}
	if g, w := marshal(t, got), marshal(t, want); !bytes.Equal(g, w) {
		t.Errorf("the block in an arena changed the summary\n%s", firstDiff(g, w))
	}
}

// Release unmaps the arenas of the engine's blocks at once, and drops its
// workers: the summary taken before it stands, and nothing is left mapped.
func TestReleaseUnmapsTheBlocks(t *testing.T) {
	t.Parallel()
	cfg := fullConfig(t)
	cfg.tuning.heapBlock = 1
	e := fed(t, cfg, churnTrace(5, 20000))
	e.Summary(summary.TraceInfo{Path: "test", Format: "memory"})
	var arenas []*hugemem.Arena
	for _, w := range e.workers {
		if w != nil {
			arenas = append(arenas, w.blockMem.arena)
		}
	}
	if runtime.GOOS == "linux" && (len(arenas) == 0 || arenas[0].Mapped() == 0) {
		t.Fatalf("no chunk came from an arena: the test lacks power")
	}
	e.Release()
	for i, a := range arenas {
		if a.Mapped() != 0 {
			t.Errorf("worker %d's arena holds %d bytes mapped after Release", i, a.Mapped())
		}
	}
	if e.workers != nil {
		t.Errorf("the engine keeps %d workers after Release", len(e.workers))
	}
}
