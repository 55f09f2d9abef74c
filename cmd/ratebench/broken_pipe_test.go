package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// A compare whose output is piped into a reader that stops after the first
// line (compare ... | head -1) or has gone already still writes its summary and report: a
// closed pipe is an error to ignore, not the end of the process.
func TestComparePipedIntoHeadStillWrites(t *testing.T) {
	dir := t.TempDir()
	bin := buildCommand(t, dir)
	out := filepath.Join(dir, "out")
	cmd := exec.Command(bin, "compare", "-trace", filepath.Join("..", "..", "traces", "samples", "mix.csv"), "-rule", "5/30s", "-o", out)
	// Standard output is a pipe whose reader has gone already: every
	// write to it fails.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	cmd.Stdout = w
	cmd.Run() // its status is the pipe's concern; the files are the test's
	w.Close()
	for _, name := range []string{"summary.json", "report.md", "report.html"} {
		if _, err := os.Stat(filepath.Join(out, name)); err != nil {
			t.Errorf("%s not written after the reader of the output stopped: %v", name, err)
		}
	}
}
