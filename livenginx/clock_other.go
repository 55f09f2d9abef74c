//go:build !linux

package livenginx

import "errors"

func monotonicNS() (int64, error) {
	return 0, errors.New("ratebench live reads nginx's monotonic clock, which it knows only on Linux")
}
