package compare

import (
	"bytes"
	"testing"

	"ratebench/algorithms"
	"ratebench/summary"
)

// A key's rows keep the mark of the window its state was last counted in
// (windowGrid.mark), 32 bits, not the window's start: windows a whole
// cycle apart share a mark. That changes no figure, since the grid then
// spans more windows than it counts: with the cycle lowered to just above
// summary.MaxMemoryWindows, a trace whose keys come back a cycle later (or
// less) gives the summary of the full cycle. A cycle of 2, which no grid
// respects, changes a trace's memory: the trace sees the marks.
func TestWindowMarksChangeNothing(t *testing.T) {
	t.Parallel()
	rule := mustRule(t, "3/1s")
	short := randomTrace(5, 4000, 20, sec) // about 200 windows
	long := []rq{{"a", sec / 2, 1}, {"b", sec / 2, 1}, {"a", sec/2 + 10, 1}}
	cycle := uint32(summary.MaxMemoryWindows + 1)
	for _, back := range []int64{int64(cycle) - 1, int64(cycle), int64(cycle) + 1} { // a back in the window a cycle after its first
		long = append(long, rq{"b", back*sec + sec/2, 1})
	}
	long = append(long, rq{"a", int64(cycle)*sec + sec/2 + 20, 1})
	base := Config{Rules: []algorithms.Rule{rule}, Counts: []Count{CountAccepted, CountAll}}
	for name, reqs := range map[string][]rq{"short": short, "long": long} {
		full := replay(t, base, reqs)
		if name == "long" && !full.Runs[0].Memory.TotalNotMeasured {
			t.Fatalf("the long trace's windows are counted: it does not span a cycle")
		}
		want := marshal(t, full)
		lowered := base
		lowered.tuning.markCycle = cycle
		if got := marshal(t, replay(t, lowered, reqs)); !bytes.Equal(got, want) {
			t.Errorf("%s trace: marks of a cycle of %d windows changed the summary\n%s", name, cycle, firstDiff(got, want))
		}
	}
	tiny := base
	tiny.tuning.markCycle = 2
	if got, want := marshal(t, replay(t, tiny, short)), marshal(t, replay(t, base, short)); bytes.Equal(got, want) {
		t.Errorf("marks of a cycle of 2 windows gave the summary of the full cycle: the trace lacks power")
	}
}
