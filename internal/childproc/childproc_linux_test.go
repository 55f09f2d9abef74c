package childproc

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A probe that ends gives its output and exit; one that does not is
// stopped at the deadline, the error naming its command line and the
// deadline, or once its context is done, the error the context's; a
// stopped probe leaves nothing running, what it started included.
func TestProbe(t *testing.T) {
	t.Setenv(StartTimeoutEnv, "300ms")
	out, err := Probe(context.Background(), "/bin/sh", "-c", "echo out; echo err >&2; exit 3")
	if string(out) != "out\nerr\n" || err == nil || Stopped(err) || !strings.Contains(err.Error(), "exit status 3") {
		t.Errorf("a probe that ends: %q, %v", out, err)
	}
	pidFile := filepath.Join(t.TempDir(), "pid")
	hang := []string{"-c", "sleep 1000 & echo $! > " + pidFile + "; wait"}
	start := time.Now()
	_, err = Probe(context.Background(), "/bin/sh", hang...)
	want := "/bin/sh -c sleep 1000 & echo $! > " + pidFile + "; wait did not finish within 300ms"
	if err == nil || !Stopped(err) || !strings.HasPrefix(err.Error(), want) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a probe that never ends: %v, want %s...", err, want)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("stopped after %v", d)
	}
	checkGone(t, pidFile)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	if _, err := Probe(ctx, "/bin/sh", hang...); !Stopped(err) || !errors.Is(err, context.Canceled) {
		t.Errorf("a probe whose context ends: %v", err)
	}
	checkGone(t, pidFile)
}

// checkGone fails when the process whose id is in pidFile is running.
func checkGone(t *testing.T, pidFile string) {
	t.Helper()
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(2 * time.Second); syscall.Kill(pid, 0) == nil; time.Sleep(10 * time.Millisecond) {
		if stat, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); strings.Contains(string(stat), ") Z ") {
			return // a zombie, waiting for whoever took it over
		}
		if time.Now().After(end) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("pid %d, started by the stopped program, still runs", pid)
		}
	}
}

// WaitReady returns once ready does; it fails at once when the process
// exits, with its output, or the context ends, and at the deadline,
// naming the program, what it did not do and the deadline (Stopped); and
// Stop kills what the process started too.
func TestWaitReady(t *testing.T) {
	t.Setenv(StartTimeoutEnv, "200ms")
	start := func(script string) *Proc {
		dir, err := NewDir("childproc-test-")
		if err != nil {
			t.Fatal(err)
		}
		p, err := Start(dir, "/bin/sh", "-c", script)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.Stop() })
		return p
	}
	ctx := context.Background()
	p := start("exec sleep 1000")
	calls := 0
	if err := p.WaitReady(ctx, "test", "be ready", func(context.Context) error {
		if calls++; calls < 3 {
			return errors.New("not yet")
		}
		return nil
	}); err != nil || calls != 3 {
		t.Errorf("ready at the third call: %v after %d", err, calls)
	}
	err := p.WaitReady(ctx, "test", "be ready", func(context.Context) error { return errors.New("not yet") })
	if want := "test (/bin/sh) did not be ready within 200ms"; err == nil || !Stopped(err) || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "not yet") {
		t.Errorf("never ready: %v, want %s...", err, want)
	}
	blocked := p.WaitReady(ctx, "test", "answer", func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() })
	if !Stopped(blocked) {
		t.Errorf("a check that blocks: %v, want the deadline's error", blocked)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := p.WaitReady(cctx, "test", "be ready", func(context.Context) error { return errors.New("not yet") }); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	gone := start("echo bad config; exit 1")
	if err := gone.WaitReady(ctx, "test", "be ready", func(context.Context) error { return errors.New("not yet") }); err == nil || Stopped(err) ||
		!strings.Contains(err.Error(), "exited at start (exit status 1): bad config") {
		t.Errorf("exited: %v", err)
	}
	pidFile := filepath.Join(t.TempDir(), "pid")
	parent := start("sleep 1000 & echo $! > " + pidFile + "; wait")
	for end := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if b, _ := os.ReadFile(pidFile); len(b) > 0 && b[len(b)-1] == '\n' {
			break
		}
		if time.Now().After(end) {
			t.Fatal("the script never started its child")
		}
	}
	if err := parent.Stop(); err != nil {
		t.Fatal(err)
	}
	checkGone(t, pidFile)
}
