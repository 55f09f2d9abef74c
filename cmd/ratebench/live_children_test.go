//go:build linux

package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"ratebench/internal/childproc"
	"ratebench/live"
)

// childMarkEnv marks, in its environment, every process a test's
// ratebench starts, which its children inherit: once ratebench has ended,
// /proc must show none of them.
const childMarkEnv = "RATEBENCH_TEST_CHILD_MARK"

// hang is a program that never answers.
const hang = "#!/bin/sh\nexec sleep 1000\n"

// childTarget is a command of ratebench that starts programs, and fakes
// of its program for each stage.
type childTarget struct {
	name string
	// args are ratebench's arguments with prog as the program ("": the
	// real one).
	args func(prog string) []string
	// answers answers the version probe and never answers the start (nil:
	// the command has no version probe).
	answers string
	// replays answers until the replay is under way (the first request),
	// then never; "" replays through the real program, which real checks
	// is installed.
	replays string
	real    func() error
	// replaying starts the line on stderr that says the replay is under
	// way; replayArgs are ratebench's further arguments then (a trace
	// long enough for the replay to last).
	replaying  string
	replayArgs []string
}

// version returns a live target's real software's check.
func version(name string) func() error {
	return func() error {
		t, variant, ok := live.Find(name)
		if !ok {
			return fmt.Errorf("no target %s", name)
		}
		_, err := t.Version(context.Background(), live.Options{Variant: variant})
		return err
	}
}

func product(name string) func(prog string) []string {
	return func(prog string) []string {
		args := []string{"live", name}
		if prog != "" {
			args = append(args, "-bin", prog)
		}
		return args
	}
}

var childTargets = []childTarget{
	{name: "haproxy", args: product("haproxy"),
		answers: "#!/bin/sh\ncase \"$1\" in -v) echo 'HAProxy version 2.6.12-1 2023/12/01'; exit 0;; esac\nexec sleep 1000\n",
		real:    version("haproxy"), replaying: "ready: 1 requests replayed"},
	{name: "varnish", args: product("varnish"),
		answers: "#!/bin/sh\ncase \"$1\" in -V) echo 'varnishd (varnish-7.1.1 revision 0)' >&2; exit 0;; -C) exit 0;; esac\nexec sleep 1000\n",
		real:    version("varnish"), replaying: "ready: 1 requests replayed"},
	{name: "redis:spring-gateway", args: product("redis:spring-gateway"),
		answers: "#!/bin/sh\ncase \"$1\" in --version) echo 'Redis server v=7.0.15'; exit 0;; esac\nexec sleep 1000\n",
		real:    version("redis:spring-gateway"), replaying: "ready: 1 requests replayed", replayArgs: []string{"-gen", "poisson:requests=1000000,keys=100"}},
	// The race of the non-atomic counter: 4 clients at once.
	{name: "redis:counter-nonatomic", args: func(prog string) []string {
		return append(product("redis:counter-nonatomic")(prog), "-clients", "4")
	},
		answers: "#!/bin/sh\ncase \"$1\" in --version) echo 'Redis server v=7.0.15'; exit 0;; esac\nexec sleep 1000\n",
		real:    version("redis:counter-nonatomic"), replaying: "ready: 1 requests replayed", replayArgs: []string{"-gen", "poisson:requests=1000000,keys=100"}},
	{name: "express-rate-limit", args: product("express-rate-limit"),
		answers: "#!/bin/sh\ncase \"$1\" in --version) echo v20.20.2; exit 0;; esac\nexec sleep 1000\n",
		replays: "#!/bin/sh\ncase \"$1\" in --version) echo v20.20.2; exit 0;; esac\necho ready\nread line\necho A\nexec sleep 1000\n",
		real:    version("express-rate-limit"), replaying: "ready: 1 requests replayed"},
	{name: "flask-limiter", args: product("flask-limiter"),
		answers:   "#!/bin/sh\ncase \"$1\" in -c) echo '2.8.0 3.11.2'; exit 0;; esac\nexec sleep 1000\n",
		replays:   "#!/bin/sh\ncase \"$1\" in -c) echo '2.8.0 3.11.2'; exit 0;; esac\necho 'ready 2.8.0'\nread line\necho 1\nexec sleep 1000\n",
		replaying: "ready: 1 requests replayed"},
	// The version probe of rack-attack is its driver, started with the
	// rule 1/1s ($2 = 1), and stopped once it said it was ready.
	{name: "rack-attack", args: product("rack-attack"),
		answers:   "#!/bin/sh\nif [ \"$2\" = 1 ]; then echo 'ready rack-attack 6.6.1'; exec sleep 999; fi\nexec sleep 1000\n",
		replays:   "#!/bin/sh\necho 'ready rack-attack 6.6.1'\nif [ \"$2\" = 1 ]; then exec sleep 999; fi\nread line\necho 1\nexec sleep 1000\n",
		replaying: "ready: 1 requests replayed"},
	{name: "nginx", args: func(prog string) []string {
		return append(product("nginx")(prog), "-gen", "poisson:requests=100000,keys=10,rate=1")
	},
		answers: "#!/bin/sh\ncase \"$1\" in -v) echo 'nginx version: nginx/1.22.1' >&2; exit 0;; esac\nexec sleep 1000\n",
		real:    version("nginx"), replaying: "ready: 1 requests replayed"},
}

// Every program ratebench starts (a version probe, a server, a driver)
// is gone once ratebench has ended, whether SIGINT or SIGTERM stopped it
// (promptly, exiting 1), SIGKILL killed it (the kernel kills its children:
// Pdeathsig), or the program never answered (the error names it and the
// deadline, RATEBENCH_START_TIMEOUT): while it waits for a version probe,
// for a program to start, and during the replay.
func TestLiveLeavesNoProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command and runs real servers")
	}
	dir := t.TempDir()
	bin := buildCommand(t, dir)
	const deadline = 500 * time.Millisecond
	type event struct {
		name string
		sig  syscall.Signal // 0: none, the deadline passes
	}
	events := []event{{"SIGINT", syscall.SIGINT}, {"SIGTERM", syscall.SIGTERM}, {"SIGKILL", syscall.SIGKILL}, {"no answer", 0}}
	for _, tg := range childTargets {
		for _, stage := range []string{"version probe", "start", "replay"} {
			if stage == "version probe" && tg.answers == "" {
				continue
			}
			for _, ev := range events {
				if stage == "replay" && ev.sig == 0 {
					continue
				}
				t.Run(tg.name+"/"+stage+"/"+ev.name, func(t *testing.T) {
					work := t.TempDir()
					prog := filepath.Join(work, "prog")
					script := map[string]string{"version probe": hang, "start": tg.answers, "replay": tg.replays}[stage]
					if stage == "start" && script == "" {
						script = hang
					}
					if script == "" {
						if err := tg.real(); err != nil {
							t.Fatalf("this stage runs the real software: %v", err)
						}
						prog = ""
					} else if err := os.WriteFile(prog, []byte(script), 0o755); err != nil {
						t.Fatal(err)
					}
					args := append(tg.args(prog), "-o", filepath.Join(work, "out"))
					if stage == "replay" {
						args = append(args, tg.replayArgs...)
					}
					cmd := exec.Command(bin, args...)
					cmd.Env = append(os.Environ(), childMarkEnv+"="+work, readyEnv+"=1")
					if ev.sig == 0 {
						cmd.Env = append(cmd.Env, childproc.StartTimeoutEnv+"="+deadline.String())
					}
					stderr := startWithStderr(t, cmd)
					killer := time.AfterFunc(time.Minute, func() { cmd.Process.Kill() })
					defer killer.Stop()
					defer func() { // whatever failed: nothing of the test's is left
						if left := marked(work); len(left) > 0 {
							for _, p := range left {
								syscall.Kill(p.pid, syscall.SIGKILL)
							}
							t.Errorf("left running: %v", left)
						}
					}()

					switch {
					case ev.sig == 0:
					case stage == "replay":
						if !stderr.waitFor(tg.replaying, 30*time.Second) {
							cmd.Process.Kill()
							cmd.Wait()
							t.Fatalf("no line %q: %s", tg.replaying, stderr.text())
						}
					default: // the program that never answers is running
						if !waitUntil(10*time.Second, func() bool { return hanging(work) }) {
							cmd.Process.Kill()
							cmd.Wait()
							t.Fatalf("the program never ran: %s", stderr.text())
						}
					}
					sent := time.Now()
					if ev.sig != 0 {
						if err := cmd.Process.Signal(ev.sig); err != nil {
							t.Fatal(err)
						}
					}
					<-stderr.done // its end, before Wait closes the pipe
					err := cmd.Wait()
					took := time.Since(sent)
					switch exit, _ := err.(*exec.ExitError); {
					case ev.sig == syscall.SIGKILL:
						if exit == nil || exit.ExitCode() != -1 {
							t.Errorf("exit %v, want killed", err)
						}
					case exit == nil || exit.ExitCode() != 1:
						t.Errorf("exit %v, want status 1; stderr: %s", err, stderr.text())
					case ev.sig != 0 && took > 3*time.Second:
						t.Errorf("exited %v after %s", took, ev.name)
					case ev.sig == 0 && took > deadline+5*time.Second:
						t.Errorf("exited %v after it started, with a deadline of %v", took, deadline)
					case ev.sig == 0 && (!strings.Contains(stderr.text(), prog) || !strings.Contains(stderr.text(), "within "+deadline.String())):
						t.Errorf("stderr %q, want the program %s and the deadline %v named", stderr.text(), prog, deadline)
					case ev.sig != 0 && !strings.Contains(stderr.text(), "interrupted: "):
						t.Errorf("stderr %q, want it to say it was interrupted", stderr.text())
					}
					// The kernel kills SIGKILLed ratebench's children, at
					// once but not before Wait returns.
					waitUntil(3*time.Second, func() bool { return len(marked(work)) == 0 })
				})
			}
		}
	}
}

// stderrLines gathers a command's standard error.
type stderrLines struct {
	mu   sync.Mutex
	buf  strings.Builder
	done chan struct{} // closed at its end
}

// startWithStderr starts cmd, gathering its standard error.
func startWithStderr(t *testing.T, cmd *exec.Cmd) *stderrLines {
	t.Helper()
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &stderrLines{done: make(chan struct{})}
	go func() {
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			s.mu.Lock()
			s.buf.WriteString(sc.Text() + "\n")
			s.mu.Unlock()
		}
		close(s.done)
	}()
	return s
}

// waitFor waits until a line starts with prefix.
func (s *stderrLines) waitFor(prefix string, within time.Duration) bool {
	return waitUntil(within, func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return strings.Contains("\n"+s.buf.String(), "\n"+prefix)
	})
}

// text is all of it, once it has ended.
func (s *stderrLines) text() string {
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

func waitUntil(within time.Duration, ok func() bool) bool {
	for end := time.Now().Add(within); ; time.Sleep(10 * time.Millisecond) {
		if ok() {
			return true
		}
		if time.Now().After(end) {
			return false
		}
	}
}

// process is a process /proc shows.
type process struct {
	pid     int
	cmdline string
}

func (p process) String() string { return fmt.Sprintf("%d %s", p.pid, p.cmdline) }

// marked lists the live processes whose environment holds mark (as
// childMarkEnv).
func marked(mark string) []process {
	want := []byte(childMarkEnv + "=" + mark + "\x00")
	var out []process
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		var pid int
		if _, err := fmt.Sscan(e.Name(), &pid); err != nil {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !bytes.Contains(env, want) {
			continue // another user's, gone, or a zombie (no environment)
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		out = append(out, process{pid, strings.ReplaceAll(strings.TrimRight(string(cmdline), "\x00"), "\x00", " ")})
	}
	return out
}

// hanging tells whether the program that never answers ("sleep 1000") is
// running under mark.
func hanging(mark string) bool {
	for _, p := range marked(mark) {
		if p.cmdline == "sleep 1000" {
			return true
		}
	}
	return false
}
