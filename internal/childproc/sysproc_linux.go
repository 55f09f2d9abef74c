package childproc

import (
	"errors"
	"os/exec"
	"syscall"
)

// SetParentDeathSignal makes the kernel kill the process if the harness
// dies without stopping it (SIGKILL, which no handler catches), and puts
// it in a process group of its own, for Kill.
//
// The kernel sends the parent-death signal when the thread that started
// the child exits, not the process. Go's runtime never ends a thread
// save one a goroutine locked (runtime.LockOSThread) and left locked at
// its end; nothing in ratebench locks a thread, so a child outlives its
// starting thread only as long as the harness runs. (Starting every
// child from one locked thread that never exits would hold even then, at
// the cost of handing each start to it.) What the child starts in turn is
// not the kernel's to kill: a program that leaves processes behind when
// it is killed (not ratebench's children, each one process or, varnishd,
// a manager whose worker exits with it) would leave them should the
// harness itself be killed; Kill, on every other path, ends the group.
func SetParentDeathSignal(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
}

// Kill kills cmd's process and every process of its group (its own, from
// SetParentDeathSignal), nil when none is left. Call it before the
// process has been waited for: the group's id is the process's, which
// the system may give another process once it is gone.
func Kill(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	return nil
}
