// Package childproc runs a server process that the harness starts and
// owns (redis-server, nginx): in its own temporary directory, its output
// kept for error messages, killed by the kernel if the harness dies (on
// Linux), and stopped, with its directory removed, on demand.
package childproc

import (
	"context"
	"errors"
	"fmt"
	"net"
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
// on: a failed start removes it.
func Start(dir, path string, args ...string) (*Proc, error) {
	p := &Proc{Dir: dir, out: &Tail{}, done: make(chan struct{})}
	p.cmd = exec.Command(path, args...)
	p.cmd.Dir = dir
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	SetParentDeathSignal(p.cmd)
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

// Stop kills the process, waits for it to exit and removes its directory.
// It is safe to call more than once.
func (p *Proc) Stop() error {
	p.stopOnce.Do(func() {
		select {
		case <-p.done:
		default:
			if err := p.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
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

// FreePort asks the kernel for a free TCP port on 127.0.0.1 (and releases
// it: a caller whose start fails because another process took it first
// tries again).
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// OnFreePort runs start on a free TCP port of 127.0.0.1 (FreePort), up to
// three times: another process may take the port between FreePort's
// release of it and the server's binding it, which fails that start. It
// returns the first start that succeeds, else the last error, and tries
// no more once ctx is done.
func OnFreePort[T any](ctx context.Context, start func(port int) (T, error)) (T, error) {
	var zero T
	var last error
	for range 3 {
		port, err := FreePort()
		if err == nil {
			var s T
			if s, err = start(port); err == nil {
				return s, nil
			}
		}
		last = err
		if ctx.Err() != nil {
			break
		}
	}
	return zero, last
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
