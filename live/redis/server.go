package redis

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"ratebench/internal/childproc"
)

// Server is a redis-server process that the harness started for itself:
// bound to 127.0.0.1 on a free port, with persistence off (--save "",
// --appendonly no) and its working directory in a fresh temporary
// directory. A server given by address (Options.Addr: ratebench live
// redis:... -addr) is never started or stopped by the harness, which
// deletes the replay's keys from it afterwards.
type Server struct {
	// Addr is host:port of the server.
	Addr string

	proc *childproc.Proc
}

// ServerBinary is the program Start runs when given no path.
const ServerBinary = "redis-server"

// Start runs redis-server (binary, or ServerBinary from $PATH when binary is
// empty) on 127.0.0.1 at a free port and waits until it answers PING, for
// childproc.StartTimeout or until ctx is done. Stop
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
	return childproc.OnFreePort(ctx, func(port int) (*Server, error) { return startServer(ctx, path, port) })
}

// startServer runs redis-server at path on 127.0.0.1:port.
func startServer(ctx context.Context, path string, port int) (*Server, error) {
	dir, err := childproc.NewDir("ratebench-redis-")
	if err != nil {
		return nil, err
	}
	proc, err := childproc.Start(dir, path,
		"--port", strconv.Itoa(port),
		"--bind", "127.0.0.1",
		"--save", "",
		"--appendonly", "no",
		"--dir", dir,
		"--daemonize", "no",
		"--logfile", "",
	)
	if err != nil {
		return nil, err
	}
	s := &Server{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), proc: proc}
	if err := s.waitReady(ctx); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

// waitReady polls the server with PING until it answers +PONG.
func (s *Server) waitReady(ctx context.Context) error {
	return s.proc.WaitReady(ctx, "redis-server", "answer PING on "+s.Addr, func(ctx context.Context) error { return ping(ctx, s.Addr) })
}

// ping sends one inline PING and expects +PONG.
func ping(ctx context.Context, addr string) error {
	d := net.Dialer{Timeout: 200 * time.Millisecond}
	c, err := d.DialContext(ctx, "tcp", addr)
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

// Stop kills the server, waits for it to exit and removes its directory.
// It is safe to call more than once.
func (s *Server) Stop() error { return s.proc.Stop() }

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
