package main

import (
	"path/filepath"
	"strings"
	"testing"

	"ratebench/summary"
)

// Kong's rate-limiting plugin and redis-cell run end to end on the small
// trace under 10/1m, beside their twins: kong differs from fixed by its one
// hit per request (the trace has requests of cost 2); redis-cell's interval,
// 60s/10 = 6 s, is whole nanoseconds, so it decides as gcra.
func TestCompareKongAndRedisCell(t *testing.T) {
	dir := t.TempDir()
	stdout, _, err := ratebench(t, "compare", "-trace", "testdata/small.csv", "-rule", "10/1m",
		"-alg", "log,kong,kong:without=one-hit,fixed,redis-cell,gcra", "-mode", "independent", "-o", dir)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout, "redis-cell") || !strings.Contains(stdout, "kong:without=one-hit") {
		t.Errorf("stdout lacks the products:\n%s", stdout)
	}
	s, err := summary.ReadSummaryFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][3]int64{ // admitted, over, under
		"log":                  {1271, 0, 0},
		"kong":                 {1438, 464, 297},
		"kong:without=one-hit": {1405, 447, 313},
		"fixed":                {1405, 447, 313},
		"redis-cell":           {1529, 414, 156},
		"gcra":                 {1529, 414, 156},
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

func TestCompareKongAndRedisCellRefuseRulesTheyCannotExpress(t *testing.T) {
	_, _, err := ratebench(t, "compare", "-trace", "testdata/small.csv", "-rule", "10/90s", "-alg", "log,kong", "-o", t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "second, minute, hour, day, month and year") || !strings.Contains(err.Error(), "not 90s") {
		t.Errorf("kong: err = %v", err)
	}
	_, _, err = ratebench(t, "compare", "-trace", "testdata/small.csv", "-rule", "10/1500ms", "-alg", "log,redis-cell", "-o", t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "whole number of seconds, not 1500ms") || !strings.Contains(err.Error(), "20/3s has the same rate") {
		t.Errorf("redis-cell: err = %v", err)
	}
}
