//go:build !linux

package redisreplay

import "os/exec"

// setParentDeathSignal does nothing outside Linux: a harness that dies
// without calling Stop leaves the server running.
func setParentDeathSignal(*exec.Cmd) {}
