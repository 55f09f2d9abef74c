package main

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"ratebench/summary"
)

// interruptRun starts the command with args, feeds its standard input with
// feed (if not nil) in the background, sends SIGINT once the replay is
// under way (its line "replaying", then, if readyAfter > 0, its line
// "ready" once it has read that many requests; then until busy, if not
// nil, is closed), and returns how the command ended and how long after
// the signal.
func interruptRun(t *testing.T, bin string, feed func(io.WriteCloser), readyAfter int, busy <-chan struct{}, args ...string) (error, time.Duration) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	if readyAfter > 0 {
		cmd.Env = append(os.Environ(), readyEnv+"="+strconv.Itoa(readyAfter))
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	if feed != nil {
		go feed(stdin)
	}
	sc := bufio.NewScanner(stderr)
	waitFor := func(prefix string) {
		for sc.Scan() && !strings.HasPrefix(sc.Text(), prefix) {
			t.Log(sc.Text())
		}
	}
	waitFor("replaying ")
	if readyAfter > 0 {
		waitFor("ready: ")
	}
	if busy != nil {
		<-busy
	}
	killer := time.AfterFunc(10*time.Second, func() { cmd.Process.Kill() })
	defer killer.Stop()
	signalled := time.Now()
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	for sc.Scan() {
		if line := sc.Text(); strings.Contains(line, "interrupted after") {
			t.Log(line)
		}
	}
	err = cmd.Wait()
	return err, time.Since(signalled)
}

// A replay sent SIGINT stops cleanly and leaves a valid summary.json
// marked partial, with the count of requests it replayed: while it replays
// requests, and while it reads none (standard input stalled, a run of
// records -skip-bad skips, a line that never ends), within a second.
func TestInterruptWritesPartialSummary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	dir := t.TempDir()
	bin := buildCommand(t, dir)
	const someSkipped, anySkipped = -1, -2
	skipping := make(chan struct{}) // closed once the command skips bad records
	tests := []struct {
		name              string
		args              []string
		feed              func(io.WriteCloser)
		readyAfter        int             // requests read before the signal
		busy              <-chan struct{} // closed when the signal may come
		requests, skipped int64           // requests -1: some
	}{
		{"replaying", []string{"-gen", "poisson:requests=1e12,keys=1000"}, nil, 1, nil, -1, 0},
		{"stalled stdin", []string{"-trace", "-"}, func(w io.WriteCloser) {
			io.WriteString(w, "ts,key\n1,a\n2,b\n") // then nothing, and no end
		}, 2, nil, 2, 0},
		{"skipping bad records", []string{"-trace", "-", "-skip-bad"}, func(w io.WriteCloser) {
			if _, err := io.WriteString(w, "ts,key\n1,a\n"); err != nil {
				return
			}
			bad := []byte(strings.Repeat("x,b\n", 1000))
			written := 0
			for { // until the command exits
				if _, err := w.Write(bad); err != nil {
					return
				}
				// Past what a pipe and the reader's buffer hold, the
				// command has read, and skipped, bad records.
				if written += len(bad); written >= 4<<20 && written-len(bad) < 4<<20 {
					close(skipping)
				}
			}
		}, 1, skipping, 1, someSkipped},
		// (skipped, or still being read, when the signal comes)
		{"a line that never ends", []string{"-trace", "/dev/zero", "-format", "jsonl", "-skip-bad"}, nil, 0, nil, 0, anySkipped},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-"))
			args := append([]string{"compare", "-alg", "counter", "-report=false", "-o", out}, tt.args...)
			err, after := interruptRun(t, bin, tt.feed, tt.readyAfter, tt.busy, args...)
			if exit, ok := err.(*exec.ExitError); !ok || exit.ExitCode() != 1 {
				t.Errorf("exit: %v, want status 1", err)
			}
			if after > 2*time.Second {
				t.Errorf("exited %v after SIGINT", after)
			}
			s, err := summary.ReadSummaryFile(filepath.Join(out, "summary.json"))
			if err != nil {
				t.Fatal(err)
			}
			if !s.Partial || s.Runs[1].Requests != s.Trace.Requests {
				t.Errorf("partial %v after %d requests (run: %d)", s.Partial, s.Trace.Requests, s.Runs[1].Requests)
			}
			if tt.requests >= 0 && s.Trace.Requests != tt.requests || tt.requests < 0 && s.Trace.Requests <= 0 {
				t.Errorf("%d requests", s.Trace.Requests)
			}
			if tt.skipped >= 0 && s.Trace.Skipped != tt.skipped || tt.skipped == someSkipped && s.Trace.Skipped <= 0 {
				t.Errorf("%d skipped", s.Trace.Skipped)
			}
			if _, err := os.Stat(filepath.Join(out, "perf.json")); err != nil {
				t.Error(err)
			}
		})
	}
}

// A trace whose first line never ends fails at once, naming the file, the
// line and the limit it passed.
func TestEndlessLineFails(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip(err)
	}
	done := make(chan error, 1)
	go func() {
		_, _, err := ratebench(t, "compare", "-trace", "/dev/zero", "-format", "csv", "-report=false", "-o", t.TempDir())
		done <- err
	}()
	select {
	case err := <-done:
		if want := "/dev/zero:1: line longer than the limit of 1048576 bytes (-max-line)"; err == nil || err.Error() != want {
			t.Errorf("got %v, want %s", err, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("still reading /dev/zero after 10s")
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
	if err == nil || !strings.Contains(err.Error(), "holds the results of another trace (\"testdata/small.csv\"); use -force") {
		t.Errorf("another trace without -force: %v", err)
	}
	if _, _, err := ratebench(t, "compare", "-gen", "poisson:requests=100", "-report=false", "-force", "-o", dir); err != nil {
		t.Errorf("with -force: %v", err)
	}
}

// convert sent SIGINT while its input stalls stops within a second, and
// leaves OUT as it was, with no temporary file beside it.
func TestInterruptConvertOfAStalledInput(t *testing.T) {
	dir := t.TempDir()
	bin := buildCommand(t, dir)
	out := filepath.Join(dir, "out", "t.csv")
	os.Mkdir(filepath.Dir(out), 0o755)
	const earlier = "ts,key\n5,kept\n"
	if err := os.WriteFile(out, []byte(earlier), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "convert", "-format", "csv", "-", out)
	cmd.Env = append(os.Environ(), readyEnv+"=2")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	waitReady := readyLine(t, cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	io.WriteString(stdin, "ts,key\n1,a\n2,b\n") // then nothing, and no end
	waitReady()
	interruptLeavesOutput(t, cmd, out, earlier)
}

// gen sent SIGINT while it writes stops within a second, and leaves an
// existing OUT as it was, with no temporary file beside it.
func TestInterruptGenLeavesTheOutput(t *testing.T) {
	dir := t.TempDir()
	bin := buildCommand(t, dir)
	out := filepath.Join(dir, "out", "t.parquet")
	os.Mkdir(filepath.Dir(out), 0o755)
	const earlier = "an earlier trace"
	if err := os.WriteFile(out, []byte(earlier), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "gen", "-scenario", "poisson", "-requests", "1000000000000", "-keys", "100000", "-o", out)
	cmd.Env = append(os.Environ(), readyEnv+"=1")
	waitReady := readyLine(t, cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitReady()
	interruptLeavesOutput(t, cmd, out, earlier)
}

// readyLine returns a function that waits for cmd's "ready" line on
// stderr (see readyEnv), to be called once cmd is started; what cmd
// prints on stderr after it is read on, to the end.
func readyLine(t *testing.T, cmd *exec.Cmd) func() {
	t.Helper()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	return func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() && !strings.HasPrefix(sc.Text(), "ready: ") {
			t.Log(sc.Text())
		}
		go io.Copy(io.Discard, stderr)
	}
}

// buildCommand builds ratebench into dir and returns its path.
func buildCommand(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "ratebench")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// interruptLeavesOutput sends SIGINT to the running cmd, which writes the
// file out, and checks that it exits with status 1 within two seconds and
// leaves out as it was (holding earlier), with nothing else beside it.
func interruptLeavesOutput(t *testing.T, cmd *exec.Cmd, out, earlier string) {
	t.Helper()
	killer := time.AfterFunc(10*time.Second, func() { cmd.Process.Kill() })
	defer killer.Stop()
	signalled := time.Now()
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	if exit, ok := err.(*exec.ExitError); !ok || exit.ExitCode() != 1 {
		t.Errorf("exit: %v, want status 1", err)
	}
	if after := time.Since(signalled); after > 2*time.Second {
		t.Errorf("exited %v after SIGINT", after)
	}
	if got, _ := os.ReadFile(out); string(got) != earlier {
		t.Errorf("OUT is now %d bytes, not the %d it held", len(got), len(earlier))
	}
	if entries, _ := os.ReadDir(filepath.Dir(out)); len(entries) != 1 {
		t.Errorf("beside OUT: %d entries, want OUT alone", len(entries))
	}
}
