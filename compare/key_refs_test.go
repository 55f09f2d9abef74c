package compare

import (
	"bytes"
	"context"
	"testing"

	"github.com/parquet-go/parquet-go"

	"ratebench/summary"
	"ratebench/traces"
)

// TestReplayByKeyRefs replays a Parquet trace whose keys are read by their
// dictionary entries (several dictionaries, idle keys released while
// their entries still name their old ids) with one worker, two workers and
// one shard of two, and checks that each summary is the one replaying the
// same requests key by key gives.
func TestReplayByKeyRefs(t *testing.T) {
	t.Parallel()
	reqs := churnTrace(3, 30000)
	type row struct {
		TS   int64  `parquet:"ts"`
		Key  []byte `parquet:"key,string,dict"`
		Cost int64  `parquet:"cost"`
	}
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[row](&buf, parquet.MaxRowsPerRowGroup(7000), parquet.PageBufferSize(4096))
	for _, q := range reqs {
		if _, err := w.Write([]row{{q.t, []byte(q.key), q.cost}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	base := withMinSweep(fullConfig(t), 32)
	base.Algorithms = []string{"counter", "token", "fixed"}
	for _, c := range []struct {
		name    string
		workers int
		shard   *summary.Shard
	}{{"1 worker", 1, nil}, {"2 workers", 2, nil}, {"shard 1 of 2", 1, &summary.Shard{Index: 1, Count: 2}}} {
		cfg := base
		cfg.Workers, cfg.Shard = c.workers, c.shard
		want := marshal(t, replay(t, cfg, reqs))
		e, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		r, err := traces.NewParquetReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()), "t.parquet", traces.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Replay(context.Background(), r); err != nil {
			t.Fatal(err)
		}
		released := int64(0)
		for _, w := range e.workers {
			released += w.rel.released
			if w.refs.dict < 4 { // 30,000 rows in row groups of 7,000
				t.Fatalf("%s: a worker saw %d key dictionaries, want 5", c.name, w.refs.dict)
			}
		}
		if released < 100 {
			t.Fatalf("%s: %d keys released: the test does not exercise stale entries", c.name, released)
		}
		if got := marshal(t, e.Summary(summary.TraceInfo{Path: "test", Format: "memory"})); !bytes.Equal(got, want) {
			t.Errorf("%s: replayed by dictionary entries, the summary differs\n%s", c.name, firstDiff(got, want))
		}
	}
}
