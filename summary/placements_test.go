package summary

import (
	"bytes"
	"strings"
	"testing"
)

// placedSummary is the small replay placed twice: its own counts, and a
// second placement in which gcra lets through two requests more.
func placedSummary(t *testing.T) *Summary {
	t.Helper()
	a, b, rec := replayed(t), replayed(t), replayed(t)
	for i := range b.Runs {
		if r := &b.Runs[i]; r.Algorithm == "gcra" && r.Rejected >= 2 {
			r.Rejected -= 2
			r.Admitted += 2
			r.Over += 2
			r.Disagree += 2
		}
	}
	s, err := Place(rec, []*Summary{a, b}, 7, 1e9)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A placed summary validates, reads back the same, and is refused when its
// placements are tampered with.
func TestValidateRefusesTamperedPlacements(t *testing.T) {
	for _, c := range []struct {
		name   string
		tamper func(s *Summary)
		want   string
	}{
		{"untouched", func(s *Summary) {}, ""},
		{"a placement dropped", func(s *Summary) { s.Runs[6].Placed.Over = s.Runs[6].Placed.Over[:1] }, "runs[6].placed.over: 1 values for 2 placements"},
		{"the first placement not the run's", func(s *Summary) { s.Runs[6].Placed.Over[0]++ }, "runs[6].placed.over: its first placement"},
		{"keys beyond the trace's", func(s *Summary) { s.Runs[6].Placed.KeysOver[1] = s.Runs[6].Keys + 1 }, "runs[6].placed.keys_over[1]"},
		{"a burst where none is measured", func(s *Summary) {
			for i := range s.Runs {
				if s.Runs[i].Burst == nil {
					s.Runs[i].Placed.BurstMax = []int64{1, 1}
					return
				}
			}
			t.Fatal("no run without a burst")
		}, ".burst_max: for a run that measures no burst"},
		{"a burst not the run's", func(s *Summary) { s.Runs[6].Placed.BurstMax[0]++ }, "runs[6].placed.burst_max: its first placement"},
		{"more over than requests", func(s *Summary) { s.Runs[6].Placed.Over[1] = s.Runs[6].Requests + 1 }, "runs[6].placed.over[1]"},
		{"placed runs without placements", func(s *Summary) { s.Trace.Placements = nil }, "runs[0].placed: without trace.placements"},
		{"a run not placed", func(s *Summary) { s.Runs[3].Placed = nil }, "runs[3].placed: missing"},
		{"the log's refusals not the log's", func(s *Summary) { s.Runs[6].Placed.LogRefused[1]++ }, "runs[6].placed.log_refused"},
		{"a recorded count tampered", func(s *Summary) { s.Trace.Placements.Recorded.Runs[6].Over += 50 }, "trace.placements.recorded"},
		{"the recorded verdict tampered", func(s *Summary) { s.Trace.Placements.Recorded.Verdict.Rules[0].Choice = "fixed" }, "trace.placements.recorded.verdict"},
		{"a recorded run missing", func(s *Summary) {
			s.Trace.Placements.Recorded.Runs = s.Trace.Placements.Recorded.Runs[1:]
		}, "trace.placements.recorded.runs: 47 runs for the 48 placed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := placedSummary(t)
			c.tamper(s)
			err := s.Validate()
			switch {
			case c.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Errorf("got %v, want an error with %q", err, c.want)
			}
		})
	}
	s := placedSummary(t)
	data, err := s.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := ReadSummary(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("a placed summary does not read back: %v", err)
	}
	if back.Schema != SchemaV1_8 || back.Runs[6].Placed.Over[1] != s.Runs[6].Placed.Over[1] {
		t.Errorf("read back schema %s, placed %+v", back.Schema, back.Runs[6].Placed)
	}
}

// The verdict's choice breaks no bound in any placement: gcra, within the
// policy in the first placement, is not chosen when the second breaks it.
func TestPlacedVerdictHoldsEverywhere(t *testing.T) {
	s := placedSummary(t)
	for _, v := range s.Verdict.Rules {
		r := s.RunOf(v.Rule, v.Count, v.Mode, v.Choice)
		for _, view := range r.Views() {
			if b := Breaks(view, s.Verdict.Policy.Bounds); b != nil {
				t.Errorf("%s at %s: chosen, breaks %v in a placement", v.Choice, v.Rule, b)
			}
		}
	}
}
