// Package childproc runs the programs the harness starts, in one way
// (Command): a version probe that runs to its end (Probe), a server it
// owns (redis-server, nginx, haproxy, varnishd: Start), a driver (package
// live/driver). Each runs in a process group of its own, which Kill ends
// whole; the kernel kills it should the harness die (on Linux); and it
// has StartTimeout to become ready, as its caller tells readiness (a
// probe's end, a connection accepted, an answer, a driver's first line),
// or until the caller's context is done, after which it is stopped and
// the error names it and the deadline. A server runs in its own temporary
// directory, its output kept for error messages, and is stopped, with its
// directory removed, by Stop, which its owner calls on every path (a
// replay's end, an error, SIGINT or SIGTERM).
package childproc

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
)

// Proc is a running child process.
type Proc struct {
	// Dir is the process's fresh temporary directory, its working
	// directory, removed by Stop.
	Dir string

	cmd  *exec.Cmd
	out  *Tail
	done chan struct{} // closed when the process has exited
	err  error         // its exit status, once done is closed

	stopOnce sync.Once
	stopErr  error
}

// NewDir makes the fresh temporary directory a Proc will own, named after
// pattern as os.MkdirTemp names it, for the caller to write the process's
// configuration into before Start.
func NewDir(pattern string) (string, error) { return os.MkdirTemp("", pattern) }

// Start runs path with args in dir (from NewDir), which it owns from then
// on: a failed start removes it. The process runs until Stop, whatever
// happens to the context its caller waits for it under (WaitReady): the
// caller stops it on every path.
func Start(dir, path string, args ...string) (*Proc, error) {
	p := &Proc{Dir: dir, out: &Tail{}, done: make(chan struct{})}
	p.cmd = Command(path, args...)
	p.cmd.Dir = dir
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	if err := p.cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("starting %s: %w", path, err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// Exited is closed once the process has exited.
func (p *Proc) Exited() <-chan struct{} { return p.done }

// Err is the process's exit status, once Exited is closed.
func (p *Proc) Err() error { return p.err }

// Pid is the process's id.
func (p *Proc) Pid() int { return p.cmd.Process.Pid }

// Output returns the last lines the process wrote (at most 5, joined by
// " | "), "(no output)" when it wrote none: for an error message.
func (p *Proc) Output() string {
	lines := strings.Split(strings.TrimSpace(p.out.String()), "\n")
	if len(lines) > 5 {
		lines = lines[len(lines)-5:]
	}
	if len(lines) == 1 && lines[0] == "" {
		return "(no output)"
	}
	return strings.Join(lines, " | ")
}

// Stop kills the process (its group: Kill), waits for it to exit and
// removes its directory.
// It is safe to call more than once.
func (p *Proc) Stop() error {
	p.stopOnce.Do(func() {
		select {
		case <-p.done: // waited for: its group's id may be another's by now
		default:
			if err := Kill(p.cmd); err != nil {
				p.stopErr = err
				return
			}
			<-p.done
		}
		if err := os.RemoveAll(p.Dir); err != nil {
			p.stopErr = err
		}
	})
	return p.stopErr
}

// Tail keeps the last 4 KiB written to it, for a process's writers and
// its readers at once.
type Tail struct {
	mu  sync.Mutex
	buf []byte
}

func (b *Tail) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if len(b.buf) > 4096 {
		b.buf = b.buf[len(b.buf)-4096:]
	}
	return len(p), nil
}

func (b *Tail) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}
