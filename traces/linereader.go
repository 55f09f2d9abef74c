package traces

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// readBufferSize is the bufio buffer of the text readers.
const readBufferSize = 64 << 10

// errLineTooLong is returned by lineReader.next for a line longer than its
// limit. The line is counted; its rest may be left unread (see rest).
var errLineTooLong = errors.New("line too long")

// lineReader hands out the lines of a text trace without allocating: a line
// is a slice of the bufio buffer (or, for a line longer than the buffer, of
// a reused overflow buffer) valid until the next call. A line is refused as
// soon as it passes its limit: no more than the limit of one line is ever
// held, and a line that never ends (/dev/zero) fails after about the limit
// is read. The rest of a line refused is read through, without being kept,
// only when the next line is asked for.
type lineReader struct {
	br   *bufio.Reader
	mem  *memLines // when set, the lines come from it instead of br
	long []byte    // overflow buffer for lines longer than br's buffer
	line int64     // number of the last line returned (or refused), 1-based
	max  int       // longest line, without its terminator

	// tooLong is the length of the last line refused, or -1 when it was
	// refused before its end was read.
	tooLong int64
	rest    bool // the rest of the line refused is still to be read

	// With csv set, the quote state qs is carried over the lines refused
	// and their unread rest, so that the CSV reader knows where the record
	// ends.
	csv bool
	qs  quoteState
	sep byte // the CSV field separator
}

func newLineReader(r io.Reader, max int) lineReader {
	br, ok := r.(*bufio.Reader)
	if !ok || br.Size() < readBufferSize {
		br = bufio.NewReaderSize(r, readBufferSize)
	}
	return lineReader{br: br, max: max}
}

// readSlice is br.ReadSlice('\n'), or mem's.
func (l *lineReader) readSlice() ([]byte, error) {
	if l.mem != nil {
		return l.mem.readSlice()
	}
	return l.br.ReadSlice('\n')
}

// memLines hands out the lines of a part of a trace held in memory exactly
// as bufio.Reader.ReadSlice('\n') of a readBufferSize buffer over a reader of
// it would, without copying them: a line; or, when no line ends within
// readBufferSize bytes, that many with bufio.ErrBufferFull; or else what is
// left with end, which the reader of it would have returned after it
// (io.EOF, or an I/O error).
type memLines struct {
	data []byte
	off  int
	end  error
}

func (m *memLines) readSlice() ([]byte, error) {
	rest := m.data[m.off:]
	win := rest[:min(len(rest), readBufferSize)]
	if i := bytes.IndexByte(win, '\n'); i >= 0 {
		m.off += i + 1
		return rest[:i+1], nil
	}
	if len(rest) >= readBufferSize {
		m.off += readBufferSize
		return win, bufio.ErrBufferFull
	}
	m.off = len(m.data)
	return rest, m.end
}

// next returns the next line with its "\n" terminator, if it has one. At the
// end of the input it returns io.EOF and no line; a last line without a
// newline is returned first with a nil error. A line longer than max is
// reported as errLineTooLong. Other errors come from the underlying reader.
func (l *lineReader) next() ([]byte, error) { return l.nextLimit(l.max) }

// nextLimit is next for a line of at most limit bytes (a CSV record's next
// line, once its first lines took part of the limit).
func (l *lineReader) nextLimit(limit int) ([]byte, error) {
	if err := l.skipRest(); err != nil {
		return nil, err
	}
	b, err := l.readSlice()
	if err == bufio.ErrBufferFull {
		return l.nextLong(b, limit)
	}
	switch {
	case err == io.EOF && len(b) > 0:
	case err != nil:
		return nil, err
	}
	l.line++
	if n := len(trimEOL(b)); n > limit {
		if l.csv {
			l.qs = scanQuotes(l.qs, l.dropBOM(b), l.sep)
		}
		l.tooLong = int64(n)
		return nil, errLineTooLong
	}
	return b, nil
}

// nextLong reads a line longer than the bufio buffer, which begins with b,
// into l.long, and refuses it as soon as it passes limit, leaving its rest
// unread.
func (l *lineReader) nextLong(b []byte, limit int) ([]byte, error) {
	l.long = l.long[:0]
	err := bufio.ErrBufferFull
	for err == bufio.ErrBufferFull {
		// No line end in b: all of it is content, but for a last '\r' that
		// a '\n' may follow.
		n := len(l.long) + len(b)
		if b[len(b)-1] == '\r' {
			n--
		}
		if n > limit {
			l.refuseLong(b)
			l.rest = true
			return nil, errLineTooLong
		}
		l.long = append(l.long, b...)
		b, err = l.readSlice()
	}
	if err != nil && err != io.EOF {
		return nil, err
	}
	n := len(l.long) + len(b) // b ends the line, or the input
	if len(b) > 0 && b[len(b)-1] == '\n' {
		n--
		if len(b) > 1 && b[len(b)-2] == '\r' || len(b) == 1 && l.long[len(l.long)-1] == '\r' {
			n--
		}
	}
	if n > limit {
		l.refuseLong(b)
		return nil, errLineTooLong
	}
	l.long = append(l.long, b...)
	l.line++
	return l.long, nil
}

// refuseLong counts the long line in l.long, b being what was read of it
// last, as refused before its end.
func (l *lineReader) refuseLong(b []byte) {
	l.line++
	if l.csv {
		start, rest := l.long, b // the line's start, where a byte order mark may be
		if len(start) == 0 {
			start, rest = b, nil
		}
		l.qs = scanQuotes(scanQuotes(l.qs, l.dropBOM(start), l.sep), rest, l.sep)
	}
	l.tooLong = -1
}

// dropBOM drops a byte order mark from the start of line 1, which the CSV
// reader does not take as part of its fields.
func (l *lineReader) dropBOM(b []byte) []byte {
	if l.line == 1 {
		return bytes.TrimPrefix(b, utf8BOM)
	}
	return b
}

// skipRest reads through the rest of the line refused last, if it is still
// to be read.
func (l *lineReader) skipRest() error {
	for l.rest {
		b, err := l.readSlice()
		if l.csv {
			l.qs = scanQuotes(l.qs, b, l.sep)
		}
		switch err {
		case bufio.ErrBufferFull:
		case nil, io.EOF:
			l.rest = false
		default:
			return err
		}
	}
	return nil
}

// tooLongMsg describes the line that next refused.
func (l *lineReader) tooLongMsg() string {
	if l.tooLong < 0 {
		return fmt.Sprintf("line longer than the limit of %d bytes (-max-line)", l.max)
	}
	return fmt.Sprintf("line of %d bytes exceeds the limit of %d (-max-line)", l.tooLong, l.max)
}

// readErr turns an error of the underlying reader into one that names the
// file and the line being read.
func (l *lineReader) readErr(name string, err error) error {
	line := l.line + 1
	if l.rest { // in the rest of a line refused
		line = l.line
	}
	return fmt.Errorf("%s:%d: %w", name, line, err)
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
