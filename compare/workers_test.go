package compare

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"ratebench/summary"
	"ratebench/traces"
)

// A worker count past MaxWorkers is refused, naming the limit, before
// anything is allocated: -workers 100000 was a fatal out-of-memory.
func TestWorkersAreBounded(t *testing.T) {
	t.Parallel()
	for _, n := range []int{MaxWorkers + 1, 100000} {
		_, err := New(Config{Workers: n})
		if want := fmt.Sprintf("workers %d: at most %d", n, MaxWorkers); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%d workers: %v, want an error saying %q", n, err, want)
		}
	}
	if _, err := New(Config{Workers: MaxWorkers}); err != nil {
		t.Errorf("%d workers: %v", MaxWorkers, err)
	}
}

// More workers than keys make a worker only for each key's share (and the
// first): the others allocate nothing, and the summary is one worker's,
// byte for byte, through Add and through Replay.
func TestWorkersBeyondTheKeysCostNothing(t *testing.T) {
	t.Parallel()
	reqs := randomTrace(5, 2000, 3, 30*sec)
	csv := csvTrace(reqs)
	cfg := fullConfig(t)
	one, err := replayCSV(t, cfg, csv)
	if err != nil {
		t.Fatal(err)
	}
	want := marshal(t, one)
	wantAdd := marshal(t, replay(t, cfg, reqs))
	cfg.Workers = MaxWorkers
	e := fed(t, cfg, reqs)
	if made := madeWorkers(e); made > 4 {
		t.Errorf("%d workers made for 3 keys, want at most 4", made)
	}
	if g := marshal(t, e.Summary(summary.TraceInfo{Path: "test", Format: "memory"})); !bytes.Equal(g, wantAdd) {
		t.Errorf("%d workers through Add: summary differs\n%s", MaxWorkers, firstDiff(g, wantAdd))
	}
	e, err = New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	r, err := traces.NewCSVReader(strings.NewReader(csv), "t.csv", traces.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Replay(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	if made := madeWorkers(e); made > 4 {
		t.Errorf("%d workers made for 3 keys through Replay, want at most 4", made)
	}
	if g := marshal(t, e.Summary(summary.TraceInfo{Path: "t.csv", Format: "csv"})); !bytes.Equal(g, want) {
		t.Errorf("%d workers through Replay: summary differs\n%s", MaxWorkers, firstDiff(g, want))
	}
}

// madeWorkers counts the workers e has made.
func madeWorkers(e *Engine) int {
	n := 0
	for _, w := range e.workers {
		if w != nil {
			n++
		}
	}
	return n
}

// A shard's summary replayed by many workers of which only the first has
// a key is still the shard's, as one worker's is: it says which shard it
// is and keeps the memory per window that merge needs.
func TestOneWorkerOfManyWithKeysStillWritesTheShard(t *testing.T) {
	t.Parallel()
	key := "a"
	for workerOf(traces.KeyHash([]byte(key)), 2) != 0 || workerOf(traces.KeyHash([]byte(key)), MaxWorkers) != 0 {
		key += "a" // a key of the first worker's, with 2 workers and with MaxWorkers
	}
	reqs := []rq{{key, 0, 1}, {key, sec, 1}, {key, 40 * sec, 1}}
	cfg := Config{Algorithms: []string{"counter"}, Modes: []Mode{Independent}, Shard: &summary.Shard{Index: 0, Count: 1}}
	want := marshal(t, replay(t, cfg, reqs))
	for _, n := range []int{2, MaxWorkers} {
		cfg.Workers = n
		e := fed(t, cfg, reqs)
		s := e.Summary(summary.TraceInfo{Path: "test", Format: "memory"})
		if s.Shard == nil || s.Runs[1].Memory.Windows == nil {
			t.Errorf("%d workers: shard %v, memory windows %v: want the shard's, with its windows", n, s.Shard, s.Runs[1].Memory.Windows)
		}
		if g := marshal(t, s); !bytes.Equal(g, want) {
			t.Errorf("%d workers: summary differs from one worker's\n%s", n, firstDiff(g, want))
		}
	}
}
