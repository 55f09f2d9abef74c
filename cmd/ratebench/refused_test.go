package main

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ratebench/summary"
)

// refusedBurstLog is a combined-format access log built so that the exact
// log refuses a handful of requests that token and gcra let through: under
// 10/5m, one client (192.0.2.7) sends 10 requests in the first 10 seconds,
// then one at 35 s, 70 s and 105 s: the log, with 10 requests in the
// window, refuses the three; a bucket of 10 tokens refilled at one per 30 s
// has a token again for each. Fifty other clients send one request a
// minute for an hour, which no algorithm refuses. The three refusals are
// 0.098% of the 3,063 requests: within 0.1% of the log's decisions.
const refusedBurstLog = "testdata/refused_burst.log"

// compareRefused runs compare on refusedBurstLog under 10/5m in
// independent mode with the extra flags, and returns stdout and the
// summary.
func compareRefused(t *testing.T, flags ...string) (string, *summary.Summary, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "res")
	args := append([]string{"compare", "-trace", refusedBurstLog, "-rule", "10/5m", "-mode", "independent", "-png=false", "-o", dir}, flags...)
	stdout, stderr, err := ratebench(t, args...)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	s, err := summary.ReadSummaryFile(filepath.Join(dir, summaryFile))
	if err != nil {
		t.Fatal(err)
	}
	return stdout, s, dir
}

// choiceLine is the verdict's choice on the only rule of stdout.
func choiceLine(t *testing.T, stdout string) string {
	t.Helper()
	for _, l := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(l, "  Choose ") || strings.HasPrefix(l, "  None ") || strings.HasPrefix(l, "  No ") {
			return l
		}
	}
	t.Fatalf("no choice in the verdict:\n%s", stdout)
	return ""
}

// On a log whose few refusals token and gcra all let through, their
// errors in the log's own terms say so (over_of_refused 1) though their
// over-admission rate over all requests is below 0.1%; the default policy
// chooses neither, and says what it bounds.
func TestRefusalsLetThroughAreNotTheDefaultChoice(t *testing.T) {
	stdout, s, dir := compareRefused(t)
	byAlg := map[string]*summary.Run{}
	for i := range s.Runs {
		byAlg[s.Runs[i].Algorithm] = &s.Runs[i]
	}
	log := byAlg["log"]
	if log == nil || log.Rejected != 3 || log.LogRefused == nil || *log.LogRefused != 3 {
		t.Fatalf("the log's run: %+v, want 3 requests refused", log)
	}
	for _, alg := range []string{"token", "gcra"} {
		r := byAlg[alg]
		if r == nil {
			t.Fatalf("no %s run", alg)
		}
		if r.Over != 3 || r.Under != 0 || *r.LogRefused != 3 || *r.LogAdmitted != r.Requests-3 {
			t.Errorf("%s: over %d, under %d, log_refused %d, log_admitted %d of %d requests; want 3, 0, 3 and the rest", alg, r.Over, r.Under, *r.LogRefused, *r.LogAdmitted, r.Requests)
		}
		if r.OverOfRefused == nil || *r.OverOfRefused != 1 || r.UnderOfAdmitted == nil || *r.UnderOfAdmitted != 0 {
			t.Errorf("%s: over_of_refused %v, under_of_admitted %v; want 1 and 0", alg, r.OverOfRefused, r.UnderOfAdmitted)
		}
		// Over all requests, it is within 0.1% of the log's decisions.
		if r.Disagree*1000 > r.Requests {
			t.Errorf("%s: %d of %d requests decided differently: the sample no longer tests what it should", alg, r.Disagree, r.Requests)
		}
	}
	first := strings.SplitN(stdout, "\n", 2)[0]
	if !strings.Contains(first, "within 0.1% of the exact log's decisions that lets through at most 10% of the requests the log refuses and refuses at most 1% of those it admits") {
		t.Errorf("the verdict does not open with the default policy:\n%s", first)
	}
	choice := choiceLine(t, stdout)
	if strings.Contains(choice, "Choose token") || strings.Contains(choice, "Choose gcra") || !strings.HasPrefix(choice, "  Choose ") {
		t.Errorf("the default choice is not another algorithm: %s", choice)
	}
	if !strings.Contains(choice, "the cheaper gcra lets through 100.00% of the log's refusals (tolerance 10%)") {
		t.Errorf("the verdict does not give gcra's share of the log's refusals:\n%s", stdout)
	}

	// The terminal table, runs.csv and the report carry them too.
	if !strings.Contains(stdout, "log refused  over/refused  under/admitted") || !strings.Contains(stdout, "100.000%") {
		t.Errorf("the table lacks the log's refusals and the shares of them:\n%s", stdout)
	}
	data, err := os.ReadFile(filepath.Join(dir, "runs.csv"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	for _, row := range rows[1:] {
		if row[col["algorithm"]] == "gcra" {
			if row[col["log_refused"]] != "3" || row[col["over_of_refused_frac"]] != "1" || row[col["under_of_admitted_frac"]] != "0" {
				t.Errorf("runs.csv's gcra row: %v of %v", row, rows[0])
			}
		}
	}
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "over ÷ log's refusals") || !strings.Contains(string(md), "| 3 | 100.00% | 0% |") {
		t.Errorf("report.md lacks the shares of the log's refusals and admissions")
	}
}

// The budget flags bound the errors in the log's own terms: within 10% of
// the log's refusals, gcra is out; with all of them allowed, the cheapest,
// gcra, is in.
func TestBudgetOfTheLogsRefusals(t *testing.T) {
	stdout, s, _ := compareRefused(t, "-max-over-of-refused", "10%", "-max-under-of-admitted", "1%")
	if b := s.Config.Budget; b == nil || b.MaxOverOfRefused == nil || *b.MaxOverOfRefused != 0.1 || b.MaxUnderOfAdmitted == nil || *b.MaxUnderOfAdmitted != 0.01 || b.MaxOver != nil {
		t.Errorf("the summary's budget: %+v", b)
	}
	if first := strings.SplitN(stdout, "\n", 2)[0]; !strings.Contains(first, "over ≤ 10.00% of the log's refusals, under ≤ 1.00% of the log's admissions") {
		t.Errorf("the verdict does not state the budget: %s", first)
	}
	if c := choiceLine(t, stdout); strings.Contains(c, "Choose gcra") || strings.Contains(c, "Choose token") || !strings.HasPrefix(c, "  Choose ") {
		t.Errorf("within 10%% of the log's refusals: %s", c)
	}
	stdout, _, _ = compareRefused(t, "-max-over-of-refused", "100%")
	if c := choiceLine(t, stdout); !strings.HasPrefix(c, "  Choose gcra ") {
		t.Errorf("with every refusal allowed through, the cheapest is not chosen: %s", c)
	}
	if _, _, err := ratebench(t, "report", "-max-under-of-admitted", "2", t.TempDir()); err == nil || !strings.Contains(err.Error(), "-max-under-of-admitted") {
		t.Errorf("a budget of 2 without %%: %v", err)
	}
}
