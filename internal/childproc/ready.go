package childproc

import (
	"context"
	"fmt"
	"net"
	"time"
)

// WaitReady waits until ready returns nil, calling it again and again
// (after 1 ms, then twice as long each time up to 50 ms) with ctx bounded
// by the deadline, for the process, named name in errors, to become
// ready: it fails at once when the process exits or ctx is done (ctx's
// error), and after StartTimeout, the error then naming the program, what
// it did not do (what, e.g. "accept a connection on 127.0.0.1:8080"), the
// deadline, ready's last error and the process's output (an error for
// which Stopped is true). The caller stops the process on failure.
func (p *Proc) WaitReady(ctx context.Context, name, what string, ready func(ctx context.Context) error) error {
	timeout := StartTimeout()
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for delay := time.Millisecond; ; delay = min(2*delay, 50*time.Millisecond) {
		err := ready(rctx)
		if err == nil {
			return nil
		}
		select {
		case <-p.done:
			return fmt.Errorf("%s (%s) exited at start (%v): %s", name, p.cmd.Path, p.err, p.Output())
		case <-rctx.Done():
		case <-time.After(delay):
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if rctx.Err() != nil {
			return &stopped{fmt.Sprintf("%s (%s) did not %s within %v, the time a program has to start (%s sets it): %v; its output: %s",
				name, p.cmd.Path, what, timeout, StartTimeoutEnv, err, p.Output()), rctx.Err()}
		}
	}
}

// Accepts returns nil when addr accepts a TCP connection within 200 ms
// (closed at once), for WaitReady.
func Accepts(ctx context.Context, addr string) error {
	d := net.Dialer{Timeout: 200 * time.Millisecond}
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	return c.Close()
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
// no more once ctx is done, nor after a start whose program did not
// answer in time (Stopped: it would not on another port either).
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
		if ctx.Err() != nil || Stopped(err) {
			break
		}
	}
	return zero, last
}
