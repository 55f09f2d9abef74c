package childproc

import (
	"os"
	"os/exec"
	"time"
)

// StartTimeoutEnv names the environment variable that sets StartTimeout,
// a duration as Go writes it (30s, 1m): more for a slow machine, less for
// the tests of a program that never answers.
const StartTimeoutEnv = "RATEBENCH_START_TIMEOUT"

// DefaultStartTimeout is StartTimeout when StartTimeoutEnv is unset.
const DefaultStartTimeout = 10 * time.Second

// StartTimeout is how long a program the harness starts has to become
// ready: DefaultStartTimeout, or StartTimeoutEnv's duration when it is a
// positive one.
func StartTimeout() time.Duration {
	if d, err := time.ParseDuration(os.Getenv(StartTimeoutEnv)); err == nil && d > 0 {
		return d
	}
	return DefaultStartTimeout
}

// Command returns the command that runs path with args as a child of the
// harness, for Start, Probe and package live/driver alike: in a process
// group of its own, which Kill ends whole (a program that is a shell
// script, or that forks, leaves nothing running), killed by the kernel
// should the harness die (SetParentDeathSignal), and waited for, once it
// has exited, at most a second more for its output (which a process it
// left behind might hold open).
func Command(path string, args ...string) *exec.Cmd {
	return configure(exec.Command(path, args...))
}

func configure(cmd *exec.Cmd) *exec.Cmd {
	SetParentDeathSignal(cmd)
	cmd.WaitDelay = time.Second
	return cmd
}
