package main

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ratebench/internal/numfmt"
	"ratebench/summary"
)

const ciSample = "../../traces/samples/nasa.tsv"

// compareCISample replays the NASA sample (whole-second times, 5/30s) into a
// temporary folder and returns it with its summary.
func compareCISample(t *testing.T, extra ...string) (string, *summary.Summary) {
	t.Helper()
	dir := t.TempDir()
	// On the recorded clock, so that check's lines follow from the runs'
	// own counts; TestCheckSaysPlacements checks the placed figures.
	args := append([]string{"compare", ciSample, "-key", "host", "-ts", "time", "-mode", "independent", "-report=false", "-placements", "0", "-o", dir}, extra...)
	var out, errb bytes.Buffer
	if err := run(&out, &errb, args); err != nil {
		t.Fatalf("compare: %v\n%s", err, errb.String())
	}
	s, err := summary.ReadSummaryFile(filepath.Join(dir, summaryFile))
	if err != nil {
		t.Fatal(err)
	}
	return dir, s
}

func runOf(t *testing.T, s *summary.Summary, alg string) *summary.Run {
	t.Helper()
	for i := range s.Runs {
		if s.Runs[i].Algorithm == alg {
			return &s.Runs[i]
		}
	}
	t.Fatalf("no run of %s", alg)
	return nil
}

// checkRun runs ratebench check and returns its exit status and output.
func checkRun(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	err := run(&out, &errb, append([]string{"check"}, args...))
	if err != nil {
		errb.WriteString(err.Error())
	}
	return exitStatus(err), out.String(), errb.String()
}

// check exits 0 when every bound holds, breachStatus when one breaks, 1
// on an input error (no summary, an algorithm the summary lacks, naming
// those it has), 2 on a usage error; its lines state each figure beside
// its bound, as the summary holds it.
func TestCheckExitStatusAndLines(t *testing.T) {
	dir, s := compareCISample(t)
	g := runOf(t, s, "gcra")
	if g.OverOfRefused == nil || *g.OverOfRefused <= 0.1 || *g.OverOfRefused >= 0.8 || g.Under != 0 {
		t.Fatalf("the sample no longer has gcra let through between 10%% and 80%% of the log's refusals and refuse none: %+v", g)
	}
	over := numfmt.Percent(*g.OverOfRefused)

	// The verdict's choice, worked out here: the least memory per key
	// among the runs within every bound, in integers.
	choice := func(ok func(r *summary.Run) bool) string {
		var best *summary.Run
		for i := range s.Runs {
			if r := &s.Runs[i]; ok(r) && (best == nil || r.Memory.PeakPerKey < best.Memory.PeakPerKey) {
				best = r
			}
		}
		if best.Algorithm == "log" {
			return "verdict 5/30s, count accepted, independent: choose the exact log\n"
		}
		return "verdict 5/30s, count accepted, independent: choose " + best.Algorithm + "\n"
	}
	st, out, errs := checkRun(dir, "-alg", "gcra", "-max-over-of-refused", "80%", "-max-under-of-admitted", "1%")
	want := "✓ 5/30s, count accepted, independent: over_of_refused " + over + " ≤ 80%\n" +
		"✓ 5/30s, count accepted, independent: under_of_admitted 0% ≤ 1%\n" +
		choice(func(r *summary.Run) bool { return r.Over*100 <= 80**r.LogRefused && r.Under*100 <= *r.LogAdmitted })
	if st != 0 || out != want {
		t.Errorf("within budget: status %d, output\n%s(stderr %s); want 0 and\n%s", st, out, errs, want)
	}

	st, out, _ = checkRun(dir, "-alg", "gcra", "-max-over-of-refused", "10%", "-max-under-of-admitted", "1%")
	if st != breachStatus || !strings.Contains(out, "✗ 5/30s, count accepted, independent: over_of_refused "+over+" > 10%\n") ||
		!strings.Contains(out, "✓ 5/30s, count accepted, independent: under_of_admitted 0% ≤ 1%") {
		t.Errorf("breach: status %d, output\n%s", st, out)
	}

	// No budget flag: the default policy's three tolerances.
	st, out, _ = checkRun(dir, "-alg", "gcra")
	want = "✗ 5/30s, count accepted, independent: disagree_rate " + numfmt.PercentOf(g.Disagree, g.Requests) + " > 0.1%\n" +
		"✗ 5/30s, count accepted, independent: over_of_refused " + over + " > 10%\n" +
		"✓ 5/30s, count accepted, independent: under_of_admitted 0% ≤ 1%\n" +
		choice(func(r *summary.Run) bool {
			return r.Disagree*1000 <= r.Requests && r.Over*10 <= *r.LogRefused && r.Under*100 <= *r.LogAdmitted
		})
	if st != breachStatus || out != want {
		t.Errorf("default tolerances: status %d, output\n%swant %d and\n%s", st, out, breachStatus, want)
	}
	if st, out, _ := checkRun(dir, "-alg", "log"); st != 0 || strings.Count(out, "✓") != 3 || strings.Contains(out, "✗") {
		t.Errorf("the log against the default tolerances: status %d, output\n%s", st, out)
	}

	if st, _, errs := checkRun(filepath.Join(dir, "missing"), "-alg", "gcra"); st != 1 || !strings.Contains(errs, filepath.Join(dir, "missing")+": no such file") {
		t.Errorf("missing folder: status %d, %s", st, errs)
	}
	if st, _, errs := checkRun(t.TempDir(), "-alg", "gcra"); st != 1 || !strings.Contains(errs, "holds no summary.json") {
		t.Errorf("a folder with no summary: status %d, %s", st, errs)
	}
	if st, _, errs := checkRun(dir, "-alg", "nope"); st != 1 || !strings.Contains(errs, `"nope"`) || !strings.Contains(errs, "log, counter") {
		t.Errorf("unknown algorithm: status %d, %s", st, errs)
	}
	if st, _, _ := checkRun(dir); st != 2 {
		t.Errorf("no -alg: status %d, want 2", st)
	}
	if st, _, _ := checkRun(dir, "-alg", "gcra", "-max-over", "lots"); st != 2 {
		t.Errorf("malformed budget: status %d, want 2", st)
	}
}

// check reads the summary file it is given, whatever its name, not the
// summary.json beside it: here x.json breaks the default tolerances while
// the folder's summary.json, made under a looser budget, meets its own.
func TestCheckReadsTheFileNamed(t *testing.T) {
	strict, _ := compareCISample(t)
	dir, _ := compareCISample(t, "-max-over-of-refused", "80%", "-max-under-of-admitted", "1%")
	if st, _, errs := checkRun(dir, "-alg", "gcra"); st != 0 {
		t.Fatalf("the folder's summary no longer meets its own budget: status %d, %s", st, errs)
	}
	x := filepath.Join(dir, "x.json")
	data, err := os.ReadFile(filepath.Join(strict, summaryFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(x, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if st, out, _ := checkRun(x, "-alg", "gcra"); st != breachStatus || !strings.Contains(out, "✗ 5/30s, count accepted, independent: disagree_rate ") {
		t.Errorf("check %s: status %d, output\n%s; want %d and x.json's breach", x, st, out, breachStatus)
	}
	// Alone in its folder, it is read all the same.
	alone := filepath.Join(t.TempDir(), "x.json")
	if err := os.WriteFile(alone, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if st, _, errs := checkRun(alone, "-alg", "gcra"); st != breachStatus || strings.Contains(errs, summaryFile) {
		t.Errorf("check %s alone: status %d, %s", alone, st, errs)
	}
}

// compare -check gates the run it just wrote, with check's lines and
// statuses, the summary written in every case; an ALG of which the compare
// makes no run is a usage error before the replay, no folder made.
func TestCompareCheckExitStatus(t *testing.T) {
	for _, c := range []struct {
		name   string
		extra  []string
		status int
		line   string
	}{
		{"within", []string{"-check", "gcra", "-max-over-of-refused", "80%"}, 0, "✓ 5/30s, count accepted, independent: over_of_refused "},
		{"breach", []string{"-check", "gcra", "-max-over-of-refused", "10%"}, breachStatus, "✗ 5/30s, count accepted, independent: over_of_refused "},
		{"default", []string{"-check", "log"}, 0, "✓ 5/30s, count accepted, independent: disagree_rate 0% ≤ 0.1%"},
		{"absent", []string{"-check", "nope"}, 2, ""},
		{"not compared", []string{"-check", "gcra", "-alg", "log,token"}, 2, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "res")
			var out, errb bytes.Buffer
			err := run(&out, &errb, append([]string{"compare", ciSample, "-key", "host", "-ts", "time", "-mode", "independent", "-report=false", "-o", dir}, c.extra...))
			if st := exitStatus(err); st != c.status {
				t.Fatalf("status %d (%v), want %d\n%s", st, err, c.status, out.String())
			}
			if !strings.Contains(out.String(), c.line) {
				t.Errorf("output lacks %q:\n%s", c.line, out.String())
			}
			if c.status == 2 {
				if !strings.Contains(err.Error(), "-check \""+c.extra[1]+"\": this compare makes no run of that algorithm") {
					t.Errorf("got %v", err)
				}
				if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) || strings.Contains(errb.String(), "replaying") {
					t.Errorf("refused after the replay: %v\n%s", err, errb.String())
				}
				return
			}
			if _, err := summary.ReadSummaryFile(filepath.Join(dir, summaryFile)); err != nil {
				t.Errorf("the summary is not written: %v", err)
			}
		})
	}
}

// A budget flag given empty, or twice, is a usage error naming it, on
// check, report and compare alike (compare before the replay): it would
// otherwise bound nothing, or by its last value, without a word.
func TestBudgetFlagGivenOnceWithARate(t *testing.T) {
	dir, _ := compareCISample(t)
	for _, flag := range []string{"-max-over", "-max-under", "-max-over-of-refused", "-max-under-of-admitted"} {
		for _, tc := range []struct {
			given []string
			want  string
		}{
			{[]string{flag, ""}, `invalid value "" for flag ` + flag + ": the budget needs a rate"},
			{[]string{flag, " "}, `invalid value " " for flag ` + flag + ": the budget needs a rate"},
			{[]string{flag, "1%", flag + "=2%"}, `invalid value "2%" for flag ` + flag + `: the budget is given twice, as "1%" and as "2%"; give it once`},
			{[]string{flag, "1%", flag, "1%"}, `invalid value "1%" for flag ` + flag + `: the budget is given twice`},
		} {
			out := filepath.Join(t.TempDir(), "res")
			for _, args := range [][]string{
				append([]string{"check", "-alg", "gcra", dir}, tc.given...),
				append([]string{"report", dir}, tc.given...),
				append([]string{"compare", ciSample, "-key", "host", "-ts", "time", "-o", out}, tc.given...),
			} {
				var stdout, stderr bytes.Buffer
				err := run(&stdout, &stderr, args)
				if exitStatus(err) != 2 || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("%q: status %d (%v), want 2 and %q", args, exitStatus(err), err, tc.want)
				}
			}
			if _, err := os.Stat(out); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("compare %q made its folder", tc.given)
			}
		}
	}
}
