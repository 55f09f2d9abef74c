package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"ratebench/summary"
)

// reportCommand finds the commands a report suggests: its code spans that
// start with ratebench.
var reportCommand = regexp.MustCompile("`(ratebench [^`]+)`")

// terminalCommand finds the commands terminal output suggests: a line's
// rest after ": ratebench SUBCOMMAND".
var terminalCommand = regexp.MustCompile(`(?m): (ratebench (?:compare|explain|inspect|report) .*)$`)

// suggestedShell runs the command lines ratebench suggests, as a user
// pastes them into bash, with ratebench the binary under test on the PATH
// (its folder first), in a folder of their own (where a command without
// -o writes its results).
type suggestedShell struct {
	bin, dir string
}

// run runs line, returning its standard output and error and whether it
// exited 0.
func (sh suggestedShell) run(t *testing.T, line string) (stdout, stderr string, ok bool) {
	t.Helper()
	cmd := exec.Command("bash", "-c", line)
	cmd.Dir = sh.dir
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(sh.bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	return out.String(), errb.String(), err == nil
}

// mustRun runs line and fails the test unless it exits 0.
func (sh suggestedShell) mustRun(t *testing.T, line string) (stdout, stderr string) {
	t.Helper()
	stdout, stderr, ok := sh.run(t, line)
	if !ok {
		t.Fatalf("%s\nfailed:\n%s%s", line, stdout, stderr)
	}
	return stdout, stderr
}

// suggested returns the commands of text that re (reportCommand or
// terminalCommand) finds, in order.
func suggested(re *regexp.Regexp, text string) []string {
	var out []string
	for _, m := range re.FindAllStringSubmatch(text, -1) {
		out = append(out, m[1])
	}
	return out
}

// runReportCommands runs every command the report in results suggests and
// checks that each does what the report says it does: explain lists the
// key's requests and draws them, report re-renders with a budget. It
// returns the commands run.
func (sh suggestedShell) runReportCommands(t *testing.T, results string) []string {
	t.Helper()
	md, err := os.ReadFile(filepath.Join(results, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	cmds := suggested(reportCommand, string(md))
	for _, line := range cmds {
		words := pasteBack(t, strings.ReplaceAll(line, " DIR", " "+shellQuote([]string{results})))
		switch words[0] {
		case "explain":
			out, _ := sh.mustRun(t, line)
			key := words[slices.Index(words, "-key")+1]
			if !strings.Contains(out, "key "+key+": ") || !strings.Contains(out, "explain.svg") {
				t.Errorf("%s\ndoes not explain the key %s:\n%s", line, key, out)
			}
		case "report":
			sh.mustRun(t, strings.ReplaceAll(line, " DIR", " "+shellQuote([]string{results})))
			md, _ := os.ReadFile(filepath.Join(results, "report.md"))
			if !strings.Contains(string(md), "Budget (") {
				t.Errorf("%s\nleaves the report without a budget", line)
			}
		default:
			sh.mustRun(t, line)
		}
	}
	return cmds
}

// inputArgs returns the input flags s records, as flag=value.
func inputArgs(s *summary.Summary) []string {
	var out []string
	for _, a := range s.Trace.Input {
		out = append(out, a.Flag+"="+a.Value)
	}
	return out
}

// Every command the terminal and the report suggest on a trace that needs
// input flags runs, reads the trace as the replay did and does what it
// says: on an access log out of order by up to 59 s whose first going-back
// is 35 s, with a broken line, compare, explain and inspect all advise
// -reorder 59s with a command that replays it so (with -format and
// -skip-bad); the report's explain and budget commands run; so do they on
// a header-less CSV (-columns, -sep, -ts-unit) and JSON lines (-key, -ts).
func TestSuggestedCommandsRun(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip(err)
	}
	bin := buildCommand(t, t.TempDir())
	newShell := func(t *testing.T) suggestedShell { return suggestedShell{bin: bin, dir: t.TempDir()} }

	t.Run("access log", func(t *testing.T) {
		sh := newShell(t)
		// The first 300 lines of a public combined-format access log,
		// and a line broken in two after its 40th.
		data, err := os.ReadFile(filepath.Join("testdata", "access_out_of_order.log"))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.SplitAfter(string(data), "\n")
		broken := strings.SplitAfterN(lines[40], `"GET`, 2)
		lines[40] = broken[0] + "\n"
		lines = slices.Insert(lines, 41, broken[1])
		trace := filepath.Join(sh.dir, "access log.txt")
		if err := os.WriteFile(trace, []byte(strings.Join(lines, "")), 0o644); err != nil {
			t.Fatal(err)
		}
		q := shellQuote([]string{trace})
		const advice = "use -reorder 59s, the most a request of the trace comes after a later one (as ratebench inspect reports it): "

		out, errs, ok := sh.run(t, "ratebench compare -format accesslog -skip-bad -rule 10/1m "+q)
		if ok || !strings.Contains(errs, "time goes backwards by 35s") || !strings.Contains(errs, advice) {
			t.Fatalf("compare out of order: ok %v\n%s%s", ok, out, errs)
		}
		rerun := suggested(terminalCommand, errs)
		if len(rerun) != 1 {
			t.Fatalf("compare suggests %q", rerun)
		}
		if got := strings.Join(pasteBack(t, rerun[0]), " "); got != "compare -trace "+trace+" -format accesslog -reorder 59s -skip-bad -rule 10/1m" {
			t.Errorf("compare suggests %s", got)
		}
		out, _ = sh.mustRun(t, rerun[0])
		if !strings.Contains(out, "skipped 2 bad records") {
			t.Errorf("%s\nskips no line:\n%s", rerun[0], out)
		}
		results := filepath.Join(sh.dir, "results", "runs", "access log")
		s, err := summary.ReadSummaryFile(filepath.Join(results, "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(inputArgs(s), " "); got != "format=accesslog reorder=59s skip-bad=true" || s.Trace.Requests != 299 || s.Trace.Skipped != 2 {
			t.Errorf("summary: input %s, %d requests, %d skipped", got, s.Trace.Requests, s.Trace.Skipped)
		}
		if cmds := sh.runReportCommands(t, results); !slices.ContainsFunc(cmds, func(c string) bool {
			return strings.HasPrefix(c, "ratebench explain -trace "+q+" -format accesslog -reorder 59s -skip-bad -key ")
		}) {
			t.Errorf("the report suggests no explain with the input flags: %q", cmds)
		}

		out, _ = sh.mustRun(t, "ratebench inspect -format accesslog -skip-bad "+q)
		if !strings.Contains(out, "compare needs -reorder 59s: ") {
			t.Errorf("inspect:\n%s", out)
		}
		for _, line := range suggested(terminalCommand, out) {
			sh.mustRun(t, line+" -o out-inspect")
		}
		// With a -reorder too small, inspect advises what the file needs.
		out, _ = sh.mustRun(t, "ratebench inspect -format accesslog -skip-bad -reorder 30s "+q)
		if cmds := suggested(terminalCommand, out); !strings.Contains(out, "compare needs -reorder 59s: ") || len(cmds) != 1 {
			t.Errorf("inspect -reorder 30s:\n%s", out)
		} else {
			sh.mustRun(t, cmds[0]+" -o out-inspect-30s")
		}

		// From standard input, which cannot be read twice, compare gives
		// the least the request needs and points to inspect.
		out, errs, ok = sh.run(t, "ratebench compare -format accesslog -skip-bad -rule 10/1m -o out-stdin - < "+q)
		if ok || !strings.Contains(errs, "use -reorder 35s (ratebench inspect FILE reports the least that works)") {
			t.Errorf("compare from standard input: ok %v\n%s%s", ok, out, errs)
		}

		out, errs, ok = sh.run(t, "ratebench explain -format accesslog -skip-bad -key 83.149.9.216 -rule 10/1m "+q)
		if ok || !strings.Contains(errs, advice) {
			t.Fatalf("explain out of order: ok %v\n%s%s", ok, out, errs)
		}
		for _, line := range suggested(terminalCommand, errs) {
			if out, _ := sh.mustRun(t, line); !strings.Contains(out, "key 83.149.9.216: ") {
				t.Errorf("%s\ndoes not explain the key:\n%s", line, out)
			}
		}
	})

	// Three keys at one request a second, offset by a third of a second:
	// under 5/30s the approximations disagree with the log.
	steady := func(line func(ts float64, key string) string) string {
		var b strings.Builder
		for i := range 120 {
			for k, key := range []string{"u1", "u2", "u3"} {
				b.WriteString(line(1700000000+float64(i)+float64(k)/3, key))
			}
		}
		return b.String()
	}
	for _, c := range []struct {
		name, file, flags, body, input string
	}{
		{"header-less CSV", "events.txt", "-columns ts,_,key -sep ';' -ts-unit s",
			steady(func(ts float64, key string) string { return fmt.Sprintf("%.3f;GET;%s\n", ts, key) }),
			"ts-unit=s columns=ts,_,key sep=;"},
		{"JSON lines", "events.jsonl", "-key user -ts at",
			steady(func(ts float64, key string) string { return fmt.Sprintf(`{"at": %.3f, "user": %q}`+"\n", ts, key) }),
			"key=user ts=at"},
	} {
		t.Run(c.name, func(t *testing.T) {
			sh := newShell(t)
			trace := filepath.Join(sh.dir, c.file)
			if err := os.WriteFile(trace, []byte(c.body), 0o644); err != nil {
				t.Fatal(err)
			}
			results := filepath.Join(sh.dir, "out")
			out, errs := sh.mustRun(t, "ratebench compare "+c.flags+" -o out "+shellQuote([]string{trace}))
			for _, line := range suggested(terminalCommand, out+errs) {
				sh.mustRun(t, line)
			}
			s, err := summary.ReadSummaryFile(filepath.Join(results, "summary.json"))
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(inputArgs(s), " "); got != c.input {
				t.Errorf("input_args %s, want %s", got, c.input)
			}
			cmds := sh.runReportCommands(t, results)
			if !slices.ContainsFunc(cmds, func(c string) bool { return strings.HasPrefix(c, "ratebench explain") }) {
				t.Errorf("the report suggests no explain: %q", cmds)
			}
		})
	}
}

// committedPlaceholders are the words the committed reports write for what
// the reader fills in, with values that do: the results folder, a rate, an
// exponent, a most.
var committedPlaceholders = map[string]string{"DIR": "results/poisson", "R": "0.5", "A": "1.5", "M": "4"}

// Every command the committed reports and READMEs of results/ suggest
// parses: its subcommand exists and accepts each of its flags, with its
// value (the command line is parsed up to a -h put at its end, which then
// stops it). Those that replay one key of a generated trace of at most a
// million requests are run, and explain the key.
func TestCommittedReportsCommandsParse(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "results", "*", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	deeper, _ := filepath.Glob(filepath.Join("..", "..", "results", "*", "*", "*.md"))
	files = append(files, deeper...)
	smallGen := regexp.MustCompile(`-gen \S*requests=(\d+)\b`)
	seen, ran := 0, 0
	for _, f := range files {
		md, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range suggested(reportCommand, string(md)) {
			seen++
			words := pasteBack(t, line)
			for i, w := range words {
				if v, ok := committedPlaceholders[w]; ok {
					words[i] = v
				}
			}
			if _, _, err := ratebench(t, append(slices.Clone(words), "-h")...); !errors.Is(err, flag.ErrHelp) {
				t.Errorf("%s: %s does not parse: %v", f, line, err)
				continue
			}
			m := smallGen.FindStringSubmatch(line)
			if words[0] != "explain" || m == nil || len(m[1]) > 7 {
				continue
			}
			ran++
			out, _, err := ratebench(t, append(movedOut(t, f, words, t.TempDir()), "-png=false")...)
			key := words[slices.Index(words, "-key")+1]
			if err != nil || !strings.Contains(out, "key "+key+": ") {
				t.Errorf("%s: %s: %v\n%s", f, line, err, out)
			}
		}
	}
	if seen < 20 || ran < 10 {
		t.Errorf("found %d commands in %d files, ran %d: the reports of results/ are not where this test looks", seen, len(files), ran)
	}
}

// A trace longer than the advice reads (maxReorderScan) gets the replay's
// own advice, the least the request needs, and inspect for the rest.
func TestReorderAdviceBounded(t *testing.T) {
	defer func(n int) { maxReorderScan = n }(maxReorderScan)
	trace := filepath.Join("testdata", "access_out_of_order.log")
	for _, tc := range []struct {
		scan int
		want string
	}{
		{100, "use -reorder 35s (ratebench inspect " + trace + " reports the least that works)"},
		{300, "use -reorder 59s, the most a request of the trace comes after a later one (as ratebench inspect reports it): " +
			"ratebench compare -trace " + trace + " -reorder 59s -o "},
	} {
		maxReorderScan = tc.scan
		_, _, err := ratebench(t, "compare", "-rule", "10/1m", "-o", t.TempDir(), trace)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("reading %d requests at most: %v\nwant the advice %s", tc.scan, err, tc.want)
		}
	}
}
