package live

import (
	"syscall"
	"unsafe"
)

// monotonicNS reads CLOCK_MONOTONIC, the clock nginx's ngx_current_msec
// is read from on Linux (ngx_monotonic_time).
func monotonicNS() (int64, error) {
	var ts syscall.Timespec
	const clockMonotonic = 1
	if _, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockMonotonic, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		return 0, e
	}
	return ts.Nano(), nil
}
