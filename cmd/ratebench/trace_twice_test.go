//go:build unix

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// What reads the trace twice refuses, at once and saying why, a trace
// that is read once: -spread on a named pipe (whose second opening waited
// for a writer) or on a pipe named by /dev/fd (whose second reading was
// empty). inspect -reorder and compare's advice of the -reorder a trace
// needs read a named pipe once, and give the least the trace they read
// needs.
func TestReadTwiceRefusesWhatIsReadOnce(t *testing.T) {
	tests := []struct {
		name  string
		trace string
		args  func(path, out string) []string
		want  string // in the error; "" for none
		out   string // in the output
	}{
		{"compare -spread of a named pipe", "ts,key\n1,a\n2,b\n",
			func(p, o string) []string { return []string{"compare", "-spread", "-report=false", "-o", o, p} },
			"-spread reads the trace twice (first to find the unit of its times): %s is not a regular file (a named pipe), which is read once; give a trace file", ""},
		{"inspect -reorder of a named pipe", "ts,key\n5,a\n7,b\n1,a\n",
			func(p, _ string) []string { return []string{"inspect", "-reorder", "1ns", p} }, "", "NOT ordered: 1 requests go back in time within their key"},
		{"compare of a named pipe out of order", "ts,key\n5,a\n1,a\n",
			func(p, o string) []string { return []string{"compare", "-report=false", "-o", o, p} }, "-reorder 4ns", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			fifo := filepath.Join(dir, "trace.csv")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Fatal(err)
			}
			go func() { // one writer: the trace, once
				if w, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
					w.WriteString(tt.trace)
					w.Close()
				}
			}()
			done := make(chan error, 1)
			var out string
			go func() {
				var err error
				out, _, err = ratebench(t, tt.args(fifo, filepath.Join(dir, "out"))...)
				done <- err
			}()
			select {
			case err := <-done:
				want := tt.want
				if strings.Contains(want, "%s") {
					want = fmt.Sprintf(want, fifo)
				}
				switch {
				case want == "" && err != nil:
					t.Errorf("error %v", err)
				case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
					t.Errorf("error %v, want %s", err, want)
				case want != "" && exitStatus(err) != 2 && strings.HasPrefix(want, "-spread"):
					t.Errorf("exit status %d, want 2 (a usage error)", exitStatus(err))
				case !strings.Contains(out, tt.out):
					t.Errorf("output %q, want %q in it", out, tt.out)
				}
			case <-time.After(time.Minute): // a guard only: nothing may wait for a second writer
				if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
					w.Close()
				}
				t.Fatal("blocks opening the named pipe a second time")
			}
		})
	}
}

// -spread of standard input, as /dev/stdin or /dev/fd/N names it (a
// pipe), is refused up front, not read a second time as an empty file.
func TestSpreadRefusesAPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	w.WriteString("ts,key\n1,a\n2,b\n")
	w.Close()
	path := fmt.Sprintf("/dev/fd/%d", r.Fd())
	_, _, err = ratebench(t, "compare", "-spread", "-report=false", "-o", t.TempDir(), path)
	want := "-spread reads the trace twice (first to find the unit of its times): " + path + " is not a regular file (a named pipe)"
	if err == nil || !strings.Contains(err.Error(), want) || exitStatus(err) != 2 {
		t.Errorf("got %v (exit %d), want %s (exit 2)", err, exitStatus(err), want)
	}
}
