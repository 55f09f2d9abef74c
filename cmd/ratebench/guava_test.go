package main

import (
	"path/filepath"
	"strings"
	"testing"

	"ratebench/summary"
)

// compare runs Guava's RateLimiter beside the log on the committed sample
// at 10/1m: 10/60 permits per second store at most 1/6 of a permit, so
// Guava runs close to its twin gcra:B=1, one request per 6 s; the stored
// sixth and the cost paid after the admission let it through a little more
// often.
func TestCompareGuava(t *testing.T) {
	dir := t.TempDir()
	stdout, _, err := ratebench(t, "compare", "-trace", "testdata/small.csv", "-rule", "10/1m",
		"-alg", "log,guava", "-report=false", "-o", dir)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout, "guava against its twin gcra:B=1") {
		t.Errorf("stdout lacks guava against its twin:\n%s", stdout)
	}
	s, err := summary.ReadSummaryFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	type fig struct{ admitted, over, under, peak, vsTwin int64 }
	got := map[string]fig{}
	for _, r := range s.Runs {
		if r.Algorithm != "guava" {
			continue
		}
		f := fig{r.Admitted, r.Over, r.Under, r.Memory.PeakPerKey, -1}
		if r.Product != nil && r.Product.Twin == "gcra:B=1" {
			f.vsTwin = r.Product.VsTwin.Total()
		}
		got[r.Mode] = f
	}
	// Independent: 779 admitted against the log's 1271 (1271 + 168 - 660),
	// 269 decided otherwise than gcra:B=1; shadow: 333, 58 otherwise.
	want := map[string]fig{
		"independent": {779, 168, 660, 24, 269},
		"shadow":      {333, 14, 952, 24, 58},
	}
	for mode, w := range want {
		if g := got[mode]; g != w {
			t.Errorf("%s guava: %+v, want %+v", mode, g, w)
		}
	}
}
