package main

import (
	"path/filepath"
	"strings"
	"testing"

	"ratebench/summary"
)

// Envoy's two limiters run end to end on the small trace under 10/1m, with
// figures fixed by the trace (it has requests of cost 2, so envoy, which
// counts refused requests, differs from fixed by a few requests).
func TestCompareEnvoy(t *testing.T) {
	dir := t.TempDir()
	stdout, _, err := ratebench(t, "compare", "-trace", "testdata/small.csv", "-rule", "10/1m",
		"-alg", "log,envoy,envoy-local,fixed", "-mode", "independent", "-o", dir)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout, "envoy-local") {
		t.Errorf("stdout lacks envoy-local:\n%s", stdout)
	}
	s, err := summary.ReadSummaryFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][3]int64{ // admitted, over, under
		"log":         {1271, 0, 0},
		"envoy":       {1401, 447, 317},
		"envoy-local": {1573, 459, 157},
		"fixed":       {1405, 447, 313},
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

func TestCompareEnvoyRefusesAWindowItCannotExpress(t *testing.T) {
	_, _, err := ratebench(t, "compare", "-trace", "testdata/small.csv", "-rule", "10/90s", "-alg", "log,envoy", "-o", t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "units are second, minute, hour, day") || !strings.Contains(err.Error(), "not 90s") {
		t.Errorf("err = %v", err)
	}
	_, _, err = ratebench(t, "compare", "-trace", "testdata/small.csv", "-rule", "10/10ms", "-alg", "envoy-local", "-o", t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "envoy-local:max=N:fill=N:interval=D") {
		t.Errorf("err = %v", err)
	}
}

// Parameters given in the -alg list (separated by ':', as the list is by
// ','): envoy-local and nginx with their defaults spelled out decide as the
// defaults do.
func TestCompareProductParametersInTheAlgList(t *testing.T) {
	figures := func(algs string) map[string][3]int64 {
		dir := t.TempDir()
		if _, _, err := ratebench(t, "compare", "-trace", "testdata/small.csv", "-rule", "10/1m",
			"-alg", algs, "-mode", "independent", "-report=false", "-o", dir); err != nil {
			t.Fatal(err)
		}
		s, err := summary.ReadSummaryFile(filepath.Join(dir, "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		out := map[string][3]int64{}
		for _, r := range s.Runs {
			name, _, _ := strings.Cut(r.Algorithm, ":")
			out[name] = [3]int64{r.Admitted, r.Over, r.Under}
		}
		return out
	}
	def := figures("log,envoy-local,nginx")
	given := figures("log,envoy-local:max=10:fill=1:interval=6s,nginx:rate=10r/m:burst=9")
	if len(given) != 3 || given["envoy-local"] != def["envoy-local"] || given["nginx"] != def["nginx"] {
		t.Errorf("with parameters %v, defaults %v", given, def)
	}
}
