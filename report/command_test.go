package report

import (
	"bytes"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// hostileWords are keys and trace names that try to break out of the
// quoting of a suggested command, or that do not print.
var hostileWords = []string{
	"x'; touch PWNED; echo '", `it's \'`, "$(touch PWNED)", "`touch PWNED`", `back\slash`,
	"new\nline", "pipe | key", "``fence``", " padded ", "<script>alert(1)</script>", "bidi\u202eoverride",
}

// The explain command the report suggests, copied from report.md's code
// span or from the page (its entities read back), and pasted into bash,
// passes the key and the trace exactly, and runs nothing else.
func TestSuggestedCommandRoundTripsThroughBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatal("bash is needed to check the quoting: ", err)
	}
	for _, key := range hostileWords {
		for _, path := range []string{"traces/plain.csv", "trace's; touch PWNED; '.csv", "dir/`x`<b>.csv", key} {
			s := readSummary(t, "small.summary.json")
			s.Trace.Path, s.Trace.Format = path, "csv"
			for i := range s.Runs {
				if len(s.Runs[i].TopKeys) > 0 {
					s.Runs[i].TopKeys[0].Key, s.Runs[i].TopKeys[0].Disagree = key, 1<<40
				}
			}
			dir := write(t, s, Options{NoPNG: true})
			md := string(readFile(t, filepath.Join(dir, MarkdownFile)))
			page := string(readFile(t, filepath.Join(dir, HTMLFile)))
			cmds := append(mdCommands(t, md), htmlCommands(t, page)...)
			if len(cmds) != 6 {
				t.Fatalf("key %q, trace %q: %d suggested commands, want 3 in report.md and 3 in the page", key, path, len(cmds))
			}
			for _, c := range cmds {
				args := runStubbed(t, bash, c)
				if flagValue(args, "-key") != key || flagValue(args, "-trace") != path || args[0] != "explain" {
					t.Errorf("key %q, trace %q: the command\n  %s\nreads in bash as %q", key, path, c, args)
				}
			}
		}
	}
}

// mdCommands are the code spans of report.md that follow "disagrees
// most): ", read as CommonMark reads a code span.
func mdCommands(t *testing.T, md string) []string {
	t.Helper()
	var out []string
	for _, part := range strings.Split(md, "disagrees most): ")[1:] {
		n := len(part) - len(strings.TrimLeft(part, "`"))
		if n == 0 {
			t.Fatalf("no code span after \"disagrees most): \": %.80q", part)
		}
		fence := part[:n]
		rest := part[n:]
		end := -1
		for i := 0; i+n <= len(rest); i++ {
			if rest[i:i+n] == fence && (i == 0 || rest[i-1] != '`') && (i+n == len(rest) || rest[i+n] != '`') {
				end = i
				break
			}
		}
		if end < 0 {
			t.Fatalf("the code span does not close: %.80q", part)
		}
		c := rest[:end]
		if len(c) >= 2 && c[0] == ' ' && c[len(c)-1] == ' ' && strings.Trim(c, " ") != "" {
			c = c[1 : len(c)-1]
		}
		out = append(out, c)
	}
	return out
}

// htmlCommands are the <code> elements of the page that follow
// "disagrees most): ", their entities read back.
func htmlCommands(t *testing.T, page string) []string {
	t.Helper()
	var out []string
	for _, part := range strings.Split(page, "disagrees most): ")[1:] {
		rest, ok := strings.CutPrefix(part, "<code>")
		end := strings.Index(rest, "</code>")
		if !ok || end < 0 || strings.Contains(rest[:end], "<") {
			t.Fatalf("no plain <code> element after \"disagrees most): \": %.80q", part)
		}
		out = append(out, html.UnescapeString(rest[:end]))
	}
	return out
}

// runStubbed runs the command line c in bash, in an empty folder, with
// ratebench a function that prints its arguments, and returns them;
// anything else that runs and leaves a file fails the test.
func runStubbed(t *testing.T, bash, c string) []string {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command(bash, "-c", `ratebench() { printf '%s\0' "$@"; }; `+c)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || stderr.Len() > 0 {
		t.Fatalf("bash -c %q: %v %s", c, err, stderr.String())
	}
	if ents, _ := os.ReadDir(dir); len(ents) > 0 {
		t.Fatalf("the command %q ran something: %s appeared", c, ents[0].Name())
	}
	return strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
}

// flagValue is the word after name in args, "" when there is none.
func flagValue(args []string, name string) string {
	for i, a := range args {
		if a == name && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}
