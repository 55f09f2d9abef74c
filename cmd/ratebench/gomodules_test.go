package main

import (
	"path/filepath"
	"testing"

	"ratebench/summary"
)

// The Go libraries' limiters run end to end on the small trace under
// 10/1m, with figures fixed by the trace: ulule counts refused requests
// (its cost-2 requests use up windows) in windows anchored at each key's
// first hit, so it admits less than fixed; go-limiter takes one token per
// request; juju (1 token every 6 s, capacity 10, NewBucketWithRate finding
// the same) admits about as token does.
func TestCompareGoModules(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := ratebench(t, "compare", "-trace", "testdata/small.csv", "-rule", "10/1m",
		"-alg", "log,ulule,go-limiter,juju,juju:rate,ulule:without=anchor:without=clock:without=counts-refused,fixed,token",
		"-mode", "independent", "-report=false", "-o", dir); err != nil {
		t.Fatal(err)
	}
	s, err := summary.ReadSummaryFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][3]int64{ // admitted, over, under
		"log":        {1271, 0, 0},
		"ulule":      {1335, 274, 210},
		"go-limiter": {1404, 351, 218},
		"juju":       {1533, 422, 160},
		"juju:rate":  {1533, 422, 160},
		"ulule:without=anchor:without=clock:without=counts-refused": {1405, 447, 313},
		"fixed": {1405, 447, 313},
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
