package traces

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// writeBufferSize is the bufio buffer of the text writers.
const writeBufferSize = 64 << 10

// checkRequest rejects requests that no reader would accept back, so that
// every written trace reads again.
func checkRequest(r Request) error {
	if err := checkTimeCost(r.T, r.Cost); err != nil {
		return err
	}
	return checkKey(r.Key)
}

// checkTimeCost is checkRequest's check of a request's time and cost.
func checkTimeCost(t, cost int64) error {
	switch {
	case t < 0:
		return fmt.Errorf("traces: cannot write request with negative ts %d", t)
	case cost < 1 || cost > MaxCost:
		return fmt.Errorf("traces: cannot write request with cost %d: must be in [1, %d]", cost, MaxCost)
	}
	return nil
}

// checkKey is checkRequest's check of a request's key.
func checkKey(key []byte) error {
	switch {
	case len(key) == 0:
		return errors.New("traces: cannot write request with an empty key")
	case !utf8.Valid(key):
		return errors.New("traces: cannot write request with a key that is not valid UTF-8")
	case containsNUL(key):
		return errors.New("traces: cannot write request with a key holding a NUL byte")
	}
	return nil
}

// textWriter is the buffered output shared by the CSV and JSON lines
// writers. It keeps the first error: after it every call fails.
type textWriter struct {
	bw      *bufio.Writer
	closer  io.Closer // the file, for writers made by Create
	scratch []byte    // one encoded record
	err     error
	closed  bool
}

func newTextWriter(w io.Writer, closer io.Closer) textWriter {
	return textWriter{bw: bufio.NewWriterSize(w, writeBufferSize), closer: closer}
}

var errWriterClosed = errors.New("traces: write to a closed writer")

func (t *textWriter) write(b []byte) error {
	if t.err != nil {
		return t.err
	}
	if _, err := t.bw.Write(b); err != nil {
		t.err = err
	}
	return t.err
}

// close flushes the buffer and closes the file, if any. Closing again
// returns nil after a successful Close, else the first error.
func (t *textWriter) close() error {
	if t.closed {
		if t.err == errWriterClosed {
			return nil
		}
		return t.err
	}
	t.closed = true
	err := t.err
	if err == nil {
		err = t.bw.Flush()
	}
	if t.closer != nil {
		if cerr := t.closer.Close(); err == nil {
			err = cerr
		}
	}
	if t.err == nil {
		t.err = err
		if err == nil {
			t.err = errWriterClosed
		}
	}
	return err
}

// containsNUL reports whether b holds a NUL byte.
func containsNUL(b []byte) bool { return bytes.IndexByte(b, 0) >= 0 }
