package traces

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// ErrInterrupted is the error of a reader whose Options.Cancel was closed
// (wrapped with the file and line it was at; test it with errors.Is): it
// stopped reading, even while it was waiting for input that did not come
// or skipping bad records.
var ErrInterrupted = errors.New("reading interrupted")

// interruptible is a reader that can tell whether its Options.Cancel was
// closed (every reader of this package): Reorder asks it while it fills its
// buffer.
type interruptible interface {
	interrupted() bool
}

// closed reports whether cancel is closed; a nil channel never is.
func closed(cancel <-chan struct{}) bool {
	select {
	case <-cancel:
		return true
	default:
		return false
	}
}

// cancelReader reads r until cancel is closed; from then on Read fails with
// ErrInterrupted, at once even when a read is waiting for input (a pipe
// with nothing in it): such a read is made in a goroutine of its own, and
// left behind when cancel closes. A regular file, which never makes a read
// wait long, is read directly, with the check before each read.
type cancelReader struct {
	r      io.Reader
	cancel <-chan struct{}
	direct bool
	buf    []byte // what the goroutine reads into
	done   chan readResult
	err    error
}

type readResult struct {
	n   int
	err error
}

// newCancelReader returns r reading until cancel is closed, or r itself
// when cancel is nil.
func newCancelReader(r io.Reader, cancel <-chan struct{}) io.Reader {
	if cancel == nil {
		return r
	}
	c := &cancelReader{r: r, cancel: cancel, done: make(chan readResult, 1)}
	if f, ok := r.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			c.direct = true
		}
	}
	return c
}

func (c *cancelReader) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	if closed(c.cancel) {
		c.err = ErrInterrupted
		return 0, c.err
	}
	if c.direct || len(p) == 0 {
		return c.r.Read(p)
	}
	if cap(c.buf) < len(p) {
		c.buf = make([]byte, len(p))
	}
	buf := c.buf[:len(p)]
	go func() {
		n, err := c.r.Read(buf)
		c.done <- readResult{n, err}
	}()
	select {
	case res := <-c.done:
		return copy(p, buf[:res.n]), res.err
	case <-c.cancel:
		// The read goes on in its goroutine; buf is never used again.
		c.err = ErrInterrupted
		return 0, c.err
	}
}

// openFile opens path for reading, giving up when cancel closes (opening a
// named pipe waits for a writer).
func openFile(path string, cancel <-chan struct{}) (*os.File, error) {
	if cancel == nil {
		return os.Open(path)
	}
	type opened struct {
		f   *os.File
		err error
	}
	ch := make(chan opened, 1)
	go func() {
		f, err := os.Open(path)
		ch <- opened{f, err}
	}()
	select {
	case o := <-ch:
		return o.f, o.err
	case <-cancel:
		go func() { // close the file should it open after all
			if o := <-ch; o.f != nil {
				o.f.Close()
			}
		}()
		return nil, fmt.Errorf("%s: %w", path, ErrInterrupted)
	}
}
