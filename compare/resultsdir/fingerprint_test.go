//go:build unix

package resultsdir

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A regular file's fingerprint is its size and content's; a named pipe
// has none, at once, without waiting for a writer (the replay has read
// it, and its writer is gone).
func TestFingerprint(t *testing.T) {
	dir := t.TempDir()
	file, fifo := filepath.Join(dir, "t.csv"), filepath.Join(dir, "fifo.csv")
	if err := os.WriteFile(file, []byte("ts,key\n1,a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if fp := Fingerprint(file); !strings.HasPrefix(fp, "sha256:") {
		t.Errorf("a file's fingerprint: %q", fp)
	}
	done := make(chan string, 1)
	go func() { done <- Fingerprint(fifo) }()
	select {
	case fp := <-done:
		if fp != "" {
			t.Errorf("a named pipe's fingerprint: %q, want none", fp)
		}
	case <-time.After(time.Minute): // a guard only: it must not wait at all
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
		t.Fatal("the fingerprint of a named pipe waits for a writer")
	}
}
