//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// diff given a named pipe returns an error at once instead of waiting for
// a writer.
func TestDiffRefusesANamedPipe(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "summary.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := diffCmd(t, "testdata/small.summary.json", fifo)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), fifo+": not a regular file (a named pipe)") {
			t.Errorf("diff of a named pipe: %v", err)
		}
	case <-time.After(time.Minute): // a guard only: the diff must not wait at all
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
		t.Fatal("diff of a named pipe blocks")
	}
}
