//go:build !linux

package live

import "errors"

func monotonicNS() (int64, error) {
	return 0, errors.New("a replay kept to the milliseconds of CLOCK_MONOTONIC runs only on Linux")
}
