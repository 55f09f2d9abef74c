package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// compare runs nginx beside the log on the committed sample, with the same
// figures for any number of workers, and refuses a rule nginx cannot
// express, naming the rate to give. limit_req counts each request once:
// the sample's 54 requests of cost above 1 count one each, and charging
// their cost (nginx:without=one-hit) decides otherwise.
func TestCompareNginx(t *testing.T) {
	type run struct {
		Mode, Count, Algorithm          string
		Admitted, Disagree, Over, Under int64
		Memory                          struct {
			PeakPerKey int64 `json:"peak_per_key"`
		}
	}
	replay := func(workers string) []run {
		dir := t.TempDir()
		stdout, _, err := ratebench(t, "compare", "-trace", "testdata/small.csv", "-rule", "10/1m", "-alg", "log,nginx,nginx:without=one-hit",
			"-workers", workers, "-o", dir)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(stdout, "nginx") {
			t.Errorf("stdout lacks nginx:\n%s", stdout)
		}
		data, err := os.ReadFile(filepath.Join(dir, "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		var s struct{ Runs []run }
		if err := json.Unmarshal(data, &s); err != nil {
			t.Fatal(err)
		}
		return s.Runs
	}
	one := replay("1")
	var got []run
	for _, r := range one {
		if strings.HasPrefix(r.Algorithm, "nginx") {
			got = append(got, r)
		}
	}
	// Independent: 1558 admitted against the log's 1271, over - under =
	// 1558 - 1271; charging the costs, 1525. Shadow: recording what the
	// log admits, nginx admits every request; charging the costs, the
	// bucket (10 at 10r/m, truncated to 166 milli-requests per second)
	// refuses one.
	want := []run{
		{Mode: "independent", Count: "accepted", Algorithm: "nginx", Admitted: 1558, Disagree: 605, Over: 446, Under: 159},
		{Mode: "independent", Count: "accepted", Algorithm: "nginx:without=one-hit", Admitted: 1525, Disagree: 584, Over: 419, Under: 165},
		{Mode: "shadow", Count: "accepted", Algorithm: "nginx", Admitted: 2000, Disagree: 729, Over: 729, Under: 0},
		{Mode: "shadow", Count: "accepted", Algorithm: "nginx:without=one-hit", Admitted: 1999, Disagree: 728, Over: 728, Under: 0},
	}
	if len(got) != len(want) {
		t.Fatalf("nginx runs %+v, want %+v", got, want)
	}
	for i := range want {
		want[i].Memory.PeakPerKey = 16
		if got[i] != want[i] {
			t.Errorf("run %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	four := replay("4")
	if len(four) != len(one) {
		t.Fatalf("-workers 4: %d runs, want %d", len(four), len(one))
	}
	for i := range one {
		if four[i] != one[i] {
			t.Errorf("-workers 4 run %d: %+v, -workers 1: %+v", i, four[i], one[i])
		}
	}
	_, _, err := ratebench(t, "compare", "-trace", "testdata/small.csv", "-rule", "1/1h", "-alg", "log,nginx", "-o", t.TempDir())
	var ue usageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "nginx:rate=1r/m") {
		t.Errorf("rule 1/1h: err %v, want a usage error naming nginx:rate=1r/m", err)
	}
}
