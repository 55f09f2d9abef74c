package traces

import (
	"bufio"
	"errors"
	"io"
)

// maxLineBytes bounds one line (one CSV record) so that a file without
// newlines cannot exhaust memory.
const maxLineBytes = 64 << 20

// readBufferSize is the bufio buffer of the text readers.
const readBufferSize = 64 << 10

var errLineTooLong = errors.New("line longer than 64 MiB")

// lineReader hands out the lines of a text trace without allocating: a line
// is a slice of the bufio buffer (or, for a line longer than the buffer, of
// a reused overflow buffer) valid until the next call.
type lineReader struct {
	br   *bufio.Reader
	long []byte // overflow buffer for lines longer than br's buffer
	line int64  // number of the last line returned, 1-based
}

func newLineReader(r io.Reader) lineReader {
	br, ok := r.(*bufio.Reader)
	if !ok || br.Size() < readBufferSize {
		br = bufio.NewReaderSize(r, readBufferSize)
	}
	return lineReader{br: br}
}

// next returns the next line with its "\n" terminator, if it has one. At the
// end of the input it returns io.EOF and no line; a last line without a
// newline is returned first with a nil error. Other errors come from the
// underlying reader.
func (l *lineReader) next() ([]byte, error) {
	b, err := l.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		l.long = append(l.long[:0], b...)
		for err == bufio.ErrBufferFull {
			if len(l.long) > maxLineBytes {
				return nil, errLineTooLong
			}
			b, err = l.br.ReadSlice('\n')
			l.long = append(l.long, b...)
		}
		b = l.long
	}
	switch {
	case err == io.EOF && len(b) > 0:
		err = nil
	case err != nil:
		return nil, err
	}
	l.line++
	return b, nil
}

// trimEOL removes a trailing "\n" or "\r\n".
func trimEOL(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
		if n := len(b); n > 0 && b[n-1] == '\r' {
			b = b[:n-1]
		}
	}
	return b
}
