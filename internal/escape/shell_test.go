package escape

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// shellWordCases are words a trace or a user can put in a suggested
// command: quotes that try to break out, shell syntax, what does not print.
var shellWordCases = []string{
	"plain", "", "-leading-dash", "a b", "x'; touch PWNED; echo '", `a "b`, `back\slash`,
	`it's`, "$(touch PWNED)", "`touch PWNED`", "new\nline", "tab\there", "bell\a",
	"\xff\xfe not utf-8", "bidi\u202eoverride", "emoji 😀", "'", "''", `\'`, "*?[]{}~#!&|;<>()",
	"trace's file.csv", "ends with backslash\\", "$'nested'",
}

// Each word, pasted into bash, gives back exactly the word, and runs
// nothing: printf prints its argument, and no file appears.
func TestShellWordRoundTripsThroughBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatal("bash is needed to check the quoting: ", err)
	}
	dir := t.TempDir()
	for _, s := range shellWordCases {
		w := ShellWord(s)
		if strings.ContainsAny(w, "\n\r\t") || !printableOneLine(w) {
			t.Errorf("ShellWord(%q) = %q: not printable on one line", s, w)
		}
		cmd := exec.Command(bash, "-c", "printf '%s' "+w)
		cmd.Dir = dir
		out, err := cmd.Output()
		if err != nil {
			t.Errorf("bash -c on ShellWord(%q) = %q: %v", s, w, err)
			continue
		}
		if string(out) != s {
			t.Errorf("ShellWord(%q) = %q reads back in bash as %q", s, w, out)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "PWNED")); err == nil {
		t.Fatal("a quoted word ran a command")
	}
}

// Printable words stay POSIX (single quotes), which sh reads too.
func TestShellWordPrintableIsPOSIX(t *testing.T) {
	for _, s := range shellWordCases {
		if !printableOneLine(s) {
			continue
		}
		w := ShellWord(s)
		if strings.HasPrefix(w, "$'") {
			t.Errorf("ShellWord(%q) = %q: ANSI-C quoting for a printable word", s, w)
		}
		out, err := exec.Command("sh", "-c", "printf '%s' "+w).Output()
		if err != nil || string(out) != s {
			t.Errorf("sh -c on ShellWord(%q) = %q gives %q, %v", s, w, out, err)
		}
	}
}

func TestShellCommand(t *testing.T) {
	got := ShellCommand("ratebench", "explain", "-key", "x'; touch PWNED; echo '", "-rule", "10/1m")
	want := `ratebench explain -key 'x'\''; touch PWNED; echo '\''' -rule 10/1m`
	if got != want {
		t.Errorf("ShellCommand = %s, want %s", got, want)
	}
}
