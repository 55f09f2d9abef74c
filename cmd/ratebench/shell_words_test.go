package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// hostileNames are keys and file names that break out of a command line
// quoted naively, or print what is not there.
var hostileNames = []string{
	`x'; touch PWNED; echo '`,
	`a "b`,
	`back\slash`,
	"new\nline",
	"ansi \x1b[31mred\x1b[0m",
	`$(touch PWNED)`,
	"-dash",
	"tab\there",
}

// pasteBack runs line in bash, in an empty folder, with ratebench a
// function that prints its arguments, and returns them; it fails the test
// if the line ran anything else (a file appeared).
func pasteBack(t *testing.T, line string) []string {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command("bash", "-c", `ratebench() { printf '%s\0' "$@"; }; `+line)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("bash -c %q: %v", line, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) > 0 {
		t.Errorf("pasting %q ran a command: %s appeared", line, entries[0].Name())
	}
	return strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
}

// The key explain shows is the key when pasted back as -key, and prints
// on one line, whatever it holds.
func TestExplainShowsTheKeyAsItIsPasted(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip(err)
	}
	keyLine := regexp.MustCompile(`(?m)^key (.*): 1 requests, rule`)
	for _, key := range hostileNames {
		trace := filepath.Join(t.TempDir(), "t.csv")
		if err := os.WriteFile(trace, []byte("ts,key\n1,\""+strings.ReplaceAll(key, `"`, `""`)+"\"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := explainCmd(t, trace, "-key", key, "-o", t.TempDir(), "-png=false")
		if err != nil {
			t.Fatalf("%q: %v", key, err)
		}
		m := keyLine.FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("%q: no key line in\n%s", key, out)
		}
		if strings.ContainsAny(m[1], "\n\x1b") {
			t.Errorf("%q is shown as %q, which does not print on one line", key, m[1])
		}
		if got := pasteBack(t, "ratebench explain -key "+m[1]); len(got) != 3 || got[2] != key {
			t.Errorf("key %q shown as %s reads back as %q", key, m[1], got)
		}
	}
}

// The commands the terminal suggests for a trace whose keys go back in
// time (inspect's and compare's -reorder advice), on a file whose name
// would break out of naive quoting, are pasted back as they are meant: the
// file's name one argument, nothing run besides.
func TestSuggestedCommandsQuoteTheFileName(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip(err)
	}
	for _, name := range hostileNames {
		if strings.ContainsAny(name, "\n\t\x1b") {
			continue // not in a file name below; see the key test
		}
		dir := t.TempDir()
		trace := filepath.Join(dir, name+".csv")
		if err := os.WriteFile(trace, []byte("ts,key\n2024-01-01T00:00:02Z,a\n2024-01-01T00:00:01Z,a\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		out, _, err := ratebench(t, "inspect", trace)
		if err != nil {
			t.Fatal(err)
		}
		_, line, ok := strings.Cut(out, "compare needs -reorder 1s: ")
		line, _, _ = strings.Cut(line, "\n")
		if got := pasteBack(t, line); !ok || strings.Join(got, "|") != "compare|-trace|"+trace+"|-reorder|1s" {
			t.Errorf("inspect of %q suggests %q, which reads back as %q", trace, line, got)
		}
		results := filepath.Join(dir, "out")
		_, _, err = ratebench(t, "compare", trace, "-report=false", "-o", results)
		_, line, ok = strings.Cut(fmt.Sprint(err), "(as ratebench inspect reports it): ")
		if got := pasteBack(t, line); !ok || strings.Join(got, "|") != "compare|-trace|"+trace+"|-reorder|1s|-o|"+results+"|-report=false" {
			t.Errorf("compare of %q suggests %q, which reads back as %q", trace, line, got)
		}
	}
}
