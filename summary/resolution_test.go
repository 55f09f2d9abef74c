package summary

import (
	"strings"
	"testing"
)

// wholeSeconds is a trace of whole-second times: 1,000 requests of 4
// keys, 400 of them at their key's previous time.
func wholeSeconds() TraceInfo {
	return TraceInfo{Format: "csv", TSUnit: "s", TSUnitFrom: "auto", Requests: 1000, Cost: 1000, Keys: 4,
		StartNS: 1431857112e9, EndNS: 1431857112e9 + 3600e9, ResolutionNS: 1e9, SameTime: 400}
}

// The resolution warning fires when the unit is coarser than a rule's W/L
// or than a hundredth of its window, and says what it does to the figures.
func TestResolutionWarning(t *testing.T) {
	tr := wholeSeconds()
	tests := []struct {
		name  string
		unit  int64
		rules []string
		want  string // in the warning; "" for none
	}{
		{"whole seconds under 10/1s", 1e9, []string{"10/1s"}, "coarser than 100ms, the gap between requests at the limit of 10/1s"},
		{"whole seconds, a window of 100s", 1e9, []string{"1/1m40s"}, ""},
		{"whole seconds, a window under 100s", 1e9, []string{"1/99s"}, "coarser than a hundredth of the 1m39s window of 1/99s"},
		{"whole minutes under 100/1m", 60e9, []string{"100/1m"}, "whole multiples of 1m0s, coarser than 600ms"},
		{"a layer of a layered rule", 1e9, []string{"5/1m40s+2/1s"}, "of 2/1s"},
		{"nanoseconds", 1, []string{"10/1s"}, ""},
		{"a millisecond under 5/30s", 1e6, []string{"5/30s"}, ""},
		{"a unit of the gap exactly", 5e6, []string{"200/1s"}, ""},
		{"one nanosecond more", 5e6 + 1, []string{"200/1s"}, "the gap between requests at the limit"},
		{"a hundredth of the window exactly", 10e6, []string{"10/1s"}, ""},
		{"one nanosecond more than a hundredth", 10e6 + 1, []string{"10/1s"}, "coarser than a hundredth of the 1s window"},
		{"not measured", 0, []string{"10/1s"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr.ResolutionNS = tt.unit
			got := resolutionWarning(tr, tt.rules)
			if tt.want == "" {
				if got != "" {
					t.Fatalf("warns %q", got)
				}
				return
			}
			if !strings.Contains(got, tt.want) || !strings.Contains(got, "40.00% of the requests share their key's previous timestamp") ||
				!strings.Contains(got, "artefact of the clock") || !strings.Contains(got, "compare replays it with each request placed at random") {
				t.Errorf("got %q, want it to hold %q, the share and what it does", got, tt.want)
			}
			for _, internal := range []string{"seed", "§", "vectors"} { // no internal reference
				if strings.Contains(got, internal) {
					t.Errorf("%q names %q", got, internal)
				}
			}
		})
	}
}

// A spread trace still warns (its figures are those of the times as
// read), saying that the times were spread; the summary's Warnings holds
// it, for the report.
func TestResolutionWarningOfASpreadTrace(t *testing.T) {
	s := validSummary(1)
	s.Trace = wholeSeconds()
	s.Config.Rules = []string{"10/1s"}
	s.Trace.Spread = &SpreadInfo{Seed: 7}
	ws := s.Warnings()
	if len(ws) != 1 || !strings.Contains(ws[0], "whole multiples of 1s") || !strings.Contains(ws[0], "the times were spread at random inside their 1s (-spread)") {
		t.Fatalf("warnings %q", ws)
	}
}

// Validate refuses resolution figures that cannot be.
func TestValidateResolution(t *testing.T) {
	tests := []struct {
		name string
		edit func(*TraceInfo)
		want string // "" for valid
	}{
		{"whole seconds", func(*TraceInfo) {}, ""},
		{"not measured", func(t *TraceInfo) { t.ResolutionNS, t.SameTime = 0, 0 }, ""},
		{"a negative unit", func(t *TraceInfo) { t.ResolutionNS = -1 }, "trace.resolution_ns: -1 is negative"},
		{"a unit that does not divide the times", func(t *TraceInfo) { t.ResolutionNS = 7e9 }, "trace.resolution_ns: 7000000000 does not divide"},
		{"spread: the times as read are not recorded", func(t *TraceInfo) { t.ResolutionNS, t.Spread = 7e9, &SpreadInfo{} }, ""},
		{"more at the same time than can be", func(t *TraceInfo) { t.SameTime = 997 }, "trace.same_time_as_previous: 997 is more than trace.requests - trace.keys, 996"},
		{"a negative count", func(t *TraceInfo) { t.SameTime = -1 }, "trace.same_time_as_previous: -1 is negative"},
		{"a count without a unit", func(t *TraceInfo) { t.ResolutionNS = 0 }, "without trace.resolution_ns"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var v validator
			tr := wholeSeconds()
			tt.edit(&tr)
			v.resolution(&tr)
			switch {
			case tt.want == "" && v.err != nil:
				t.Fatalf("refused: %v", v.err)
			case tt.want != "" && (v.err == nil || !strings.Contains(v.err.Error(), tt.want)):
				t.Fatalf("got %v, want %q", v.err, tt.want)
			}
		})
	}
}

// Merging parts of disjoint keys takes the gcd of their units and the sum
// of their counts, spread or not; parts spread otherwise do not merge.
func TestMergeResolution(t *testing.T) {
	part := func(unit, same int64) *Summary {
		s := validSummary(10)
		s.Trace.ResolutionNS, s.Trace.SameTime = unit, same
		return s
	}
	m, err := MergeDisjoint([]*Summary{part(6e9, 3), part(0, 0), part(4e9, 5)})
	if err != nil {
		t.Fatal(err)
	}
	if m.Trace.ResolutionNS != 2e9 || m.Trace.SameTime != 8 || m.Trace.Spread != nil {
		t.Errorf("merged %+v; want 2e9 ns and 8", m.Trace)
	}

	spread := func(unit, same int64, seed uint64) *Summary {
		s := part(unit, same)
		s.Trace.Spread = &SpreadInfo{Seed: seed}
		return s
	}
	m, err = MergeDisjoint([]*Summary{spread(1e9, 3, 7), spread(1e9, 4, 7)})
	if err != nil {
		t.Fatal(err)
	}
	if m.Trace.ResolutionNS != 1e9 || m.Trace.SameTime != 7 || m.Trace.Spread == nil || m.Trace.Spread.Seed != 7 {
		t.Errorf("merged spread parts: %+v", m.Trace)
	}
	for name, parts := range map[string][]*Summary{
		"other seeds": {spread(1e9, 3, 7), spread(1e9, 3, 8)},
		"one not":     {spread(1e9, 3, 7), part(1e9, 3)},
		"one not too": {part(1e9, 3), spread(1e9, 3, 7)},
	} {
		if _, err := MergeDisjoint(parts); err == nil || !strings.Contains(err.Error(), "spread the requests otherwise") {
			t.Errorf("%s: merged (%v)", name, err)
		}
	}
}
