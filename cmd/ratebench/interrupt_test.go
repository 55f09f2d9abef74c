package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"ratebench/compare"
)

// A replay sent SIGINT stops cleanly and leaves a valid summary.json
// marked partial, with the count of requests it replayed.
func TestInterruptWritesPartialSummary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "ratebench")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out := filepath.Join(dir, "res")
	cmd := exec.Command(bin, "compare", "-gen", "poisson:requests=1e12,keys=1000", "-alg", "counter", "-report=false", "-o", out)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	for sc.Scan() && !strings.HasPrefix(sc.Text(), "replaying ") {
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	for sc.Scan() {
		if line := sc.Text(); strings.Contains(line, "interrupted after") {
			t.Log(line)
		}
	}
	err = cmd.Wait()
	if exit, ok := err.(*exec.ExitError); !ok || exit.ExitCode() != 1 {
		t.Errorf("exit: %v, want status 1", err)
	}
	s, err := compare.ReadSummaryFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !s.Partial || s.Trace.Requests <= 0 || s.Runs[1].Requests != s.Trace.Requests {
		t.Errorf("partial %v after %d requests (run: %d)", s.Partial, s.Trace.Requests, s.Runs[1].Requests)
	}
	if _, err := os.Stat(filepath.Join(out, "perf.json")); err != nil {
		t.Error(err)
	}
}

// Results of another trace are not overwritten without -force.
func TestForceToOverwriteAnotherTrace(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := ratebench(t, "compare", "-trace", "testdata/small.csv", "-report=false", "-o", dir); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ratebench(t, "compare", "-trace", "testdata/small.csv", "-report=false", "-o", dir); err != nil {
		t.Errorf("rerun on the same trace: %v", err)
	}
	_, _, err := ratebench(t, "compare", "-gen", "poisson:requests=100", "-report=false", "-o", dir)
	if err == nil || !strings.Contains(err.Error(), "holds the results of another trace (testdata/small.csv); use -force") {
		t.Errorf("another trace without -force: %v", err)
	}
	if _, _, err := ratebench(t, "compare", "-gen", "poisson:requests=100", "-report=false", "-force", "-o", dir); err != nil {
		t.Errorf("with -force: %v", err)
	}
}
