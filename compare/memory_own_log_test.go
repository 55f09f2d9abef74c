package compare

import (
	"testing"

	"ratebench/algorithms"
	"ratebench/summary"
)

// A product keeping a log of its own reports its own peak per key, not the
// exact log's, and no total: Tyk logs every request, refused ones too, so
// at 2/1s key a's three requests at 0, 0.1 and 0.2 s leave three entries
// (3·8 + 8 = 32 B) where the exact log holds two; the group counts per
// window only the exact log's entries, so tyk's total is not measured;
// its mean per key is, also from one worker, which merges no parts.
func TestProductOwnLogMemory(t *testing.T) {
	t.Parallel()
	reqs := []rq{{"a", 0, 1}, {"a", sec / 10, 1}, {"a", sec / 5, 1}}
	cfg := Config{Rules: []algorithms.Rule{mustRule(t, "2/1s")}, Algorithms: []string{"log", "tyk"}, Modes: []Mode{Independent}}
	s := replay(t, cfg, reqs)
	ty := findRun(t, s, string(Independent), "tyk")
	if ty.Rejected != 1 || ty.Memory.PeakPerKey != 32 {
		t.Errorf("tyk: %d refused, peak per key %d B: want 1 and 32", ty.Rejected, ty.Memory.PeakPerKey)
	}
	if ty.Memory.Model != summary.MemoryModelOwnLog || !ty.Memory.TotalNotMeasured || ty.Memory.PeakTotal != 0 || ty.Timeline.Memory != nil {
		t.Errorf("tyk's memory %+v, timeline memory %v: want its own log's, total not measured", ty.Memory, ty.Timeline.Memory)
	}
	if ty.Memory.MeanPerKey != float64(ty.Memory.SumOfPeaks)/float64(ty.Keys) {
		t.Errorf("tyk's mean per key %v, want its sum of peaks over its %d keys, %d", ty.Memory.MeanPerKey, ty.Keys, ty.Memory.SumOfPeaks)
	}
	if err := s.Validate(); err != nil {
		t.Errorf("the summary of one worker: %v", err)
	}
	lg := findRun(t, s, string(Independent), "log")
	if lg.Memory.TotalNotMeasured || lg.Memory.PeakTotal == 0 {
		t.Errorf("log's memory %+v: want its total measured", lg.Memory)
	}
}
