package compare

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"ratebench/algorithms"
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
func replayCSV(t *testing.T, cfg Config, csv string) (*Summary, error) {
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
	return e.Summary(TraceInfo{Path: "t.csv", Format: "csv"}), err
}

func marshal(t *testing.T, s *Summary) []byte {
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
	reqs := randomTrace(11, 20000, 300, 30*sec)
	csv := csvTrace(reqs)
	cfg := fullConfig(t)
	whole, err := replayCSV(t, cfg, csv)
	if err != nil {
		t.Fatal(err)
	}
	want := marshal(t, whole)
	for _, n := range []int{1, 2, 5} {
		var parts []*Summary
		var requests int64
		for i := range n {
			c := cfg
			c.Shard = &Shard{Index: i, Count: n}
			c.Workers = 1 + i%2
			s, err := replayCSV(t, c, csv)
			if err != nil {
				t.Fatal(err)
			}
			if s.Shard == nil || *s.Shard != *c.Shard {
				t.Fatalf("shard %v: summary says %v", c.Shard, s.Shard)
			}
			requests += s.Trace.Requests
			back, err := ReadSummary(bytes.NewReader(marshal(t, s)))
			if err != nil {
				t.Fatal(err)
			}
			parts = append(parts, back)
		}
		if requests != whole.Trace.Requests {
			t.Errorf("%d shards hold %d requests, want %d: shards overlap or miss keys", n, requests, whole.Trace.Requests)
		}
		merged, err := Merge(parts)
		if err != nil {
			t.Fatal(err)
		}
		if g := marshal(t, merged); !bytes.Equal(g, want) {
			t.Errorf("%d shards merged differ from the whole\n%s", n, firstDiff(g, want))
		}
		if n > 1 {
			if _, err := Merge(parts[1:]); err == nil || !strings.Contains(err.Error(), "missing") {
				t.Errorf("merging without shard 0: %v, want a missing shard", err)
			}
			if _, err := Merge(append(parts, parts[0])); err == nil || !strings.Contains(err.Error(), "twice") {
				t.Errorf("merging shard 0 twice: %v", err)
			}
		}
	}
}

// Merge refuses summaries of different experiments.
func TestMergeRefusesOtherConfigs(t *testing.T) {
	reqs := randomTrace(3, 500, 20, 30*sec)
	a := replay(t, Config{TopKeys: 3}, reqs)
	b := replay(t, Config{TopKeys: 4}, reqs)
	if _, err := Merge([]*Summary{a, b}); err == nil {
		t.Error("merged summaries of different configurations")
	}
}

// Merge quotes the trace paths it reads from the summaries when they differ.
func TestMergeQuotesTracePaths(t *testing.T) {
	reqs := randomTrace(3, 100, 5, 30*sec)
	a := replay(t, Config{TopKeys: 3}, reqs)
	b := replay(t, Config{TopKeys: 3}, reqs)
	a.Trace.Path, b.Trace.Path = "a\x1b[2J.csv", "b\xff.csv"
	_, err := Merge([]*Summary{a, b})
	if want := `merge: part 1 replayed "b\xff.csv", part 0 "a\x1b[2J.csv"`; err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
	b.Trace.Path = a.Trace.Path
	b.Runs[1].Algorithm = "x\x1b[2J"
	_, err = Merge([]*Summary{a, b})
	if err == nil || strings.Contains(err.Error(), "\x1b") || !strings.Contains(err.Error(), `is "x\x1b[2J `) {
		t.Errorf("another run: %q", err)
	}
}

// A parallel replay reports the error a single pass meets first, with its
// line.
func TestParallelReplayReportsTheFirstError(t *testing.T) {
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

// The memory series is, at each edge, the entries of every key's exact
// window there (8 bytes, 16 with a cost other than 1) and 8 bytes per key
// holding any, checked against a direct count.
func TestMemorySeriesIsTheExactWindow(t *testing.T) {
	reqs := randomTrace(9, 5000, 40, 10*sec)
	cfg := Config{Rules: []algorithms.Rule{mustRule(t, "1000/10s")}, Algorithms: []string{"counter"}, Modes: []Mode{Independent}}
	s := replay(t, cfg, reqs) // L is large: the log admits everything
	log := findRun(t, s, "independent", "log")
	if log.Admitted != int64(len(reqs)) {
		t.Fatalf("log admitted %d of %d", log.Admitted, len(reqs))
	}
	tl := log.Timeline
	w := 10 * sec
	var peak int64
	for i, got := range tl.Memory {
		e := (tl.First + int64(i)) * tl.WidthNS
		var want int64
		held := map[string]bool{}
		for _, q := range reqs {
			if q.t > e-w && q.t <= e {
				want += 8
				if q.cost != 1 {
					want += 8
				}
				held[q.key] = true
			}
		}
		want += 8 * int64(len(held))
		if got != want {
			t.Errorf("edge %d: %d bytes, want %d", e, got, want)
		}
		peak = max(peak, want)
	}
	if len(tl.Memory) == 0 || log.Memory.PeakTotal != peak {
		t.Errorf("peak total %d over %d edges, want %d", log.Memory.PeakTotal, len(tl.Memory), peak)
	}
	c := findRun(t, s, "independent", "counter")
	for i, m := range c.Timeline.Memory {
		if m%24 != 0 {
			t.Errorf("counter memory %d at edge %d is not a multiple of its 24 bytes per key", m, i)
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

// A reader stopped by its cancel (a signal while it waits for input that
// does not come) ends the replay as interrupted, with a partial summary of
// what was replayed, in one pass or across workers.
func TestReplayOfACancelledReader(t *testing.T) {
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
		if s := e.Summary(TraceInfo{Path: "t.csv"}); !s.Partial || s.Trace.Requests != 3 {
			t.Errorf("%d workers: partial %v, %d requests", w, s.Partial, s.Trace.Requests)
		}
	}
}
