package node

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// proc is a node process the session owns, spoken to by lines on its
// standard input and output: in its own temporary directory (the driver
// script is written there), its standard error kept for error messages,
// killed by the kernel if the harness dies (on Linux), and killed, with its
// directory removed, by stop.
type proc struct {
	dir   string
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines chan string // its standard output, line by line; closed at its end
	errs  *tail
	done  chan struct{} // closed once it has exited
	once  sync.Once
}

// startProc writes script into a fresh temporary directory and runs node
// on it with args.
func startProc(node string, script []byte, args ...string) (*proc, error) {
	dir, err := os.MkdirTemp("", "ratebench-node-")
	if err != nil {
		return nil, err
	}
	path := dir + string(os.PathSeparator) + "driver.cjs"
	if err := os.WriteFile(path, script, 0o600); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	p := &proc{dir: dir, lines: make(chan string, 1), errs: &tail{}, done: make(chan struct{})}
	p.cmd = exec.Command(node, append([]string{path}, args...)...)
	p.cmd.Dir = dir
	p.cmd.Stderr = p.errs
	setParentDeathSignal(p.cmd)
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
		return nil, fmt.Errorf("starting %s: %w", node, err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		close(p.lines)
		p.cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// ask writes line (if not empty) and returns the next line node answers,
// within timeout: an error when it answers "E ...", ends, or ctx ends.
func (p *proc) ask(ctx context.Context, line string, timeout time.Duration) (string, error) {
	if line != "" {
		if _, err := io.WriteString(p.in, line+"\n"); err != nil {
			return "", fmt.Errorf("the node driver is gone (%v): %s", err, p.stderr())
		}
	}
	tm := time.NewTimer(timeout)
	defer tm.Stop()
	select {
	case ans, ok := <-p.lines:
		if !ok {
			<-p.done
			return "", fmt.Errorf("the node driver exited (%v): %s", p.cmd.ProcessState, p.stderr())
		}
		if msg, isErr := strings.CutPrefix(ans, "E "); isErr {
			return "", fmt.Errorf("the node driver: %s", msg)
		}
		return ans, nil
	case <-ctx.Done():
		return "", ctx.Err()
	case <-tm.C:
		return "", fmt.Errorf("the node driver did not answer within %v: %s", timeout, p.stderr())
	}
}

// stderr is the last of what node wrote to its standard error.
func (p *proc) stderr() string {
	s := strings.TrimSpace(p.errs.String())
	if s == "" {
		return "(no output)"
	}
	return strings.Join(strings.Fields(s), " ")
}

// stop kills node, waits for it to exit and removes its directory. It is
// safe to call more than once.
func (p *proc) stop() error {
	var err error
	p.once.Do(func() {
		p.in.Close()
		if kerr := p.cmd.Process.Kill(); kerr != nil && !errors.Is(kerr, os.ErrProcessDone) {
			err = kerr
		}
		for range p.lines { // drain, so that the reader reaches Wait
		}
		<-p.done
		if rerr := os.RemoveAll(p.dir); rerr != nil && err == nil {
			err = rerr
		}
	})
	return err
}

// tail keeps the last 4 KiB written to it.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (b *tail) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if len(b.buf) > 4096 {
		b.buf = b.buf[len(b.buf)-4096:]
	}
	return len(p), nil
}

func (b *tail) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}
