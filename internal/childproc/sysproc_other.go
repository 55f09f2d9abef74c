//go:build !linux

package childproc

import "os/exec"

// SetParentDeathSignal does nothing outside Linux: a harness that dies
// without calling Stop leaves the process running.
func SetParentDeathSignal(*exec.Cmd) {}
