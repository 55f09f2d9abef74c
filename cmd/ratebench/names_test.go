package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A trace whose name holds a newline and a terminal escape: inspect,
// compare's replaying line and what it wrote, and the default results
// folder never print them as they are.
func TestFileNamesReachTheTerminalEscaped(t *testing.T) {
	const name = "evil\n\x1b[2Jname"
	dir := t.TempDir()
	trace := filepath.Join(dir, name+".csv")
	if err := os.WriteFile(trace, []byte("ts,key\n1,a\n2,b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	raw := func(s string) bool { return strings.Contains(s, "\x1b") || strings.Contains(s, "evil\n") }
	out, stderr, err := ratebench(t, "inspect", trace)
	if err != nil || raw(out+stderr) || !strings.Contains(out, `evil\n\x1b[2Jname.csv`) {
		t.Errorf("inspect: %v\n%q", err, out)
	}
	wd, _ := os.Getwd()
	t.Cleanup(func() { os.Chdir(wd) })
	os.Chdir(dir) // the default folder: results/runs/<name>, here
	out, stderr, err = ratebench(t, "compare", trace, "-alg", "log,counter", "-report=false")
	if err != nil || raw(out+stderr) || !strings.Contains(stderr, `replaying `+dir+`/evil\n\x1b[2Jname.csv into results/runs/evil---2Jname`) {
		t.Errorf("compare: %v\nstdout %q\nstderr %q", err, out, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, runsDir, "evil---2Jname", summaryFile)); err != nil {
		t.Errorf("default folder: %v", err)
	}
	if got := visibleError("open " + trace + ": no such file"); raw(got) {
		t.Errorf("an error is printed as %q", got)
	}
}

// compare on a trace of no request fails, naming the file, and writes
// nothing: no verdict on 0 requests. A shard that holds none of a larger
// trace's keys is written.
func TestCompareRefusesAnEmptyTrace(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{"empty.csv": "ts,key\n", "bad.csv": "ts,key\nnot-a-time,a\n"} {
		trace := filepath.Join(dir, name)
		os.WriteFile(trace, []byte(content), 0o644)
		out := filepath.Join(dir, "out-"+name)
		stdout, _, err := ratebench(t, "compare", trace, "-skip-bad", "-o", out)
		if err == nil || !strings.Contains(err.Error(), trace+" holds no requests: nothing to compare") {
			t.Errorf("%s: %v", name, err)
		}
		if strings.Contains(stdout, "Verdict") {
			t.Errorf("%s: a verdict on no request:\n%s", name, stdout)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: wrote %s", name, out)
		}
	}
	out := filepath.Join(dir, "shard")
	if _, _, err := ratebench(t, "compare", "testdata/small.csv", "-shard", "0/1000", "-report=false", "-o", out); err != nil {
		t.Errorf("an empty shard: %v", err)
	}
}
