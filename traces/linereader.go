package traces

import (
	"bufio"
	"errors"
	"fmt"
	"io"
)

// readBufferSize is the bufio buffer of the text readers.
const readBufferSize = 64 << 10

// errLineTooLong is returned by lineReader.next for a line longer than its
// limit; the line has been read (and thrown away) and counted.
var errLineTooLong = errors.New("line too long")

// lineReader hands out the lines of a text trace without allocating: a line
// is a slice of the bufio buffer (or, for a line longer than the buffer, of
// a reused overflow buffer) valid until the next call. Lines longer than max
// are read through without being kept, so memory stays bounded.
type lineReader struct {
	br   *bufio.Reader
	long []byte // overflow buffer for lines longer than br's buffer
	line int64  // number of the last line returned (or skipped), 1-based
	max  int    // longest line, without its terminator

	tooLong int64 // length of the last line longer than max

	// With csv set, the quote state qs is carried over the lines thrown away
	// for being too long, so that the CSV reader knows where the record
	// ends.
	csv bool
	qs  quoteState
}

func newLineReader(r io.Reader, max int) lineReader {
	br, ok := r.(*bufio.Reader)
	if !ok || br.Size() < readBufferSize {
		br = bufio.NewReaderSize(r, readBufferSize)
	}
	return lineReader{br: br, max: max}
}

// next returns the next line with its "\n" terminator, if it has one. At the
// end of the input it returns io.EOF and no line; a last line without a
// newline is returned first with a nil error. A line longer than max is
// consumed and reported as errLineTooLong (its length in l.tooLong). Other
// errors come from the underlying reader.
func (l *lineReader) next() ([]byte, error) {
	b, err := l.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		l.long = append(l.long[:0], b...)
		for err == bufio.ErrBufferFull {
			if len(l.long) > l.max { // no '\n' yet: all of it is content
				return nil, l.discard()
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
	if n := len(trimEOL(b)); n > l.max {
		if l.csv {
			l.qs = scanQuotes(l.qs, b)
		}
		l.tooLong = int64(n)
		return nil, errLineTooLong
	}
	return b, nil
}

// discard reads the rest of a line that is too long, whose start is in
// l.long.
func (l *lineReader) discard() error {
	n := int64(len(l.long))
	if l.csv {
		l.qs = scanQuotes(l.qs, l.long)
	}
	for {
		b, err := l.br.ReadSlice('\n')
		if l.csv {
			l.qs = scanQuotes(l.qs, b)
		}
		if err == bufio.ErrBufferFull {
			n += int64(len(b))
			continue
		}
		n += int64(len(trimEOL(b)))
		if err != nil && err != io.EOF {
			return err
		}
		break
	}
	l.line++
	l.tooLong = n
	return errLineTooLong
}

// tooLongMsg describes the line that next reported as too long.
func (l *lineReader) tooLongMsg() string {
	return fmt.Sprintf("line of %d bytes exceeds the limit of %d (-max-line)", l.tooLong, l.max)
}

// readErr turns an error of the underlying reader into one that names the
// file and the line being read.
func (l *lineReader) readErr(name string, err error) error {
	return fmt.Errorf("%s:%d: %w", name, l.line+1, err)
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
