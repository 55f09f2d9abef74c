package main

import (
	"path/filepath"
	"strings"
	"testing"

	"ratebench/summary"
)

// compare runs redis_rate and throttled beside the log on the committed
// sample: at 10/1m the emission interval, 6 s, is exact as a double and in
// whole nanoseconds, and on this sample neither the microsecond clock nor
// float64 rounding changes a decision: both decide as their twin
// gcra:B=10, in both modes.
func TestCompareRedisRateThrottled(t *testing.T) {
	dir := t.TempDir()
	stdout, _, err := ratebench(t, "compare", "-trace", "testdata/small.csv", "-rule", "10/1m",
		"-alg", "log,gcra,redis_rate,throttled", "-report=false", "-o", dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"redis_rate", "throttled"} {
		if !strings.Contains(stdout, name) {
			t.Errorf("stdout lacks %s:\n%s", name, stdout)
		}
	}
	s, err := summary.ReadSummaryFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	type fig struct{ admitted, over, under, peak int64 }
	got := map[string]fig{}
	for _, r := range s.Runs {
		got[r.Mode+" "+r.Algorithm] = fig{r.Admitted, r.Over, r.Under, r.Memory.PeakPerKey}
	}
	// Independent: 1529 admitted against the log's 1271 (1271 + 414 - 156);
	// shadow: recording what the log admits, 728 over.
	want := map[string]fig{
		"independent": {1529, 414, 156, 8},
		"shadow":      {1999, 728, 0, 8},
	}
	for mode, w := range want {
		for _, alg := range []string{"gcra", "redis_rate", "throttled"} {
			if g := got[mode+" "+alg]; g != w {
				t.Errorf("%s %s: %+v, want %+v", mode, alg, g, w)
			}
		}
	}
}
