package childproc

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// A started process is stopped and its directory removed, once however
// often Stop is called; its output's last lines are kept; a process that
// cannot start leaves no directory.
func TestStartStop(t *testing.T) {
	dir, err := NewDir("childproc-test-")
	if err != nil {
		t.Fatal(err)
	}
	p, err := Start(dir, "/bin/sh", "-c", "for i in 1 2 3 4 5 6 7; do echo line $i; done; exec sleep 30")
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for !strings.HasSuffix(p.Output(), "line 7") && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if got := p.Output(); got != "line 3 | line 4 | line 5 | line 6 | line 7" {
		t.Errorf("output %q", got)
	}
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.Exited():
	default:
		t.Error("not exited after Stop")
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("directory left: %v", err)
	}
	if err := p.Stop(); err != nil {
		t.Errorf("second Stop: %v", err)
	}
	dir2, _ := NewDir("childproc-test-")
	if _, err := Start(dir2, "/nonexistent/binary"); err == nil {
		t.Error("a missing binary started")
	}
	if _, err := os.Stat(dir2); !os.IsNotExist(err) {
		t.Errorf("a failed start left its directory: %v", err)
	}
	if port, err := FreePort(); err != nil || port <= 0 {
		t.Errorf("FreePort: %d, %v", port, err)
	}
}

// OnFreePort gives each start a free port and tries up to three times,
// returning the first success or the last error; once ctx is done it
// tries no more.
func TestOnFreePort(t *testing.T) {
	tries := 0
	got, err := OnFreePort(context.Background(), func(port int) (int, error) {
		tries++
		if port <= 0 {
			t.Errorf("port %d", port)
		}
		if tries < 3 {
			return 0, fmt.Errorf("taken %d", tries)
		}
		return port, nil
	})
	if err != nil || got <= 0 || tries != 3 {
		t.Errorf("third try succeeds: %d, %v after %d tries", got, err, tries)
	}
	tries = 0
	_, err = OnFreePort(context.Background(), func(int) (int, error) { tries++; return 0, fmt.Errorf("taken %d", tries) })
	if err == nil || err.Error() != "taken 3" || tries != 3 {
		t.Errorf("always failing: %v after %d tries, want the third error", err, tries)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	tries = 0
	_, err = OnFreePort(ctx, func(int) (int, error) { tries++; return 0, errors.New("cancelled") })
	if err == nil || tries != 1 {
		t.Errorf("cancelled: %v after %d tries, want one", err, tries)
	}
}

// StartTimeout is the environment's positive duration, else the default.
func TestStartTimeout(t *testing.T) {
	for _, tt := range []struct {
		env  string
		want time.Duration
	}{{"", DefaultStartTimeout}, {"250ms", 250 * time.Millisecond}, {"2m", 2 * time.Minute}, {"0s", DefaultStartTimeout}, {"-1s", DefaultStartTimeout}, {"soon", DefaultStartTimeout}} {
		t.Setenv(StartTimeoutEnv, tt.env)
		if got := StartTimeout(); got != tt.want {
			t.Errorf("%s=%q: %v, want %v", StartTimeoutEnv, tt.env, got, tt.want)
		}
	}
}

// OnFreePort tries no other port after a start whose program did not
// answer in time.
func TestOnFreePortStopsAtADeadline(t *testing.T) {
	t.Setenv(StartTimeoutEnv, "10ms")
	out, err := Probe(context.Background(), "/bin/sleep", "1")
	if !Stopped(err) {
		t.Fatalf("%q, %v", out, err)
	}
	tries := 0
	if _, got := OnFreePort(context.Background(), func(int) (int, error) { tries++; return 0, err }); got != err || tries != 1 {
		t.Errorf("%v after %d tries, want the deadline's after one", got, tries)
	}
}
