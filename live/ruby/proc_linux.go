package ruby

import (
	"os/exec"
	"syscall"
)

// setParentDeathSignal makes the kernel kill the driver if the harness
// dies without stopping it.
func setParentDeathSignal(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
