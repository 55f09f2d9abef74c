//go:build !linux

package ruby

import "os/exec"

// setParentDeathSignal: only Linux has a parent death signal; elsewhere
// Close alone stops the driver.
func setParentDeathSignal(*exec.Cmd) {}
