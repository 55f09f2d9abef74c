package summary

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// Marshal indents one field per line, keeps arrays of numbers (and arrays
// of such arrays) on one line, and reads back to the same summary.
func TestMarshalRoundTrip(t *testing.T) {
	s := validSummary(3)
	r := &s.Runs[0]
	r.Timeline = Timeline{WidthNS: 30e9, Requests: []int64{1, 2}, Over: []int64{0, 0}, Under: []int64{0, 0}, Memory: []int64{}}
	r.Memory.PeakTotal = 0
	r.Phase = Phase{Bins: 2, Over: []int64{0, 0}, Under: []int64{0, 0}}
	r.RateError = &RateError{Samples: 3, Histogram: ErrorHistogram{Lo: -2, Width: 0.001, Counts: [][2]int64{{2000, 3}}}}
	data, err := s.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for _, want := range []string{"\"requests\": [1,2],\n", "\"counts\": [[2000,3]],\n", "\n \"schema\": \"ratebench.summary/v1\",\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in\n%s", want, text)
		}
	}
	if !strings.HasSuffix(text, "}\n") {
		t.Error("no final newline")
	}
	back, err := ReadSummary(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, s) {
		t.Errorf("read back %+v\nwant %+v", back, s)
	}
	if _, err := ReadSummary(strings.NewReader(`{"schema": "ratebench.summary/v0"}`)); err == nil || !strings.Contains(err.Error(), `want one of ratebench.summary/v1, `) {
		t.Errorf("another schema: %v", err)
	}
}
