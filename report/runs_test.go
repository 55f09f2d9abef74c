package report

import (
	"bytes"
	"encoding/csv"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"ratebench/internal/numfmt"
)

// runs.csv has one row per run of the summary, in its order, with the
// headline figures read back as they are in the summary, and is written
// with the report.
func TestRunsCSV(t *testing.T) {
	s := readSummary(t, "small.summary.json")
	dir := write(t, s, Options{NoPNG: true})
	data := readFile(t, filepath.Join(dir, RunsFile))
	if !bytes.Equal(data, RunsCSV(s)) {
		t.Fatal("runs.csv is not RunsCSV of the summary")
	}
	if !Owns(RunsFile) {
		t.Error("Owns(runs.csv) is false: a results folder would keep a stale one")
	}
	rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1+len(s.Runs) {
		t.Fatalf("%d rows, want a header and %d runs", len(rows), len(s.Runs))
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	for _, h := range []string{"rule", "count", "mode", "algorithm", "requests", "disagree_pct", "over_pct", "under_pct", "burst_ratio", "bytes_per_key_peak", "bytes_per_key_mean",
		"log_refused", "log_admitted", "over_of_refused_frac", "under_of_admitted_frac"} {
		if _, ok := col[h]; !ok {
			t.Errorf("no column %s in %v", h, rows[0])
		}
	}
	withBurst, withError := 0, 0
	for i, r := range s.Runs {
		row := rows[1+i]
		id := []string{row[col["rule"]], row[col["count"]], row[col["mode"]], row[col["algorithm"]]}
		if !slices.Equal(id, []string{r.Rule, r.Count, r.Mode, r.Algorithm}) {
			t.Fatalf("row %d is %v, want the run %s %s %s %s", i+1, id, r.Rule, r.Count, r.Mode, r.Algorithm)
		}
		if got := row[col["requests"]]; got != itoa(r.Requests) {
			t.Errorf("%v: requests %s, want %d", id, got, r.Requests)
		}
		if got := row[col["bytes_per_key_peak"]]; got != itoa(r.Memory.PeakPerKey) {
			t.Errorf("%v: peak %s, want %d", id, got, r.Memory.PeakPerKey)
		}
		if got := row[col["bytes_per_key_mean"]]; got != numfmt.Float(r.Memory.MeanPerKey) {
			t.Errorf("%v: mean %s, want %v", id, got, r.Memory.MeanPerKey)
		}
		for _, c := range []struct {
			name string
			rate float64
		}{{"disagree_pct", r.DisagreeRate}, {"over_pct", r.OverRate}, {"under_pct", r.UnderRate}} {
			got, err := strconv.ParseFloat(row[col[c.name]], 64)
			if err != nil || math.Abs(got-100*c.rate) > 5e-7 {
				t.Errorf("%v: %s %s, want %v", id, c.name, row[col[c.name]], 100*c.rate)
			}
		}
		if r.Burst != nil {
			withBurst++
			if got := row[col["burst_ratio"]]; got != numfmt.Float(r.Burst.Ratio) {
				t.Errorf("%v: burst ratio %s, want %v", id, got, r.Burst.Ratio)
			}
		} else if got := row[col["burst_ratio"]]; got != "" {
			t.Errorf("%v: burst ratio %q where the run measured none", id, got)
		}
		if r.RateError != nil {
			withError++
		}
	}
	if withBurst == 0 || withError == 0 {
		t.Errorf("the test summary has %d runs with a burst, %d with a rate error: want some of each", withBurst, withError)
	}
	// Two rows written out, as the summary has them.
	for _, want := range []string{
		"5/30s,accepted,independent,counter,1500,871,629,559,37.266667,207,13.8,352,23.466667,12,12,12,12,7,1.4,24,24,288,,,484,1016,0.42768595041322316,0.3464566929133858,,,,,,,,,,,,,\n",
		"5/30s,accepted,shadow,fixed,1500,1416,84,400,26.666667,400,26.666667,0,0,12,12,12,0,,,16,16,192,-1.8953333333333333,1,484,1016,0.8264462809917356,0,,,,,,,,,,,,,\n",
	} {
		if !bytes.Contains(data, []byte(want)) {
			t.Errorf("runs.csv lacks the row\n%s", want)
		}
	}
}
