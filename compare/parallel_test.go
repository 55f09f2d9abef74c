package compare

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"ratebench/algorithms"
	"ratebench/summary"
	"ratebench/traces"
)

// csvTrace renders requests as a CSV trace in trace order.
func csvTrace(reqs []rq) string {
	var b strings.Builder
	b.WriteString("ts,key,cost\n")
	for _, q := range reqs {
		fmt.Fprintf(&b, "%d,%s,%d\n", q.t, q.key, q.cost)
	}
	return b.String()
}

// replayCSV replays a CSV trace through Replay, as the command does.
func replayCSV(t *testing.T, cfg Config, csv string) (*summary.Summary, error) {
	t.Helper()
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	r, err := traces.NewCSVReader(strings.NewReader(csv), "t.csv", traces.Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = e.Replay(context.Background(), r)
	return e.Summary(summary.TraceInfo{Path: "t.csv", Format: "csv"}), err
}

func marshal(t *testing.T, s *summary.Summary) []byte {
	t.Helper()
	b, err := s.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// fullConfig runs every default algorithm, both modes, both count
// policies and two rules, so that every metric is exercised.
func fullConfig(t *testing.T) Config {
	return Config{Rules: []algorithms.Rule{mustRule(t, "5/30s"), mustRule(t, "3/7s")}, Counts: []Count{CountAccepted, CountAll}, TopKeys: 5}
}

// A parallel replay gives the single replay's summary byte for byte,
// whatever the number of workers, through Add and through Replay.
func TestParallelReplayIsIdentical(t *testing.T) {
	t.Parallel()
	reqs := randomTrace(7, 20000, 300, 30*sec)
	csv := csvTrace(reqs)
	cfg := fullConfig(t)
	one, err := replayCSV(t, cfg, csv)
	if err != nil {
		t.Fatal(err)
	}
	want := marshal(t, one)
	cfg1 := cfg
	wantAdd := marshal(t, replay(t, cfg1, reqs))
	if one.Runs[1].Disagree == 0 || one.Runs[1].Timeline.Memory == nil {
		t.Fatal("the trace should make the counter disagree and sample memory")
	}
	for _, w := range []int{2, 3, 8} {
		cfg.Workers = w
		got, err := replayCSV(t, cfg, csv)
		if err != nil {
			t.Fatal(err)
		}
		if g := marshal(t, got); !bytes.Equal(g, want) {
			t.Errorf("%d workers: summary differs from one worker's\n%s", w, firstDiff(g, want))
		}
		if g := marshal(t, replay(t, cfg, reqs)); !bytes.Equal(g, wantAdd) {
			t.Errorf("%d workers through Add: summary differs\n%s", w, firstDiff(g, wantAdd))
		}
	}
}

// Shards replayed apart and merged give the whole replay's summary byte
// for byte, also after a round trip through summary.json.
func TestShardsMergeToTheWhole(t *testing.T) {
	t.Parallel()
	reqs := randomTrace(11, 20000, 300, 30*sec)
	csv := csvTrace(reqs)
	cfg := fullConfig(t)
	whole, err := replayCSV(t, cfg, csv)
	if err != nil {
		t.Fatal(err)
	}
	want := marshal(t, whole)
	if whole.Trace.RecordsRead != int64(len(reqs)) || whole.Trace.Requests != int64(len(reqs)) {
		t.Fatalf("the whole replay read %d records of %d requests, want %d", whole.Trace.RecordsRead, whole.Trace.Requests, len(reqs))
	}
	for _, n := range []int{1, 2, 5} {
		var parts []*summary.Summary
		var requests int64
		for i := range n {
			c := cfg
			c.Shard = &summary.Shard{Index: i, Count: n}
			c.Workers = 1 + i%2
			s, err := replayCSV(t, c, csv)
			if err != nil {
				t.Fatal(err)
			}
			if s.Shard == nil || *s.Shard != *c.Shard {
				t.Fatalf("shard %v: summary says %v", c.Shard, s.Shard)
			}
			requests += s.Trace.Requests
			if s.Trace.RecordsRead != int64(len(reqs)) || s.Schema != summary.SchemaV1_6 {
				t.Errorf("shard %v: read %d records (schema %s), want every one of the trace's %d", c.Shard, s.Trace.RecordsRead, s.Schema, len(reqs))
			}
			back, err := summary.ReadSummary(bytes.NewReader(marshal(t, s)))
			if err != nil {
				t.Fatal(err)
			}
			parts = append(parts, back)
		}
		if requests != whole.Trace.Requests {
			t.Errorf("%d shards hold %d requests, want %d: shards overlap or miss keys", n, requests, whole.Trace.Requests)
		}
		merged, err := summary.Merge(parts)
		if err != nil {
			t.Fatal(err)
		}
		if g := marshal(t, merged); !bytes.Equal(g, want) {
			t.Errorf("%d shards merged differ from the whole\n%s", n, firstDiff(g, want))
		}
		if n > 1 {
			if _, err := summary.Merge(parts[1:]); err == nil || !strings.Contains(err.Error(), "missing") {
				t.Errorf("merging without shard 0: %v, want a missing shard", err)
			}
			if _, err := summary.Merge(append(parts, parts[0])); err == nil || !strings.Contains(err.Error(), "twice") {
				t.Errorf("merging shard 0 twice: %v", err)
			}
			other := *parts[1]
			other.Trace.RecordsRead--
			if _, err := summary.Merge(append([]*summary.Summary{parts[0], &other}, parts[2:]...)); err == nil || !strings.Contains(err.Error(), "records") {
				t.Errorf("merging a shard that read fewer records: %v", err)
			}
		}
	}
}

// Merge refuses summaries of different experiments.
func TestMergeRefusesOtherConfigs(t *testing.T) {
	t.Parallel()
	reqs := randomTrace(3, 500, 20, 30*sec)
	a := replay(t, Config{TopKeys: 3}, reqs)
	b := replay(t, Config{TopKeys: 4}, reqs)
	if _, err := summary.Merge([]*summary.Summary{a, b}); err == nil {
		t.Error("merged summaries of different configurations")
	}
}

// Merge quotes the trace paths it reads from the summaries when they differ.
func TestMergeQuotesTracePaths(t *testing.T) {
	t.Parallel()
	reqs := randomTrace(3, 100, 5, 30*sec)
	a := replay(t, Config{TopKeys: 3}, reqs)
	b := replay(t, Config{TopKeys: 3}, reqs)
	a.Trace.Path, b.Trace.Path = "a\x1b[2J.csv", "b\xff.csv"
	_, err := summary.MergeDisjoint([]*summary.Summary{a, b}) // two whole replays: past Merge's own check

	if want := `merge: part 1 replayed "b\xff.csv", part 0 "a\x1b[2J.csv"`; err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
	b.Trace.Path = a.Trace.Path
	b.Runs[1].Algorithm = "x\x1b[2J"
	_, err = summary.MergeDisjoint([]*summary.Summary{a, b})
	if err == nil || strings.Contains(err.Error(), "\x1b") || !strings.Contains(err.Error(), `is "x\x1b[2J `) {
		t.Errorf("another run: %q", err)
	}
}

// A parallel replay reports the error a single pass meets first, with its
// line.
func TestParallelReplayReportsTheFirstError(t *testing.T) {
	t.Parallel()
	reqs := randomTrace(5, 3000, 50, 30*sec)
	// Two keys go back in time: the earlier one in the trace must be named.
	bad := append([]rq(nil), reqs...)
	bad[2000].t = 0
	bad[2500].t = 0
	csv := csvTrace(bad)
	_, want := replayCSV(t, Config{}, csv)
	if want == nil || !strings.Contains(want.Error(), "t.csv:2002:") {
		t.Fatalf("one worker: %v, want an error at t.csv:2002", want)
	}
	for _, w := range []int{2, 4} {
		if _, err := replayCSV(t, Config{Workers: w}, csv); err == nil || err.Error() != want.Error() {
			t.Errorf("%d workers: %v\nwant %v", w, err, want)
		}
	}
}

// logSizeAt is the analytic size at x of a log that recorded reqs, one
// key's: its entries in (x-w, x] (8 bytes, 16 with a cost other than 1)
// and 8 bytes for their sum, 0 when it holds none.
func logSizeAt(reqs []rq, x, w int64) int64 {
	var size int64
	for _, q := range reqs {
		if q.t > x-w && q.t <= x {
			size += 8
			if q.cost != 1 {
				size += 8
			}
		}
	}
	if size > 0 {
		size += 8
	}
	return size
}

// windowPeak is the most key's log (its requests reqs, all recorded) holds
// at any instant of [a, a+w): at a, or just after one of its requests
// there, as it only decays in between.
func windowPeak(reqs []rq, a, w int64) int64 {
	peak := logSizeAt(reqs, a, w)
	for _, q := range reqs {
		if q.t >= a && q.t < a+w {
			peak = max(peak, logSizeAt(reqs, q.t, w))
		}
	}
	return peak
}

// The log's memory series is, per bin, the largest over its windows of
// the sum over keys of the most each key's exact log held at any instant
// of the window, checked against a direct count.
func TestMemorySeriesIsTheExactWindow(t *testing.T) {
	t.Parallel()
	reqs := randomTrace(9, 5000, 40, 10*sec)
	cfg := Config{Rules: []algorithms.Rule{mustRule(t, "1000/10s")}, Algorithms: []string{"counter"}, Modes: []Mode{Independent}}
	s := replay(t, cfg, reqs) // L is large: the log admits everything
	log := findRun(t, s, "independent", "log")
	if log.Admitted != int64(len(reqs)) {
		t.Fatalf("log admitted %d of %d", log.Admitted, len(reqs))
	}
	byKey := map[string][]rq{}
	for _, q := range reqs {
		byKey[q.key] = append(byKey[q.key], q)
	}
	tl := log.Timeline
	w := 10 * sec
	var peak int64
	for i := range tl.Requests {
		var want int64
		for a := (tl.First + int64(i)) * tl.WidthNS; a < (tl.First+int64(i)+1)*tl.WidthNS; a += w {
			var sum int64
			for _, kr := range byKey {
				sum += windowPeak(kr, a, w)
			}
			want = max(want, sum)
		}
		var got int64
		if i < len(tl.Memory) {
			got = tl.Memory[i]
		}
		if got != want {
			t.Errorf("bin %d: %d bytes, want %d", i, got, want)
		}
		peak = max(peak, want)
	}
	if len(tl.Memory) == 0 || log.Memory.PeakTotal != peak || log.Memory.Windows != nil {
		t.Errorf("peak total %d over %d bins, want %d; windows %v", log.Memory.PeakTotal, len(tl.Memory), peak, log.Memory.Windows)
	}
	c := findRun(t, s, "independent", "counter")
	for i, m := range c.Timeline.Memory {
		if m%24 != 0 {
			t.Errorf("counter memory %d at end %d is not a multiple of its 24 bytes per key", m, i)
		}
	}
}

func firstDiff(a, b []byte) string {
	la, lb := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			return fmt.Sprintf("line %d:\n got %s\nwant %s", i+1, la[i], lb[i])
		}
	}
	return fmt.Sprintf("lengths %d and %d", len(la), len(lb))
}

// A candidate's memory series counts, in each window, the keys with a
// request there or whose state is not back to its initial value at its
// start, not only the keys with a request: a counter holds its previous
// window's count for a window more, a token bucket of B = 50 taking 20
// tokens holds state for the four minutes it takes to refill, gcra's
// arrival time passes a minute after its burst, and a fixed window drops
// its count as its window ends. Key a sends 20 requests at 1 s, key b one
// at 330 s; rule 5/1m, so bins are the windows.
func TestMemoryHeldUntilStateIsInitial(t *testing.T) {
	t.Parallel()
	var reqs []rq
	for range 20 {
		reqs = append(reqs, rq{"a", 1 * sec, 1})
	}
	reqs = append(reqs, rq{"b", 330 * sec, 1})
	cfg := Config{Rules: []algorithms.Rule{mustRule(t, "5/1m")}, Algorithms: []string{"counter", "fixed", "token:B=50", "gcra"}, Modes: []Mode{Independent}}
	s := replay(t, cfg, reqs)
	for alg, want := range map[string][]int64{
		"log":        {48, 48, 0, 0, 0, 16}, // a's 5 admitted entries and sum, still in the window at 60 s; b's
		"counter":    {24, 24, 0, 0, 0, 24},
		"fixed":      {16, 0, 0, 0, 0, 16},
		"token:B=50": {16, 16, 16, 16, 16, 16}, // full again at 241 s; b's token is back at 342 s
		"gcra":       {8, 8, 0, 0, 0, 8},       // B = 5 taken at 1 s: its arrival time is 61 s
	} {
		r := findRun(t, s, "independent", alg)
		if r.Timeline.First != 0 || r.Timeline.WidthNS != 60*sec {
			t.Fatalf("%s: timeline from bin %d of %d ns", alg, r.Timeline.First, r.Timeline.WidthNS)
		}
		if !slices.Equal(r.Timeline.Memory, want) {
			t.Errorf("%s: memory series %v, want %v", alg, r.Timeline.Memory, want)
		}
		if p := slices.Max(append([]int64{0}, want...)); r.Memory.PeakTotal != p {
			t.Errorf("%s: peak total %d, want %d", alg, r.Memory.PeakTotal, p)
		}
	}
}

// sparseTrace is in time order across keys: each key sends bursts of up to
// twelve requests, then stays away for a few windows, so that state
// outlives the window in some algorithms and not in others.
func sparseTrace(seed uint64, keys int, w int64) []rq {
	rng := rand.New(rand.NewPCG(seed, seed+2))
	var out []rq
	for k := range keys {
		t := rng.Int64N(int64(keys) * w)
		for range 3 + rng.IntN(5) {
			for range 1 + rng.IntN(12) {
				t += rng.Int64N(w / 20)
				out = append(out, rq{fmt.Sprintf("k%02d", k), t, 1 + int64(rng.IntN(6)/5)})
			}
			t += int64(rng.ExpFloat64() * float64(3*w))
		}
	}
	slices.SortStableFunc(out, func(a, b rq) int { return cmp.Compare(a.t, b.t) })
	return out
}

// Every candidate's memory series is, per bin, the largest over its
// windows of its size times the keys with a request in the window or
// whose state at its start is not the initial one, counted directly: each
// key's requests before that instant replayed on a fresh limiter under the
// run's policy, then its idle test. The figure merges exactly across
// shards and workers, though a bucket's state outlives its key's last
// request (and a shard's), and releasing keys changes nothing.
func TestMemoryHeldIsTheDirectCount(t *testing.T) {
	t.Parallel()
	rule := mustRule(t, "5/10s")
	reqs := sparseTrace(5, 60, rule.W)
	cfg := Config{Rules: []algorithms.Rule{rule}, Counts: []Count{CountAccepted, CountAll}, TopKeys: 3,
		Algorithms: []string{"counter", "counter-lt", "fixed", "buckets:3", "token:B=20", "gcra", "leaky:B=3", "xrate"}}
	whole := replay(t, cfg, reqs)
	byKey := map[string][]rq{}
	for _, q := range reqs {
		byKey[q.key] = append(byKey[q.key], q)
	}
	longer := 0 // samples where a candidate holds more keys than have a request in the window
	for _, r := range whole.Runs {
		if r.Algorithm == "log" {
			continue
		}
		size := mustLimiter(t, r.Algorithm, rule).Bytes(0)
		tl := r.Timeline
		for i := range tl.Requests {
			var want int64
			for a := (tl.First + int64(i)) * tl.WidthNS; a < (tl.First+int64(i)+1)*tl.WidthNS; a += rule.W {
				var held, active int64
				for _, kr := range byKey {
					lim, ref := mustLimiter(t, r.Algorithm, rule), algorithms.NewLog(rule)
					lim.Grow(1)
					ref.Grow(1)
					seen, request := false, false
					for _, q := range kr {
						if q.t >= a {
							request = q.t < a+rule.W
							break
						}
						seen = true
						admit, logAdmits := lim.Decide(0, q.t, q.cost), ref.Decide(0, q.t, q.cost)
						if logAdmits || r.Count == "all" {
							ref.Record(0, q.t, q.cost)
						}
						switch {
						case r.Count == "all" && lim.CountsRejected(), r.Mode == "shadow" && logAdmits, r.Mode == "independent" && admit:
							lim.Record(0, q.t, q.cost)
						}
					}
					if request || seen && !lim.(algorithms.Releaser).Idle(0, a) {
						held++
					}
					if request {
						active++
					}
				}
				want = max(want, size*held)
				if held > active {
					longer++
				}
			}
			var got int64
			if i < len(tl.Memory) {
				got = tl.Memory[i]
			}
			if got != want {
				t.Errorf("%s %s %s: bin %d: %d bytes, want %d", r.Count, r.Mode, r.Algorithm, i, got, want)
			}
		}
	}
	if longer < 20 {
		t.Errorf("only %d samples where state outlives the window: the trace does not exercise it", longer)
	}
	want := marshal(t, whole)
	for _, n := range []int{2, 3} {
		var parts []*summary.Summary
		for i := range n {
			c := cfg
			c.Shard, c.Workers = &summary.Shard{Index: i, Count: n}, 2
			parts = append(parts, replay(t, c, reqs))
		}
		merged, err := summary.Merge(parts)
		if err != nil {
			t.Fatal(err)
		}
		if g := marshal(t, merged); !bytes.Equal(g, want) {
			t.Errorf("%d shards of 2 workers merged differ from the whole\n%s", n, firstDiff(g, want))
		}
	}
	e := fed(t, withMinSweep(cfg, 4), reqs)
	if e.workers[0].rel.released < 30 {
		t.Fatalf("%d keys released: the test does not exercise release", e.workers[0].rel.released)
	}
	if g := marshal(t, e.Summary(summary.TraceInfo{Path: "test", Format: "memory"})); !bytes.Equal(g, want) {
		t.Errorf("releasing idle keys changed the summary\n%s", firstDiff(g, want))
	}
}

func mustLimiter(t *testing.T, spec string, r algorithms.Rule) algorithms.Limiter {
	t.Helper()
	l, err := algorithms.New(spec, r)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// A reader stopped by its cancel (a signal while it waits for input that
// does not come) ends the replay as interrupted, with a partial summary of
// what was replayed, in one pass or across workers.
func TestReplayOfACancelledReader(t *testing.T) {
	t.Parallel()
	for _, w := range []int{1, 3} {
		pr, pw := io.Pipe()
		go pw.Write([]byte("ts,key\n1,a\n2,b\n3,a\n")) // then nothing, and no end
		ctx, cancel := context.WithCancel(context.Background())
		r, err := traces.NewCSVReader(pr, "t.csv", traces.Options{Cancel: ctx.Done()})
		if err != nil {
			t.Fatal(err)
		}
		e, err := New(Config{Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		time.AfterFunc(50*time.Millisecond, cancel)
		if err := e.Replay(ctx, r); err != ErrInterrupted {
			t.Fatalf("%d workers: %v", w, err)
		}
		if s := e.Summary(summary.TraceInfo{Path: "t.csv"}); !s.Partial || s.Trace.Requests != 3 {
			t.Errorf("%d workers: partial %v, %d requests", w, s.Partial, s.Trace.Requests)
		}
	}
}
