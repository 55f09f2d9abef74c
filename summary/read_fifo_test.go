//go:build unix

package summary

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A named pipe given as a summary is refused before it is opened, which
// would wait for a writer forever; so is a folder.
func TestReadSummaryFileRefusesWhatIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "summary.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := ReadSummaryFile(fifo)
		done <- err
	}()
	var err error
	select {
	case err = <-done:
	case <-time.After(time.Minute): // a guard only: the read must not wait at all
		if w, werr := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); werr == nil {
			w.Close() // let the blocked read go
		}
		t.Fatal("reading a named pipe as a summary blocks")
	}
	if want := fifo + ": not a regular file (a named pipe)"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("named pipe: %v, want %q", err, want)
	}
	if _, err := ReadSummaryFile(dir); err == nil || !strings.Contains(err.Error(), "not a regular file (a folder)") {
		t.Errorf("folder: %v", err)
	}
}
