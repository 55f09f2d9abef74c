package summary

import (
	"bytes"
	"path/filepath"
	"testing"
)

// validSummary returns a summary Validate accepts: n requests of one key,
// each of cost 1, replayed under 5/30s by the log alone, which admitted
// them all, in one timeline bin.
func validSummary(n int64) *Summary {
	return &Summary{Schema: SchemaV1,
		Trace: TraceInfo{Path: "t.csv", Format: "csv", Requests: n, Cost: n, Keys: min(n, 1), EndNS: 1},
		Config: RunConfig{Rules: []string{"5/30s"}, Counts: []string{"accepted"}, Modes: []string{"independent"},
			Algorithms: []string{"log"}, TopKeys: 10},
		Runs: []Run{{Rule: "5/30s", Count: "accepted", Mode: "independent", Algorithm: "log",
			Requests: n, Admitted: n, AdmittedCost: n, Keys: min(n, 1),
			Timeline: Timeline{WidthNS: 30e9, Requests: []int64{n}, Over: []int64{0}, Under: []int64{0}, Memory: []int64{16}},
			Phase:    Phase{Bins: 20, Over: make([]int64, 20), Under: make([]int64, 20)},
			Memory:   Memory{Model: "m", PeakPerKey: 16, SumOfPeaks: 16, MeanPerKey: 16 / float64(min(n, 1)), PeakTotal: 16},
			TopKeys:  []KeyStat{}}}}
}

// smallSummary reads testdata/small.summary.json, a replay of a 7-request
// trace by the log, counter and token, in both modes.
func smallSummary(t *testing.T) *Summary {
	t.Helper()
	s, err := ReadSummaryFile(filepath.Join("testdata", "small.summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// roundTrip writes s as summary.json does and reads it back, returning
// the bytes and what was read.
func roundTrip(t *testing.T, s *Summary) ([]byte, *Summary) {
	t.Helper()
	data, err := s.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := ReadSummary(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return data, back
}

// withBinding gives s, a validSummary, the binding a replay writes beside
// its runs: n requests of one key in one window, each of cost 1, offered
// uses 1 to n, none refused by the log.
func withBinding(t *testing.T, s *Summary) *Summary {
	t.Helper()
	n := s.Trace.Requests
	b := Binding{Rule: s.Config.Rules[0], Count: s.Config.Counts[0], Requests: n, PeakUse: n, UseBins: []UseBin{}}
	for u := int64(1); u <= n; u++ {
		b.UseBins = append(b.UseBins, UseBin{Use: u, Requests: 1})
	}
	if err := b.SetTighter(); err != nil {
		t.Fatal(err)
	}
	s.Bindings = []Binding{b}
	return s
}
