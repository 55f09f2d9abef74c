package redisreplay

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Server is a redis-server process that the harness started for itself:
// bound to 127.0.0.1 on a free port, with persistence off (--save "",
// --appendonly no) and its working directory in a fresh temporary
// directory. Since nobody else uses it, a replay may FLUSHDB it between
// passes (Config.Flush). A server given by address (ratebench redis -addr)
// is never started, flushed or stopped by the harness.
type Server struct {
	// Addr is host:port of the server, for Config.Addr.
	Addr string

	cmd  *exec.Cmd
	dir  string
	log  *syncBuffer
	done chan struct{} // closed when the process has exited
	err  error         // the process's exit status, once done is closed

	stopOnce sync.Once
	stopErr  error
}

// ServerBinary is the program Start runs when given no path.
const ServerBinary = "redis-server"

// startTimeout bounds how long Start waits for the server to answer PING.
const startTimeout = 10 * time.Second

// Start runs redis-server (binary, or ServerBinary from $PATH when binary is
// empty) on 127.0.0.1 at a free port and waits until it answers PING. Stop
// it with Stop. The port is chosen by asking the kernel for a free one and
// releasing it; if another process takes it first, the start is retried on
// another port.
func Start(ctx context.Context, binary string) (*Server, error) {
	if binary == "" {
		binary = ServerBinary
	}
	path, err := exec.LookPath(binary)
	if err != nil {
		return nil, fmt.Errorf("redis-server not found (%w); install it (apt-get install -y redis-server) or give the address of a running server", err)
	}
	var last error
	for range 3 {
		s, err := start(ctx, path)
		if err == nil {
			return s, nil
		}
		last = err
		if ctx.Err() != nil {
			break
		}
	}
	return nil, last
}

func start(ctx context.Context, path string) (*Server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "ratebench-redis-")
	if err != nil {
		return nil, err
	}
	s := &Server{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), dir: dir, log: &syncBuffer{}, done: make(chan struct{})}
	s.cmd = exec.Command(path,
		"--port", strconv.Itoa(port),
		"--bind", "127.0.0.1",
		"--save", "",
		"--appendonly", "no",
		"--dir", dir,
		"--daemonize", "no",
		"--logfile", "",
	)
	s.cmd.Dir = dir
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	setParentDeathSignal(s.cmd)
	if err := s.cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("starting %s: %w", path, err)
	}
	go func() {
		s.err = s.cmd.Wait()
		close(s.done)
	}()
	if err := s.waitReady(ctx); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

// waitReady polls the server with PING until it answers +PONG.
func (s *Server) waitReady(ctx context.Context) error {
	deadline := time.Now().Add(startTimeout)
	for delay := time.Millisecond; ; delay = min(2*delay, 50*time.Millisecond) {
		if ping(s.Addr) == nil {
			return nil
		}
		select {
		case <-s.done:
			return fmt.Errorf("redis-server exited before answering PING (%v): %s", s.err, s.log.tail())
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(delay):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("redis-server at %s did not answer PING within %v: %s", s.Addr, startTimeout, s.log.tail())
		}
	}
}

// ping sends one inline PING and expects +PONG.
func ping(addr string) error {
	c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(500 * time.Millisecond))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if strings.TrimSpace(line) != "+PONG" {
		return fmt.Errorf("PING answered %q", strings.TrimSpace(line))
	}
	return nil
}

// freePort asks the kernel for a free TCP port on 127.0.0.1.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Stop kills the server, waits for it to exit and removes its directory.
// It is safe to call more than once.
func (s *Server) Stop() error {
	s.stopOnce.Do(func() {
		select {
		case <-s.done:
		default:
			if err := s.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
				s.stopErr = err
			}
			<-s.done
		}
		if err := os.RemoveAll(s.dir); err != nil && s.stopErr == nil {
			s.stopErr = err
		}
	})
	return s.stopErr
}

// TB is the part of testing.TB that StartForTest uses (so that this package
// does not import testing).
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
	Cleanup(func())
}

// StartForTest starts a server for a test and stops it when the test ends.
// A missing redis-server fails the test (it is not skipped): CI installs
// it, and a test suite that silently skips its Redis tests proves nothing.
func StartForTest(t TB) *Server {
	t.Helper()
	if _, err := exec.LookPath(ServerBinary); err != nil {
		t.Fatalf("redis-server is not installed (%v): these tests replay traces against a real Redis; install it with apt-get install -y redis-server", err)
	}
	s, err := Start(context.Background(), "")
	if err != nil {
		t.Fatalf("starting redis-server: %v", err)
	}
	t.Cleanup(func() { s.Stop() })
	return s
}

// syncBuffer is a bytes.Buffer safe for the process's writers and readers.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// tail returns the last lines of the log, for errors.
func (b *syncBuffer) tail() string {
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) > 5 {
		lines = lines[len(lines)-5:]
	}
	if len(lines) == 1 && lines[0] == "" {
		return "(no output)"
	}
	return strings.Join(lines, " | ")
}
