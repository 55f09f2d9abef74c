// Package driver runs a live target's driver: a library's own runtime
// (node, python3, ruby) running a small script of ratebench's that reads
// one request per line on its standard input and answers one line per
// request on its standard output, its clock set by the request's time.
//
// The driver runs in a fresh temporary directory that holds its script,
// as childproc.Command runs a child (its own process group, killed by the
// kernel if the harness dies, on Linux); its standard error is kept for
// error messages; Ready gives it childproc.StartTimeout to load; and Stop
// kills it and removes the directory.
package driver

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"ratebench/internal/childproc"
)

// Spec is what Start runs: Program (a path or a name in $PATH) on the
// script, written as ScriptName into the driver's directory and given as
// the first argument, then Args.
type Spec struct {
	// Name names the driver in errors ("the node driver").
	Name       string
	Program    string
	Script     []byte
	ScriptName string
	Args       []string
	// Files are written beside the script, by name: the modules it
	// imports from its own directory.
	Files map[string][]byte
}

// Proc is a running driver.
type Proc struct {
	name  string
	path  string // the program
	dir   string
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines chan string // its standard output, line by line; closed at its end
	errs  *childproc.Tail
	done  chan struct{} // closed once it has exited
	once  sync.Once
	err   error
}

// Start starts s.
func Start(s Spec) (*Proc, error) {
	dir, err := os.MkdirTemp("", "ratebench-driver-")
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, s.ScriptName)
	if err := os.WriteFile(path, s.Script, 0o600); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	for name, b := range s.Files {
		if filepath.Base(name) != name || name == s.ScriptName {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("%s: a file beside the script is named %q: want a name of its own, no folder", s.Name, name)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	p := &Proc{name: s.Name, path: s.Program, dir: dir, lines: make(chan string, 1), errs: &childproc.Tail{}, done: make(chan struct{})}
	p.cmd = childproc.Command(s.Program, append([]string{path}, s.Args...)...)
	p.cmd.Dir = dir
	p.cmd.Stderr = p.errs
	if p.in, err = p.cmd.StdinPipe(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if err := p.cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("starting %s: %w", s.Program, err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			p.lines <- strings.TrimRight(sc.Text(), "\r")
		}
		io.Copy(io.Discard, out) // after a line too long for the scanner
		close(p.lines)
		p.cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// Ask writes line (unless empty) and returns the next line the driver
// answers, within timeout: an error when it answers "E message", exits,
// or ctx ends.
func (p *Proc) Ask(ctx context.Context, line string, timeout time.Duration) (string, error) {
	if line != "" {
		if _, err := io.WriteString(p.in, line+"\n"); err != nil {
			return "", fmt.Errorf("%s is gone (%v): %s", p.name, err, p.Stderr())
		}
	}
	ans, answered, err := p.next(ctx, timeout)
	if !answered && err == nil {
		err = fmt.Errorf("%s did not answer within %v: %s", p.name, timeout, p.Stderr())
	}
	return ans, err
}

// Ready returns the driver's first line, which it writes once it has
// loaded, within childproc.StartTimeout: past it, the error names the
// driver, its program and the deadline. It fails as Ask does otherwise.
func (p *Proc) Ready(ctx context.Context) (string, error) {
	timeout := childproc.StartTimeout()
	ans, answered, err := p.next(ctx, timeout)
	if !answered && err == nil {
		err = fmt.Errorf("%s (%s) did not say it was ready within %v, the time a program has to start (%s sets it): %s",
			p.name, p.path, timeout, childproc.StartTimeoutEnv, p.Stderr())
	}
	return ans, err
}

// next waits up to timeout for the driver's next line: not answered, and
// no error, when the time is up.
func (p *Proc) next(ctx context.Context, timeout time.Duration) (ans string, answered bool, err error) {
	tm := time.NewTimer(timeout)
	defer tm.Stop()
	select {
	case ans, ok := <-p.lines:
		if !ok {
			<-p.done
			return "", true, fmt.Errorf("%s exited (%v): %s", p.name, p.cmd.ProcessState, p.Stderr())
		}
		if msg, isErr := strings.CutPrefix(ans, "E "); isErr {
			return "", true, fmt.Errorf("%s: %s", p.name, msg)
		}
		return ans, true, nil
	case <-ctx.Done():
		return "", true, ctx.Err()
	case <-tm.C:
		return "", false, nil
	}
}

// Stderr is the last lines the driver wrote to its standard error (at
// most 3, joined by " | "), "(no output)" when there are none.
func (p *Proc) Stderr() string {
	lines := strings.Split(strings.TrimSpace(p.errs.String()), "\n")
	if len(lines) > 3 {
		lines = lines[len(lines)-3:]
	}
	if len(lines) == 1 && lines[0] == "" {
		return "(no output)"
	}
	return strings.Join(lines, " | ")
}

// Dir is the driver's temporary directory, removed by Stop.
func (p *Proc) Dir() string { return p.dir }

// Pid is the driver's process id.
func (p *Proc) Pid() int { return p.cmd.Process.Pid }

// Stop kills the driver (its process group: childproc.Kill), waits for it
// to exit and removes its directory. It is safe to call more than once.
func (p *Proc) Stop() error {
	p.once.Do(func() {
		p.in.Close()
		select {
		case <-p.done: // waited for: its group's id may be another's by now
		default:
			p.err = childproc.Kill(p.cmd)
		}
		for range p.lines { // drain, so that the reader reaches Wait
		}
		<-p.done
		if err := os.RemoveAll(p.dir); err != nil && p.err == nil {
			p.err = err
		}
	})
	return p.err
}
