package childproc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
)

// Probe runs path with args to its end, as a version probe does, and
// returns what it wrote, standard output and standard error together, and
// how it ended. It has StartTimeout to finish; past it, or once ctx is
// done, it is killed, and the error, for which Stopped is true, names the
// command line and the deadline, or wraps ctx's error.
func Probe(ctx context.Context, path string, args ...string) ([]byte, error) {
	timeout := StartTimeout()
	pctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := configure(exec.CommandContext(pctx, path, args...))
	cmd.Cancel = func() error { return Kill(cmd) }
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	line := strings.Join(append([]string{path}, args...), " ")
	switch {
	case ctx.Err() != nil:
		return out.Bytes(), &stopped{line + ": " + ctx.Err().Error(), ctx.Err()}
	case pctx.Err() != nil:
		return out.Bytes(), &stopped{fmt.Sprintf("%s did not finish within %v, the time a program has to start (%s sets it); stopped it",
			line, timeout, StartTimeoutEnv), pctx.Err()}
	}
	return out.Bytes(), err
}

// stopped is the error of a program that did not answer in time, or
// whose waiting ctx ended: Probe's, WaitReady's.
type stopped struct {
	msg string
	err error // ctx's
}

func (e *stopped) Error() string { return e.msg }
func (e *stopped) Unwrap() error { return e.err }

// Stopped reports whether err is Probe's for a probe it stopped (past
// StartTimeout, or its context done), or WaitReady's for a process that
// was not ready in time: the caller returns it as it is, not as what the
// program answered, and does not try again (OnFreePort).
func Stopped(err error) bool {
	var s *stopped
	return errors.As(err, &s)
}
