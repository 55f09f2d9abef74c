package main

import (
	"path/filepath"
	"strings"
	"testing"

	"ratebench/summary"
)

// Upstash's three limiters run end to end on the small trace under 10/1m,
// with figures fixed by the trace. The sliding window without its
// ephemeral cache decides as counter-lt (its ">= limit" on the floored
// estimate); the cache, which blocks a refused key till the window's end,
// refuses a few hundred requests more. The fixed window counts refused
// requests and blocks them, so the trace's requests of cost 2 leave it a
// few below fixed.
func TestCompareUpstash(t *testing.T) {
	dir := t.TempDir()
	stdout, _, err := ratebench(t, "compare", "-trace", "testdata/small.csv", "-rule", "10/1m",
		"-alg", "log,upstash,upstash:without=cache,counter-lt,upstash-fixed,fixed,upstash-token,token",
		"-mode", "independent", "-o", dir)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout, "upstash-token") {
		t.Errorf("stdout lacks upstash-token:\n%s", stdout)
	}
	s, err := summary.ReadSummaryFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][3]int64{ // admitted, over, under
		"log":                   {1271, 0, 0},
		"upstash":               {956, 254, 569},
		"upstash:without=cache": {1315, 276, 232},
		"counter-lt":            {1315, 276, 232},
		"upstash-fixed":         {1401, 447, 317},
		"fixed":                 {1405, 447, 313},
		"upstash-token":         {1521, 411, 161},
		"token":                 {1529, 414, 156},
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

func TestCompareUpstashRefusesAWindowItCannotExpress(t *testing.T) {
	_, _, err := ratebench(t, "compare", "-trace", "testdata/small.csv", "-rule", "10/1500us", "-alg", "log,upstash", "-o", t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "whole milliseconds") {
		t.Errorf("err = %v", err)
	}
}
