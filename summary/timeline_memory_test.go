package summary

import (
	"bytes"
	"strings"
	"testing"
)

// A run whose total state is not measured has no timeline memory: the
// field is absent from the JSON, as the schema says, not null; a measured
// series of zeros is written as [] and reads back as such.
func TestTimelineMemoryAbsentWhenNotMeasured(t *testing.T) {
	run := func(mem []int64, notMeasured bool) Run {
		return Run{Rule: "5/30s", Count: "accepted", Mode: "independent", Algorithm: "log", Requests: 1, Admitted: 1, Keys: 1,
			Timeline: Timeline{WidthNS: 30e9, Requests: []int64{1}, Over: []int64{0}, Under: []int64{0}, Memory: mem},
			Phase:    Phase{Bins: 20, Over: make([]int64, 20), Under: make([]int64, 20)},
			Memory:   Memory{Model: "m", PeakPerKey: 16, SumOfPeaks: 16, MeanPerKey: 16, TotalNotMeasured: notMeasured},
			TopKeys:  []KeyStat{}}
	}
	s := &Summary{Schema: SchemaV1_2, Trace: TraceInfo{Path: "t.csv", Format: "csv", Requests: 1, Cost: 1, Keys: 1},
		Config: RunConfig{Rules: []string{"5/30s"}, Counts: []string{"accepted"}, Modes: []string{"independent"}, Algorithms: []string{"log"}, TopKeys: 10},
		Runs:   []Run{run(nil, true), run([]int64{}, false)}}
	data, err := s.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	if strings.Contains(text, `"memory": null`) {
		t.Errorf("a null memory in\n%s", text)
	}
	if n := strings.Count(text, `"memory": []`); n != 1 {
		t.Errorf("%d empty memory series, want 1 (the measured run's):\n%s", n, text)
	}
	back, err := ReadSummary(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if m := back.Runs[0].Timeline.Memory; m != nil {
		t.Errorf("not measured: timeline memory %v, want none", m)
	}
	if m := back.Runs[1].Timeline.Memory; m == nil || len(m) != 0 {
		t.Errorf("measured: timeline memory %#v, want []", m)
	}
}
