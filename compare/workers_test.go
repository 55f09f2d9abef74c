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
