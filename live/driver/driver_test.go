package driver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"ratebench/internal/childproc"
)

// echo answers each line "got LINE", "E LINE" for a line starting with
// "fail", and exits with a message on standard error at "quit".
const echo = `echo ready
while read -r line; do
	case "$line" in
	quit) echo "bye now" >&2; exit 3 ;;
	fail*) echo "E $line" ;;
	*) echo "got $line" ;;
	esac
done
`

func start(t *testing.T) *Proc {
	t.Helper()
	p, err := Start(Spec{Name: "the test driver", Program: "/bin/sh", Script: []byte(echo), ScriptName: "echo.sh"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Stop() })
	if line, err := p.Ask(context.Background(), "", 10*time.Second); err != nil || line != "ready" {
		t.Fatalf("first line %q, %v", line, err)
	}
	return p
}

func TestAskAnswersAndErrors(t *testing.T) {
	p := start(t)
	ctx := context.Background()
	if line, err := p.Ask(ctx, "k0 5", 10*time.Second); err != nil || line != "got k0 5" {
		t.Errorf("answer %q, %v", line, err)
	}
	if _, err := p.Ask(ctx, "fail here", 10*time.Second); err == nil || !strings.Contains(err.Error(), "the test driver: fail here") {
		t.Errorf("an E line: %v", err)
	}
	if _, err := p.Ask(ctx, "quit", 10*time.Second); err == nil || !strings.Contains(err.Error(), "exited") || !strings.Contains(err.Error(), "bye now") {
		t.Errorf("a driver that exits: %v, want its exit and its standard error", err)
	}
}

func TestAskTimeoutAndCancel(t *testing.T) {
	p := start(t)
	if _, err := p.Ask(context.Background(), "", 50*time.Millisecond); err == nil || !strings.Contains(err.Error(), "did not answer") {
		t.Errorf("no answer: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := p.Ask(ctx, "", time.Minute); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestStopKillsAndCleansUp(t *testing.T) {
	p := start(t)
	pid, dir := p.Pid(), p.Dir()
	if _, err := os.Stat(dir + "/echo.sh"); err != nil {
		t.Fatalf("the script is not in the driver's folder: %v", err)
	}
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("pid %d still there after Stop: %v", pid, err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("folder %s left: %v", dir, err)
	}
	if err := p.Stop(); err != nil {
		t.Errorf("second Stop: %v", err)
	}
	if _, err := Start(Spec{Name: "x", Program: "/no/such/program", Script: []byte(echo), ScriptName: "x.sh"}); err == nil {
		t.Error("a missing program started")
	}
}

// A driver that never says it is ready fails Ready at the deadline, the
// error naming the driver, its program and the deadline; Stop then kills
// what it started too.
func TestReadyDeadline(t *testing.T) {
	t.Setenv(childproc.StartTimeoutEnv, "100ms")
	p, err := Start(Spec{Name: "the test driver", Program: "/bin/sh", Script: []byte("sleep 1000 &\necho $! >&2\nwait\n"), ScriptName: "hang.sh"})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	_, err = p.Ready(context.Background())
	if want := "the test driver (/bin/sh) did not say it was ready within 100ms, the time a program has to start"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("Ready: %v, want %s...", err, want)
	}
	pid, err := strconv.Atoi(p.Stderr())
	if err != nil {
		t.Fatalf("the script's child: %v", err)
	}
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(2 * time.Second); syscall.Kill(pid, 0) == nil; time.Sleep(10 * time.Millisecond) {
		if stat, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); strings.Contains(string(stat), ") Z ") {
			break // a zombie, waiting for whoever took it over
		}
		if time.Now().After(end) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("pid %d, which the driver started, still runs after Stop", pid)
		}
	}
}

// The files beside the script are in its folder, where it reads them; a
// name with a folder is refused before anything starts.
func TestFilesBesideTheScript(t *testing.T) {
	p, err := Start(Spec{Name: "the test driver", Program: "/bin/sh", Script: []byte("cat lib.txt\n"), ScriptName: "cat.sh",
		Files: map[string][]byte{"lib.txt": []byte("from the library\n")}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	if line, err := p.Ask(context.Background(), "", 10*time.Second); err != nil || line != "from the library" {
		t.Errorf("the script read %q, %v", line, err)
	}
	for _, name := range []string{"../lib.txt", "cat.sh"} {
		if p, err := Start(Spec{Name: "the test driver", Program: "/bin/sh", Script: []byte("true\n"), ScriptName: "cat.sh", Files: map[string][]byte{name: nil}}); err == nil {
			p.Stop()
			t.Errorf("a file named %q: started", name)
		}
	}
}
