package compare

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"ratebench/algorithms"
	"ratebench/compare/clients"
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
	for _, c := range []workerLayout{{"1 worker", 1, nil}, {"2 workers", 2, nil}, {"shard 1 of 2", 1, &summary.Shard{Index: 1, Count: 2}}} {
		r, err := traces.NewParquetReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()), "t.parquet", traces.Options{TSUnit: time.Nanosecond})
		if err != nil {
			t.Fatal(err)
		}
		e, want := replayedAs(t, base, c, reqs, r)
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

// indexedReader reads requests whose keys come with dense indexes of their
// own (KeyIndexer), as a generator's do, each key's bytes in a buffer of
// its own that the reader reuses.
type indexedReader struct {
	reqs  []rq
	index map[string]int32
	i     int
	buf   []byte
}

func (r *indexedReader) Scan() bool { r.i++; return r.i <= len(r.reqs) }
func (r *indexedReader) Request() traces.Request {
	q := r.reqs[r.i-1]
	r.buf = append(r.buf[:0], q.key...)
	return traces.Request{T: q.t, Key: r.buf, Cost: q.cost}
}
func (r *indexedReader) KeyIndex() int32      { return r.index[r.reqs[r.i-1].key] }
func (r *indexedReader) Pos() traces.Position { return traces.Position{File: "idx", Row: int64(r.i)} }
func (r *indexedReader) Err() error           { return nil }
func (r *indexedReader) Close() error         { return nil }

// TestReplayIndexed replays a trace whose keys come with indexes, with one
// and two workers, a shard, and closed-loop clients and a deployment (which
// read a key's name when the parallel reader sends it only once), and
// checks each summary against the replay by key names.
func TestReplayIndexed(t *testing.T) {
	t.Parallel()
	pol, err := clients.ParsePolicy("backoff")
	if err != nil {
		t.Fatal(err)
	}
	reqs := randomTrace(23, 20000, 300, 30*sec)
	index := map[string]int32{}
	for _, q := range reqs {
		if _, ok := index[q.key]; !ok {
			index[q.key] = int32(len(index) * 131 % 311) // distinct, not in order of first appearance
		}
	}
	base := Config{Rules: []algorithms.Rule{mustRule(t, "5/30s")}, Algorithms: []string{"counter", "token"},
		Modes: []Mode{Independent}, Clients: []clients.Policy{pol}, ClientSeed: 7,
		Deployment: &summary.Deployment{Nodes: []int{3}, Route: "random", Sync: []int64{sec}, Skew: []int64{0}, Seed: 3}}
	for _, c := range []workerLayout{{"1 worker", 1, nil}, {"2 workers", 2, nil}, {"2 workers, shard 0 of 2", 2, &summary.Shard{Index: 0, Count: 2}}} {
		e, want := replayedAs(t, base, c, reqs, &indexedReader{reqs: reqs, index: index})
		if got := marshal(t, e.Summary(summary.TraceInfo{Path: "test", Format: "memory"})); !bytes.Equal(got, want) {
			t.Errorf("%s: replayed by key indexes, the summary differs\n%s", c.name, firstDiff(got, want))
		}
		nr := &namingReader{indexedReader: indexedReader{reqs: reqs, index: index}}
		e, _ = replayedAs(t, base, c, reqs, nr)
		if got := marshal(t, e.Summary(summary.TraceInfo{Path: "test", Format: "memory"})); !bytes.Equal(got, want) {
			t.Errorf("%s: replayed by key indexes, names apart, the summary differs\n%s", c.name, firstDiff(got, want))
		}
		if c.workers > 1 && nr.named > len(index) {
			t.Errorf("%s: the names of %d keys asked for %d times: a parallel replay needs each once", c.name, len(index), nr.named)
		}
	}
}

// namingReader is an indexedReader that gives a request's time and cost
// apart from its key's name (as a generator does), and counts the
// requests asked for whole, name included.
type namingReader struct {
	indexedReader
	named int
}

func (r *namingReader) Request() traces.Request {
	r.named++
	return r.indexedReader.Request()
}

func (r *namingReader) TimeCost() (t, cost int64) {
	q := r.reqs[r.i-1]
	return q.t, q.cost
}

// workerLayout is how many workers replay, and which shard.
type workerLayout struct {
	name    string
	workers int
	shard   *summary.Shard
}

// replayedAs returns an engine for base laid out as l that has replayed r,
// and the summary that replaying reqs (r's requests) by key names gives.
func replayedAs(t *testing.T, base Config, l workerLayout, reqs []rq, r traces.Reader) (*Engine, []byte) {
	t.Helper()
	cfg := base
	cfg.Workers, cfg.Shard = l.workers, l.shard
	want := marshal(t, replay(t, cfg, reqs))
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Replay(context.Background(), r); err != nil {
		t.Fatalf("%s: %v", l.name, err)
	}
	return e, want
}
