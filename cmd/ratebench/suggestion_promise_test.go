package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"ratebench/internal/numfmt"
	"ratebench/summary"
)

// flagValue returns the value of the flag -name in words, and whether it
// is there.
func flagValue(words []string, name string) (string, bool) {
	i := slices.Index(words, "-"+name)
	if i < 0 || i+1 >= len(words) {
		return "", false
	}
	return words[i+1], true
}

// movedOut checks that the words of a command suggested by the report in
// the folder of report write to a folder they name, of their own: under
// results/runs/, not the report's; it returns the words with that folder
// moved to dir (given to them if they name none), for the test to write
// there.
func movedOut(t *testing.T, report string, words []string, dir string) []string {
	t.Helper()
	out, ok := flagValue(words, "o")
	if from := filepath.Base(filepath.Dir(report)); !ok || !strings.HasPrefix(out, summary.RunsDir+"/") || filepath.Base(out) == from {
		t.Errorf("%s: %q writes to %q, not a folder of its own under %s", report, words, out, summary.RunsDir)
	}
	if !ok {
		return append(slices.Clone(words), "-o", dir)
	}
	moved := slices.Clone(words)
	moved[slices.Index(moved, "-o")+1] = dir
	return moved
}

// keepsTighterPromise checks that the compare command words, suggested
// on the run of orig at its tighter limits, gives the refusals the
// sentence promised: the log of got, its run, refuses at each limit
// exactly as many requests as orig's binding says under count all, at
// most that many under count accepted.
func keepsTighterPromise(t *testing.T, orig, got *summary.Summary, words []string) {
	t.Helper()
	rules, _ := flagValue(words, "rule")
	count, ok := flagValue(words, "count")
	if !ok {
		count = "accepted"
	}
	var promise *summary.Binding
	for i := range orig.Bindings {
		b := &orig.Bindings[i]
		var tighter []string
		for _, tl := range b.Tighter {
			tighter = append(tighter, tl.Rule)
		}
		if b.Count == count && strings.Join(tighter, ",") == rules {
			promise = b
		}
	}
	if promise == nil {
		t.Fatalf("%q: no binding of the run suggests -rule %s under count %s", words, rules, count)
	}
	for _, tl := range promise.Tighter {
		var log *summary.Run
		for i := range got.Runs {
			if r := &got.Runs[i]; r.Algorithm == "log" && r.Rule == tl.Rule && r.Count == count {
				log = r
			}
		}
		switch {
		case log == nil:
			t.Errorf("%q: no log run at %s, count %s", words, tl.Rule, count)
		case count == "all" && log.Rejected != tl.Refused, count != "all" && log.Rejected > tl.Refused:
			t.Errorf("%q: the log refuses %d requests at %s under count %s; the run promised %d (%s, upper bound %v)",
				words, log.Rejected, tl.Rule, count, tl.Refused, numfmt.Percent(tl.Share), tl.UpperBound)
		}
	}
}

// unchanged returns a check that the files of dir are as they are now.
func unchanged(t *testing.T, dir string) func() {
	t.Helper()
	read := func() map[string][]byte {
		files := map[string][]byte{}
		for _, name := range []string{summaryFile, "report.md"} {
			data, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			files[name] = data
		}
		return files
	}
	before := read()
	return func() {
		t.Helper()
		for name, data := range read() {
			if !bytes.Equal(data, before[name]) {
				t.Errorf("%s was rewritten by a suggested command", filepath.Join(dir, name))
			}
		}
	}
}

// Every command the committed reports and a run on a coarse log suggest
// runs as pasted, with the program named as it was invoked (bin/ratebench
// on the terminal, ratebench in a report), writes to a folder of its own
// and gives the figures its sentence promises: a tighter limit's
// refusals, exactly under count all and at most under count accepted, in
// the same placements of a clock too coarse for the rule, under the same
// budget; explain explains its key; the folder of the run it came from is
// left as it was.
func TestSuggestionsKeepTheirPromise(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip(err)
	}
	bin := buildCommand(t, t.TempDir())

	t.Run("committed reports", func(t *testing.T) {
		sh := suggestedShell{bin: bin, dir: t.TempDir()}
		reports, err := filepath.Glob(filepath.Join("..", "..", "results", "*", "report.md"))
		if err != nil || len(reports) < 10 {
			t.Fatalf("%d reports in results/: %v", len(reports), err)
		}
		ran := 0
		for _, f := range reports {
			md, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, line := range suggested(reportCommand, string(md)) {
				words := pasteBack(t, line)
				if words[0] != "compare" {
					continue // explain: TestCommittedReportsCommandsParse; report: a placeholder DIR
				}
				orig, err := summary.ReadSummaryFile(filepath.Join(filepath.Dir(f), summaryFile))
				if err != nil {
					t.Fatal(err)
				}
				out := filepath.Join(sh.dir, "out", filepath.Base(filepath.Dir(f)))
				sh.mustRun(t, "ratebench "+shellQuote(movedOut(t, f, words, out)))
				got, err := summary.ReadSummaryFile(filepath.Join(out, summaryFile))
				if err != nil {
					t.Fatal(err)
				}
				keepsTighterPromise(t, orig, got, words)
				if !slices.Equal(got.Config.Modes, orig.Config.Modes) {
					t.Errorf("%s: %s runs the modes %v, the run %v", f, line, got.Config.Modes, orig.Config.Modes)
				}
				ran++
			}
		}
		if ran == 0 {
			t.Errorf("no committed report suggests a compare")
		}
	})

	t.Run("coarse log", func(t *testing.T) {
		sh := suggestedShell{bin: bin, dir: t.TempDir()}
		trace, err := os.ReadFile(filepath.Join("..", "..", "traces", "samples", "nasa.tsv"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(sh.dir, "nasa.tsv"), trace, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(filepath.Join(sh.dir, "bin"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(bin, filepath.Join(sh.dir, "bin", "ratebench")); err != nil {
			t.Fatal(err)
		}
		const read = "-key host -ts time"

		// Whole-second stamps, too coarse for 30/1m, which hardly binds:
		// 2 placements from seed 3, a budget, both count policies, into a
		// folder whose name needs quoting.
		out, _ := sh.mustRun(t, "bin/ratebench compare nasa.tsv "+read+" -rule 30/1m -count accepted,all -max-over 0.5% -placements 2 -placement-seed 3 -o 'out/nasa run'")
		results := filepath.Join(sh.dir, "out", "nasa run")
		orig, err := summary.ReadSummaryFile(filepath.Join(results, summaryFile))
		if err != nil {
			t.Fatal(err)
		}
		if orig.Trace.Placements == nil || len(orig.Bindings) != 2 {
			t.Fatalf("30/1m on whole seconds: placements %v, %d bindings", orig.Trace.Placements, len(orig.Bindings))
		}
		same := unchanged(t, results)
		check := func(t *testing.T, line, where string) {
			t.Helper()
			words := pasteBack(t, line)
			for _, want := range []string{"-trace nasa.tsv " + read + " -rule ", "-max-over 0.5% -placements 2 -placement-seed 3 -o " + where} {
				if !strings.Contains(strings.Join(words, " "), want) {
					t.Errorf("%s\nlacks %s", line, want)
				}
			}
			dir, _ := flagValue(words, "o")
			sh.mustRun(t, line)
			got, err := summary.ReadSummaryFile(filepath.Join(sh.dir, dir, summaryFile))
			if err != nil {
				t.Fatal(err)
			}
			keepsTighterPromise(t, orig, got, words)
			if pl := got.Trace.Placements; pl == nil || pl.Count != 2 || pl.Seed != 3 || got.Config.Budget == nil || *got.Config.Budget.MaxOver != 0.005 {
				t.Errorf("%s\nplacements %+v, budget %+v", line, pl, got.Config.Budget)
			}
			same()
		}

		// The terminal calls the program as it was invoked, and names a
		// folder after the run's.
		terminal := regexp.MustCompile(`(?m): (bin/ratebench compare .*)$`)
		lines := suggested(terminal, out)
		if len(lines) != 2 || strings.Contains(out, ": ratebench compare") {
			t.Fatalf("the terminal suggests %q\n%s", lines, out)
		}
		for _, b := range orig.Bindings {
			for _, tl := range b.Tighter {
				if !strings.Contains(out, tl.Rule+" ") || !strings.Contains(out, numfmt.Percent(tl.Share)) {
					t.Errorf("the terminal does not promise %s its %s", tl.Rule, numfmt.Percent(tl.Share))
				}
			}
		}
		for _, line := range lines {
			check(t, strings.Replace(line, "bin/ratebench", "ratebench", 1), "out/nasa run-")
			sh.mustRun(t, line) // as printed, with bin/ratebench
		}

		// The report calls it ratebench, and names a folder after the
		// default of the trace, results/runs/nasa: here the run's own,
		// which its suggestions leave as it is.
		sh.mustRun(t, "ratebench compare nasa.tsv "+read+" -rule 30/1m -count accepted,all -max-over 0.5% -placements 2 -placement-seed 3")
		results = filepath.Join(sh.dir, summary.RunsDir, "nasa")
		same = unchanged(t, results)
		md, err := os.ReadFile(filepath.Join(results, "report.md"))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, line := range suggested(reportCommand, string(md)) {
			if strings.HasPrefix(line, "ratebench compare") {
				check(t, line, summary.RunsDir+"/nasa-")
				n++
			}
		}
		if n != 2 {
			t.Errorf("the report suggests %d compare commands, want 2 (one a count policy)", n)
		}

		// At 10/1m the algorithms disagree: the report's explain commands
		// explain their key into folders of their own.
		sh.mustRun(t, "ratebench compare nasa.tsv "+read+" -rule 10/1m")
		results = filepath.Join(sh.dir, summary.RunsDir, "nasa")
		same = unchanged(t, results)
		md, err = os.ReadFile(filepath.Join(results, "report.md"))
		if err != nil {
			t.Fatal(err)
		}
		n = 0
		for _, line := range suggested(reportCommand, string(md)) {
			words := pasteBack(t, line)
			if words[0] != "explain" {
				continue
			}
			n++
			key, _ := flagValue(words, "key")
			dir, _ := flagValue(words, "o")
			out, _ := sh.mustRun(t, line)
			if !strings.Contains(out, "key "+key+": ") {
				t.Errorf("%s\ndoes not explain the key %s:\n%s", line, key, out)
			}
			if _, err := os.Stat(filepath.Join(sh.dir, dir, "explain.svg")); err != nil || !strings.HasPrefix(dir, summary.RunsDir+"/nasa-explain-") {
				t.Errorf("%s\nwrites no explain.svg to a folder of its own: %v", line, err)
			}
			same()
		}
		if n == 0 {
			t.Errorf("the report of 10/1m suggests no explain")
		}
	})
}
