package main

import (
	"path/filepath"
	"testing"

	"ratebench/summary"
)

// Envoy's two limiters as products on the small trace under 10/1m: each
// with its deviations off decides as its twin (envoy as fixed, envoy-local
// as token), and each deviation alone changes the figures.
func TestCompareEnvoyProducts(t *testing.T) {
	dir := t.TempDir()
	_, _, err := ratebench(t, "compare", "-trace", "testdata/small.csv", "-rule", "10/1m",
		"-alg", "log,envoy,envoy:without=counts-refused,fixed,envoy-local,envoy-local:without=timer-fill,envoy-local:without=one-token,envoy-local:without=timer-fill:without=one-token,token",
		"-mode", "independent", "-o", dir)
	if err != nil {
		t.Fatal(err)
	}
	s, err := summary.ReadSummaryFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][3]int64{ // admitted, over, under
		"log":                            {1271, 0, 0},
		"envoy":                          {1401, 447, 317},
		"envoy:without=counts-refused":   {1405, 447, 313},
		"fixed":                          {1405, 447, 313},
		"envoy-local":                    {1573, 459, 157},
		"envoy-local:without=timer-fill": {1562, 440, 149},
		"envoy-local:without=one-token":  {1542, 432, 161},
		"envoy-local:without=timer-fill:without=one-token": {1529, 414, 156},
		"token": {1529, 414, 156},
	}
	if len(s.Runs) != len(want) {
		t.Fatalf("%d runs, want %d", len(s.Runs), len(want))
	}
	for _, r := range s.Runs {
		w, ok := want[r.Algorithm]
		if got := [3]int64{r.Admitted, r.Over, r.Under}; !ok || got != w || r.Requests != 2000 {
			t.Errorf("%s: admitted, over, under %v of %d, want %v of 2000", r.Algorithm, got, r.Requests, w)
		}
	}
}
