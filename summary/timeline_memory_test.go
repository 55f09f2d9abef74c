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
	s := validSummary(1)
	s.Runs = append(s.Runs, s.Runs[0])
	s.Config.Modes = []string{"independent", "shadow"}
	s.Runs[1].Mode = "shadow"
	notMeasured, zeros := &s.Runs[0], &s.Runs[1]
	notMeasured.Timeline.Memory, notMeasured.Memory.PeakTotal, notMeasured.Memory.TotalNotMeasured = nil, 0, true
	zeros.Timeline.Memory, zeros.Memory.PeakTotal = []int64{}, 0
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
