//go:build !linux

package childproc

import "os/exec"

// setParentDeathSignal does nothing outside Linux: a harness that dies
// without calling Stop leaves the process running.
func setParentDeathSignal(*exec.Cmd) {}
