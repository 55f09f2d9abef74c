package main

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"ratebench/algorithms"
	"ratebench/compare"
	"ratebench/compare/resultsdir"
	"ratebench/compare/resultsdir/resultsdirtest"
	"ratebench/report"
	"ratebench/summary"
	"ratebench/traces"
)

// A folder another run holds is refused at once, and left as it was.
func TestCompareIntoALockedFolderFailsFast(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := ratebench(t, "compare", "-trace", "testdata/small.csv", "-alg", "log,counter", "-png=false", "-o", dir); err != nil {
		t.Fatal(err)
	}
	before := resultsdirtest.Files(t, dir)
	held, err := resultsdir.Lock(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"compare", "-trace", "testdata/small.csv", "-alg", "log,counter", "-png=false", "-o", dir},
		{"report", dir},
		{"merge", "-o", dir, dir},
		{"live", "redis:log", "-trace", "testdata/small.csv", "-o", dir},
	} {
		_, stderr, err := ratebench(t, args...)
		if err == nil || !strings.Contains(err.Error(), dir+" is in use: another ratebench (process ") {
			t.Errorf("%q into a locked folder: %v", args, err)
		}
		if strings.Contains(stderr, "replaying") {
			t.Errorf("%q replayed the trace before it failed", args)
		}
	}
	held.Close()
	sameFiles(t, dir, before) // the lock file and staging folder gone too
	if _, _, err := ratebench(t, "compare", "-trace", "testdata/small.csv", "-alg", "log,counter", "-png=false", "-o", dir); err != nil {
		t.Errorf("once released: %v", err)
	}
	after := resultsdirtest.Files(t, dir)
	after[resultsdir.PerfFile] = before[resultsdir.PerfFile] // timings
	if strings.Join(sortedKeys(after), " ") != strings.Join(sortedKeys(before), " ") {
		t.Errorf("after a rerun the folder holds %v, before %v", sortedKeys(after), sortedKeys(before))
	}
	for name, b := range before {
		if after[name] != b {
			t.Errorf("%s differs after a rerun", name)
		}
	}
}

// A trace is the same by what it is, not by the path it was given as:
// standard input never is, a file by any path is, a file changed since is
// not.
func TestResultsOfAnotherTrace(t *testing.T) {
	dir := t.TempDir()
	res := filepath.Join(dir, "res")
	small, _ := filepath.Abs("testdata/small.csv")
	args := func(trace string, more ...string) []string {
		return append([]string{"compare", "-trace", trace, "-alg", "log,counter", "-report=false", "-o", res}, more...)
	}
	if _, _, err := ratebench(t, args("testdata/small.csv")...); err != nil {
		t.Fatal(err)
	}
	copyPath := filepath.Join(dir, "copy.csv")
	data, _ := os.ReadFile(small)
	os.WriteFile(copyPath, data, 0o644)
	for _, p := range []string{small, copyPath, "./testdata/small.csv"} {
		if _, _, err := ratebench(t, args(p)...); err != nil {
			t.Errorf("the same trace as %s: %v", p, err)
		}
	}
	before := resultsdirtest.Files(t, res)
	withStdin(t, small, func() {
		_, _, err := ratebench(t, args("-", "-format", "csv")...)
		if err == nil || !strings.Contains(err.Error(), "holds the results of another trace (\"./testdata/small.csv\"), and standard input cannot be told the same; use -force") {
			t.Errorf("standard input over a file's results: %v", err)
		}
	})
	sameFiles(t, res, before)
	withStdin(t, small, func() {
		if _, _, err := ratebench(t, args("-", "-format", "csv", "-force")...); err != nil {
			t.Errorf("standard input with -force: %v", err)
		}
	})
	if _, _, err := ratebench(t, args(small)...); err == nil || !strings.Contains(err.Error(), "holds the results of a trace read from standard input") {
		t.Errorf("a file over standard input's results: %v", err)
	}
	if _, _, err := ratebench(t, args(copyPath, "-force")...); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(copyPath, append(data, "1704067999000000000,client-01,1\n"...), 0o644)
	if _, _, err := ratebench(t, args(copyPath)...); err == nil || !strings.Contains(err.Error(), "holds the results of "+strconv.Quote(copyPath)+" as it was before: its content has changed since") {
		t.Errorf("a changed file: %v", err)
	}
}

// compare -report=false writes a summary and leaves no report of earlier
// results beside it; report rewrites one from the summary alone.
func TestNoReportLeavesNoStaleReport(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := ratebench(t, "compare", "-trace", "testdata/small.csv", "-alg", "log,counter", "-png=false", "-o", dir); err != nil {
		t.Fatal(err)
	}
	mine := filepath.Join(dir, "plots", "notes.txt") // not the report's
	os.WriteFile(mine, []byte("mine"), 0o644)
	if _, _, err := ratebench(t, "compare", "-trace", "testdata/small.csv", "-alg", "log,counter", "-rule", "10/1m", "-report=false", "-o", dir); err != nil {
		t.Fatal(err)
	}
	got := resultsdirtest.Files(t, dir)
	if len(got) != 3 || got[summaryFile] == "" || got[resultsdir.PerfFile] == "" || got[filepath.Join("plots", "notes.txt")] != "mine" {
		t.Errorf("after -report=false the folder holds %d files: %v", len(got), sortedKeys(got))
	}
	if _, _, err := ratebench(t, "report", "-png=false", dir); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, report.MarkdownFile))
	if err != nil || !strings.Contains(string(md), "## Rule 10/1m") || strings.Contains(string(md), "5/30s") {
		t.Errorf("the rewritten report is not of the summary: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, resultsdir.LockFile)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("report left its lock file: %v", err)
	}
}

func sortedKeys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// A write that fails part way through a replay's results (a full disk)
// leaves the folder's earlier set as it was: no new summary beside the
// old report, no new plot, no staging folder, no lock file.
func TestFailedWriteLeavesTheEarlierSet(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := ratebench(t, "compare", "-trace", "testdata/small.csv", "-rule", "5/30s", "-alg", "log,counter", "-png=false", "-o", dir); err != nil {
		t.Fatal(err)
	}
	before := resultsdirtest.Files(t, dir)
	for _, failing := range []string{summaryFile, resultsdir.PerfFile, "divergence_", report.MarkdownFile, report.HTMLFile} {
		var calls atomic.Int64
		job := testJob(t, dir, "10/1m")
		job.writeFile = func(path string, data []byte) error {
			calls.Add(1)
			if strings.HasPrefix(filepath.Base(path), failing) {
				return errors.New("no space left on device")
			}
			return summary.WriteFileAtomic(path, data)
		}
		err := job.run()
		if err == nil || !strings.Contains(err.Error(), "no space left on device") {
			t.Errorf("failing %s: %v", failing, err)
		}
		if calls.Load() == 0 {
			t.Errorf("failing %s: nothing was written", failing)
		}
		sameFiles(t, dir, before)
	}
	// The same job, writes succeeding: the new set in place of the old.
	job := testJob(t, dir, "10/1m")
	if err := job.run(); err != nil {
		t.Fatal(err)
	}
	after := resultsdirtest.Files(t, dir)
	if !strings.Contains(after[summaryFile], `"10/1m"`) || !strings.Contains(after[report.MarkdownFile], "## Rule 10/1m") ||
		after[filepath.Join("plots", "divergence_10-1m_accepted_shadow.svg")] == "" {
		t.Error("the new set is not in place")
	}
	for name := range after {
		if strings.Contains(name, "5-30s") {
			t.Errorf("stale plot %s left", name)
		}
	}
}

// testJob is the job of compare -trace testdata/small.csv -rule RULE -alg
// log,counter -png=false -o dir.
func testJob(t *testing.T, dir, rule string) replayJob {
	t.Helper()
	r, err := traces.Open("testdata/small.csv", traces.FormatAuto, traces.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	rl, err := algorithms.ParseRule(rule)
	if err != nil {
		t.Fatal(err)
	}
	eng, err := compare.New(compare.Config{Rules: []algorithms.Rule{rl}, Algorithms: []string{"log", "counter"}, TopKeys: 10})
	if err != nil {
		t.Fatal(err)
	}
	info := summary.TraceInfo{Path: "testdata/small.csv", Format: "csv", Fingerprint: resultsdir.Fingerprint("testdata/small.csv")}
	return replayJob{stdout: io.Discard, stderr: io.Discard, eng: eng, r: r, info: info, dir: dir,
		report: true, reportOpt: report.Options{NoPNG: true}}
}

// Without -o, compare and cloudflare write under results/runs/, which git
// ignores: never into the committed reference results (results/<scenario>/,
// results/cloudflare/), even for a trace or a scenario of the same name.
func TestRunsGoToResultsRuns(t *testing.T) {
	trace, err := filepath.Abs("testdata/small.csv")
	if err != nil {
		t.Fatal(err)
	}
	ignore, err := os.ReadFile("../../.gitignore")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	if _, stderr, err := ratebench(t, "compare", trace, "-alg", "counter", "-mode", "independent", "-report=false"); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if _, stderr, err := ratebench(t, "compare", "-gen", "poisson:requests=300,keys=3", "-alg", "counter", "-report=false"); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if _, stderr, err := ratebench(t, "cloudflare", "-requests", "3000", "-sources", "30", "-rate", "2", "-workers", "1"); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	for _, f := range []string{"results/runs/small/summary.json", "results/runs/poisson/summary.json", "results/runs/cloudflare/summary.json", "results/runs/cloudflare/README.md"} {
		if _, err := os.Stat(f); err != nil {
			t.Error(err)
		}
	}
	entries, _ := os.ReadDir("results")
	if len(entries) != 1 || entries[0].Name() != "runs" {
		t.Errorf("results/ holds %v, want runs/ alone", entries)
	}
	if !slices.Contains(strings.Split(string(ignore), "\n"), "/"+runsDir+"/") {
		t.Errorf("the repository's .gitignore does not ignore /%s/", runsDir)
	}
}
