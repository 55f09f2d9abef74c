//go:build !linux

package childproc

import (
	"errors"
	"os"
	"os/exec"
)

// SetParentDeathSignal does nothing outside Linux: a harness that dies
// without calling Stop leaves the process running.
func SetParentDeathSignal(*exec.Cmd) {}

// Kill kills cmd's process (alone: outside Linux it has no group of its
// own), nil when it is gone.
func Kill(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	if err := cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	return nil
}
