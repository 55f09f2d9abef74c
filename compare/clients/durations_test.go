package clients

import (
	"testing"

	"ratebench/summary"
)

// Dense builds the same histogram as Durations from the same samples.
func TestDenseIsDurations(t *testing.T) {
	var d summary.Durations
	var dense Dense
	for i := range 5000 {
		v := int64(i*i*7919) % (1 << 40)
		d.Add(v)
		dense.Add(v)
	}
	if a, b := mustJSON(t, d), mustJSON(t, dense.Durations()); a != b {
		t.Errorf("Dense differs from Durations:\n%s\n%s", a, b)
	}
	var empty Dense
	if got := empty.Durations(); got.Samples != 0 || got.Bins != nil {
		t.Errorf("empty: %+v", got)
	}
}
