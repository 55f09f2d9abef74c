//go:build !linux

package node

import "os/exec"

// setParentDeathSignal does nothing outside Linux: a harness that dies
// without stopping node leaves it running.
func setParentDeathSignal(*exec.Cmd) {}
