package childproc

import (
	"os/exec"
	"syscall"
)

// SetParentDeathSignal makes the kernel kill the process if the harness
// dies without stopping it.
func SetParentDeathSignal(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
