//go:build unix

package traces

import (
	"errors"
	"path/filepath"
	"syscall"
	"testing"
)

// Opening a named pipe that no one writes to stops when cancelled.
func TestCancelOpenFIFO(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fifo.csv")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	cancel := make(chan struct{})
	stopsWithin(t, cancel, func() {
		if _, err := Open(path, FormatAuto, Options{Cancel: cancel}); !errors.Is(err, ErrInterrupted) || err.Error() != path+": reading interrupted" {
			t.Errorf("Open(fifo): %v", err)
		}
	})
}
