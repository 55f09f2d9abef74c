package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func diffCmd(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(&out, &errb, append([]string{"diff"}, args...))
	return out.String(), err
}

// A committed summary against itself, given once as a folder and once as
// its summary.json: every run matched, every delta 0.
func TestDiffCommittedSelf(t *testing.T) {
	out, err := diffCmd(t, "../../results/mix", "-b", "../../results/mix/summary.json")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`\n24 runs matched, 0 only in A, 0 only in B\.\n`).MatchString(out) {
		t.Fatalf("output:\n%s", out)
	}
	tables := 0
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) > 0 && f[0] == "rule":
			tables++
		case len(f) > 4 && f[0] == "5/30s":
			if f[len(f)-1] != "0" {
				t.Errorf("a delta that is not 0: %q", line)
			}
		}
	}
	if tables < 8 {
		t.Errorf("%d tables:\n%s", tables, out)
	}
}

// Two committed traces under the same rule: matched run by run, the page
// written with -o; two rules of a sweep, by -rule-a and -rule-b.
func TestDiffCommitted(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "d")
	out, err := diffCmd(t, "-o", dir, "../../results/poisson", "../../results/pareto")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"note: The traces differ: A replayed gen:poisson:", "8 runs matched, 0 only in A, 0 only in B.",
		"\ndisagree\nrule   count     mode         algorithm ", "\nwrote " + filepath.Join(dir, "diff.html") + "\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, f := range []string{"diff.md", "diff.html"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil || !bytes.Contains(b, []byte("counter-floor")) {
			t.Errorf("%s: %v", f, err)
		}
	}

	out, err = diffCmd(t, "-rule-a", "5/10s", "-rule-b", "5/1m", "../../results/mix-sweep", "../../results/mix-sweep")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"A's rule 5/10s is set against B's rule 5/1m", "5 runs matched, 0 only in A, 0 only in B.", "5/10s → 5/1m  accepted  independent  counter"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestDiffErrors(t *testing.T) {
	empty := t.TempDir()
	for _, c := range []struct {
		args  []string
		usage bool
		want  string
	}{
		{[]string{"../../results/mix"}, true, "want A and B"},
		{[]string{"../../results/mix", "-a", "../../results/mix", "../../results/mix"}, true, "given twice"},
		{[]string{"-rule-a", "9/9s", "../../results/mix", "../../results/mix"}, true, "its rules are 5/30s"},
		{[]string{empty, "../../results/mix"}, false, "holds no summary.json"},
		{[]string{"../../results/mix", filepath.Join(empty, "nope.json")}, false, "no such file"},
	} {
		_, err := diffCmd(t, c.args...)
		var ue usageError
		if err == nil || errors.As(err, &ue) != c.usage || !strings.Contains(err.Error(), c.want) {
			t.Errorf("diff %q: err = %v, want %q (usage error: %v)", c.args, err, c.want, c.usage)
		}
	}
}

// handEdited writes testdata/small.summary.json into a folder of dir named
// name, with each old text replaced by its new one (once), and returns the
// folder.
func handEdited(t *testing.T, dir, name string, edits ...string) string {
	t.Helper()
	data, err := os.ReadFile("testdata/small.summary.json")
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for i := 0; i+1 < len(edits); i += 2 {
		if !strings.Contains(text, edits[i]) {
			t.Fatalf("no %q in the summary", edits[i])
		}
		text = strings.Replace(text, edits[i], edits[i+1], 1)
	}
	folder := filepath.Join(dir, name)
	if err := os.MkdirAll(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(folder, "summary.json"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return folder
}

// diff refuses a hand-edited summary whose figures no replay writes (a
// rate of 750%, a negative count, a rule that does not parse, a missing
// section), naming the file and the field, rather than show them.
func TestDiffRefusesHandEditedSummaries(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		edits []string
		want  string
	}{
		{[]string{`"disagree_rate": 0.2955,`, `"disagree_rate": 7.5,`}, "runs[1].disagree_rate: 7.5 is more than 1"},
		{[]string{`"rejected": 832,`, `"rejected": -832,`}, "runs[0].rejected: -832 is negative"},
		{[]string{`"rules": ["5/30s","10/1m"]`, `"rules": ["5/30s","10/1x"]`}, `config.rules[1]: rules "10/1x"`},
		{[]string{`"bins": 20,`, `"bins": -1,`}, "runs[0].phase.bins: -1 is not a number of bins"},
		{[]string{`"trace": {`, `"trace_": {`}, "trace: missing"},
	} {
		b := handEdited(t, dir, "edited", c.edits...)
		_, err := diffCmd(t, "testdata/small.summary.json", b)
		if want := filepath.Join(b, "summary.json") + ": " + c.want; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err = %v, want %q", c.edits, err, want)
		}
	}
}
