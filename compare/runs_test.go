package compare

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"ratebench/summary"
	"ratebench/traces"
)

// scanOnly hides every method of a reader but Reader's: a parallel replay
// reads it request by request, into batches.
type scanOnly struct{ traces.Reader }

// parquetTrace writes reqs as a Parquet trace whose key column is
// dictionary encoded, in row groups of groupRows rows (a dictionary each).
func parquetTrace(t *testing.T, reqs []rq, groupRows int64) []byte {
	t.Helper()
	type row struct {
		TS   int64  `parquet:"ts"`
		Key  []byte `parquet:"key,string,dict"`
		Cost int64  `parquet:"cost"`
	}
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[row](&buf, parquet.MaxRowsPerRowGroup(groupRows), parquet.PageBufferSize(4096))
	for _, q := range reqs {
		if _, err := w.Write([]row{{q.t, []byte(q.key), q.cost}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// traceFormat opens a trace of reqs in one format, anew for each replay.
type traceFormat struct {
	name string
	open func(t *testing.T) traces.Reader
}

func traceFormats(t *testing.T, reqs []rq) []traceFormat {
	csv := csvTrace(reqs)
	pq := parquetTrace(t, reqs, 7000)
	return []traceFormat{
		{"csv", func(t *testing.T) traces.Reader {
			r, err := traces.NewCSVReader(strings.NewReader(csv), "t.csv", traces.Options{TSUnit: time.Nanosecond})
			if err != nil {
				t.Fatal(err)
			}
			return r
		}},
		{"parquet", func(t *testing.T) traces.Reader {
			r, err := traces.NewParquetReader(bytes.NewReader(pq), int64(len(pq)), "t.parquet", traces.Options{TSUnit: time.Nanosecond})
			if err != nil {
				t.Fatal(err)
			}
			return r
		}},
	}
}

// replayReader replays r with cfg, returning the engine and its error.
func replayReader(t *testing.T, cfg Config, r traces.Reader) (*Engine, error) {
	t.Helper()
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return e, e.Replay(context.Background(), r)
}

// keyNames returns the names of a worker's keys by id.
func keyNames(w *worker) []string {
	if w == nil {
		return nil
	}
	names := make([]string, w.keys.size())
	for id := range names {
		names[id] = w.keys.name(int32(id))
	}
	return names
}

// A parallel replay that takes a CSV or Parquet trace in runs split by key
// gives every worker the requests, and so the key ids, that batches give
// it, and the same summary, also with keys released and coming back,
// several dictionaries, and a shard.
func TestRunsReplayAsBatches(t *testing.T) {
	t.Parallel()
	reqs := churnTrace(9, 30000)
	base := withMinSweep(fullConfig(t), 32)
	base.Algorithms = []string{"counter", "token"}
	for _, f := range traceFormats(t, reqs) {
		for _, l := range []workerLayout{{"2 workers", 2, nil}, {"3 workers", 3, nil}, {"shard 1 of 2, 2 workers", 2, &summary.Shard{Index: 1, Count: 2}}} {
			cfg := base
			cfg.Workers, cfg.Shard = l.workers, l.shard
			if _, ok := (&Engine{workers: make([]*worker, 2)}).partitioner(f.open(t)); !ok {
				t.Fatalf("%s: the reader does not partition", f.name)
			}
			runs, err := replayReader(t, cfg, f.open(t))
			if err != nil {
				t.Fatalf("%s, %s, runs: %v", f.name, l.name, err)
			}
			batches, err := replayReader(t, cfg, scanOnly{f.open(t)})
			if err != nil {
				t.Fatalf("%s, %s, batches: %v", f.name, l.name, err)
			}
			released := int64(0)
			for i := range runs.workers {
				if got, want := keyNames(runs.workers[i]), keyNames(batches.workers[i]); !slices.Equal(got, want) {
					t.Fatalf("%s, %s: worker %d holds keys %.80q by id, want %.80q", f.name, l.name, i, got, want)
				}
				if w := runs.workers[i]; w != nil {
					released += w.rel.released
				}
			}
			if released < 100 {
				t.Fatalf("%s, %s: %d keys released: the test does not exercise stale entries", f.name, l.name, released)
			}
			info := summary.TraceInfo{Path: "test", Format: "memory"}
			if got, want := marshal(t, runs.Summary(info)), marshal(t, batches.Summary(info)); !bytes.Equal(got, want) {
				t.Errorf("%s, %s: the summary differs\n%s", f.name, l.name, firstDiff(got, want))
			}
		}
	}
}

// A replay in runs reports the error a single pass meets first, naming
// its file and line or row, as batches and one worker do: the first of two
// keys going back in time, a bad record after or before it.
func TestRunsReportTheFirstError(t *testing.T) {
	t.Parallel()
	reqs := randomTrace(15, 20000, 300, 30*sec)
	// goBack makes the first request from the from-th on of a key of
	// worker a (of 2), and one 3000 requests later of worker b, go back in
	// time, and returns the trace and the first one's index.
	goBack := func(from, a, b int) ([]rq, int) {
		out := slices.Clone(reqs)
		first := -1
		for i := from; ; i++ {
			if w := workerOf(traces.KeyHash([]byte(reqs[i].key)), 2); first < 0 && w == a {
				first = i
				i += 3000
			} else if first >= 0 && w == b {
				out[first].t, out[i].t = 0, 0
				return out, first
			}
		}
	}
	back, at := goBack(12000, 0, 1)
	back10, at10 := goBack(12000, 1, 0)
	for _, tc := range []struct {
		name string
		csv  string
		want string // a piece of the error
	}{
		{"time goes back", csvTrace(back), fmt.Sprintf("t.csv:%d: key ", at+2)},
		{"time goes back, the other worker first", csvTrace(back10), fmt.Sprintf("t.csv:%d: key ", at10+2)},
		{"a bad record after", strings.Replace(csvTrace(back), fmt.Sprintf("\n%d,", back[19000].t), "\nx,", 1), fmt.Sprintf("t.csv:%d: key ", at+2)},
		{"a bad record before", strings.Replace(csvTrace(back), fmt.Sprintf("\n%d,", back[9000].t), "\nx,", 1), `t.csv:9002: ts "x"`},
		{"a blank line", strings.Replace(csvTrace(reqs), fmt.Sprintf("\n%d,", reqs[5000].t), fmt.Sprintf("\n\n%d,", reqs[5000].t), 1), "t.csv:5002: empty line"},
	} {
		open := func() traces.Reader {
			r, err := traces.NewCSVReader(strings.NewReader(tc.csv), "t.csv", traces.Options{TSUnit: time.Nanosecond})
			if err != nil {
				t.Fatal(err)
			}
			return r
		}
		_, want := replayReader(t, Config{}, open())
		if want == nil || !strings.Contains(want.Error(), tc.want) {
			t.Fatalf("%s, one worker: %v, want an error with %q", tc.name, want, tc.want)
		}
		for _, w := range []int{2, 3} {
			_, runs := replayReader(t, Config{Workers: w}, open())
			_, batches := replayReader(t, Config{Workers: w}, scanOnly{open()})
			for _, got := range []error{runs, batches} {
				if got == nil || got.Error() != want.Error() {
					t.Errorf("%s, %d workers: %v\nwant %v", tc.name, w, got, want)
				}
			}
		}
	}
	pq := parquetTrace(t, back, 7000)
	open := func() traces.Reader {
		r, err := traces.NewParquetReader(bytes.NewReader(pq), int64(len(pq)), "t.parquet", traces.Options{TSUnit: time.Nanosecond})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	_, want := replayReader(t, Config{}, open())
	if want == nil || !strings.Contains(want.Error(), fmt.Sprintf("t.parquet: row %d: key ", at+1)) {
		t.Fatalf("parquet, one worker: %v", want)
	}
	if _, got := replayReader(t, Config{Workers: 2}, open()); got == nil || got.Error() != want.Error() {
		t.Errorf("parquet, 2 workers: %v\nwant %v", got, want)
	}
}
