package traces

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
)

// CSVReader reads a CSV trace.
//
// The model: the first line is a header naming the columns; "ts" and "key"
// are required, "cost" is optional, in any order, and other columns are
// ignored. Names are case-sensitive (spaces around them are ignored) and a
// UTF-8 byte order mark before the header is skipped. Every following line
// is one request with exactly as many fields as the header. Fields may be
// quoted as in RFC 4180: a quoted field may hold commas, doubled quotes ""
// and line breaks, which are kept as they are (a "\r\n" inside quotes stays
// "\r\n"). Lines end in "\n" or "\r\n".
//
//   - ts is an integer count of Options.TSUnit, decimal seconds read exactly
//     ("1700000000.123456789", at most nanosecond precision), or an RFC 3339
//     time ("2024-01-02T03:04:05.123Z", "...+01:00"). It must not be
//     negative and must fit int64 nanoseconds.
//   - key is any non-empty byte string (it need not be valid UTF-8).
//   - cost, when the column exists and the field is not empty, is a positive
//     integer; otherwise it is 1.
//
// A NUL byte anywhere is an error. A blank line is an error unless only
// blank lines follow it (a file may end in extra newlines). A file with a
// header and no rows is an empty trace; a file without a header is an error.
//
// Errors are *ParseError naming the line where the bad record starts.
// Reading allocates nothing per record once the buffers have grown to the
// longest record: keys are slices of reused buffers, valid until the next
// Scan.
type CSVReader struct {
	name   string
	lr     lineReader
	closer io.Closer
	unit   int64

	nfields                int // fields per record, from the header
	tsCol, keyCol, costCol int // costCol is -1 when there is no cost column
	fields                 [][]byte
	rec                    []byte // assembles records that span lines
	scratch                []byte // unescaped quoted fields
	blank                  int64  // line of a pending blank line, or 0
	recLine                int64  // line where the current record starts
	req                    Request
	err                    error
	done                   bool
}

// NewCSVReader returns a reader of the CSV trace in r, reading its header
// now. name is the file name used in errors. Close does not close r.
func NewCSVReader(r io.Reader, name string, opt Options) (*CSVReader, error) {
	return newCSVReader(r, name, opt, nil)
}

func newCSVReader(r io.Reader, name string, opt Options, closer io.Closer) (*CSVReader, error) {
	unit, err := opt.tsUnit()
	if err != nil {
		return nil, err
	}
	c := &CSVReader{name: name, lr: newLineReader(r), closer: closer, unit: unit}
	if err := c.readHeader(); err != nil {
		return nil, err
	}
	return c, nil
}

const csvHeaderHint = "expected a header with ts,key[,cost]"

func (c *CSVReader) readHeader() error {
	rec, err := c.nextRecord()
	for err == nil && len(rec) == 0 {
		if c.blank == 0 {
			c.blank = c.recLine
		}
		rec, err = c.nextRecord()
	}
	if err == io.EOF {
		return &ParseError{Pos: Position{File: c.name}, Msg: "empty file, " + csvHeaderHint}
	}
	if err != nil {
		return err
	}
	if c.blank != 0 {
		return c.errAt(c.blank, "empty line, "+csvHeaderHint)
	}
	names, _, msg := splitCSV(rec, nil, &c.scratch, true)
	if msg != "" {
		return c.errAt(c.recLine, "header: "+msg)
	}
	c.tsCol, c.keyCol, c.costCol = -1, -1, -1
	for i, raw := range names {
		name := strings.Trim(string(raw), " \t")
		var col *int
		switch name {
		case "ts":
			col = &c.tsCol
		case "key":
			col = &c.keyCol
		case "cost":
			col = &c.costCol
		default:
			continue
		}
		if *col >= 0 {
			return c.errAt(c.recLine, fmt.Sprintf("header has two %q columns", name))
		}
		*col = i
	}
	if c.tsCol < 0 {
		return c.errAt(c.recLine, `header has no "ts" column`)
	}
	if c.keyCol < 0 {
		return c.errAt(c.recLine, `header has no "key" column`)
	}
	c.nfields = len(names)
	c.fields = make([][]byte, c.nfields)
	return nil
}

func (c *CSVReader) errAt(line int64, msg string) error {
	return &ParseError{Pos: Position{File: c.name, Line: line}, Msg: msg}
}

// Scan advances to the next request; see Reader.
func (c *CSVReader) Scan() bool {
	if c.done {
		return false
	}
	for {
		rec, err := c.nextRecord()
		if err != nil {
			if err != io.EOF {
				c.err = err
			}
			c.done = true
			return false
		}
		if len(rec) == 0 {
			if c.blank == 0 {
				c.blank = c.recLine
			}
			continue
		}
		if c.blank != 0 {
			return c.fail(c.blank, "empty line")
		}
		return c.parse(rec)
	}
}

func (c *CSVReader) fail(line int64, msg string) bool {
	c.err = c.errAt(line, msg)
	c.done = true
	return false
}

// parse turns a non-empty record into c.req.
func (c *CSVReader) parse(rec []byte) bool {
	n, msg := splitCSVInto(rec, c.fields, &c.scratch)
	if msg != "" {
		return c.fail(c.recLine, msg)
	}
	if n != c.nfields {
		return c.fail(c.recLine, fmt.Sprintf("%s, header has %d", plural(n, "field"), c.nfields))
	}
	ts, msg := parseTS(c.fields[c.tsCol], c.unit)
	if msg != "" {
		return c.fail(c.recLine, tsMessage(c.fields[c.tsCol], msg))
	}
	key := c.fields[c.keyCol]
	if len(key) == 0 {
		return c.fail(c.recLine, "empty key")
	}
	cost := int64(1)
	if c.costCol >= 0 {
		if cost, msg = parseCost(c.fields[c.costCol]); msg != "" {
			return c.fail(c.recLine, fmt.Sprintf("cost %q %s", c.fields[c.costCol], msg))
		}
	}
	c.req = Request{T: ts, Key: key, Cost: cost}
	return true
}

func tsMessage(s []byte, msg string) string {
	if msg == tsErrEmpty {
		return msg
	}
	return fmt.Sprintf("ts %q %s", s, msg)
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// Request returns the current request; its Key is valid until the next Scan.
func (c *CSVReader) Request() Request { return c.req }

// Pos returns the file and the line where the current record starts.
func (c *CSVReader) Pos() Position { return Position{File: c.name, Line: c.recLine} }

// Err returns the first error, nil at a clean end of the trace.
func (c *CSVReader) Err() error { return c.err }

// Close closes the file if the reader was made by Open; a reader made by
// NewCSVReader leaves its io.Reader alone.
func (c *CSVReader) Close() error {
	c.done = true
	if c.closer == nil {
		return nil
	}
	err := c.closer.Close()
	c.closer = nil
	return err
}

// nextRecord returns the next record without its line terminator, setting
// c.recLine to the line it starts on. A record spans lines when a quoted
// field holds a line break. It returns io.EOF at the end of the input.
func (c *CSVReader) nextRecord() ([]byte, error) {
	line, err := c.lr.next()
	if err != nil {
		return nil, c.readErr(err)
	}
	c.recLine = c.lr.line
	if c.recLine == 1 {
		line = bytes.TrimPrefix(line, utf8BOM)
	}
	if bytes.IndexByte(line, 0) >= 0 {
		return nil, c.errAt(c.recLine, "NUL byte")
	}
	if bytes.IndexByte(line, '"') < 0 {
		return trimEOL(line), nil
	}
	st := scanQuotes(stFieldStart, line)
	if st != stQuoted {
		return trimEOL(line), nil
	}
	c.rec = append(c.rec[:0], line...)
	for st == stQuoted {
		line, err = c.lr.next()
		if err == io.EOF {
			return nil, c.errAt(c.recLine, "quoted field not closed before the end of the file")
		}
		if err != nil {
			return nil, c.readErr(err)
		}
		if bytes.IndexByte(line, 0) >= 0 {
			return nil, c.errAt(c.recLine, "NUL byte")
		}
		if len(c.rec)+len(line) > maxLineBytes {
			return nil, c.errAt(c.recLine, "record longer than 64 MiB")
		}
		c.rec = append(c.rec, line...)
		st = scanQuotes(st, line)
	}
	return trimEOL(c.rec), nil
}

func (c *CSVReader) readErr(err error) error {
	switch {
	case err == io.EOF:
		return err
	case errors.Is(err, errLineTooLong):
		return c.errAt(c.lr.line+1, err.Error())
	}
	return fmt.Errorf("%s:%d: %w", c.name, c.lr.line+1, err)
}

var utf8BOM = []byte("\xEF\xBB\xBF")

// Quote states of a CSV record, tracked across lines to find where a record
// ends: only a line break outside quotes ends it.
type quoteState uint8

const (
	stFieldStart    quoteState = iota // at the start of a field
	stUnquoted                        // inside a field that did not start with a quote
	stQuoted                          // inside a quoted field
	stQuoteInQuoted                   // just after a quote inside a quoted field
)

// scanQuotes advances the quote state over b. Malformed quoting (a quote in
// an unquoted field, text after a closing quote) is left to splitCSV to
// report; here it never opens a quoted field.
func scanQuotes(st quoteState, b []byte) quoteState {
	for i := 0; i < len(b); i++ {
		ch := b[i]
		switch st {
		case stQuoted:
			j := bytes.IndexByte(b[i:], '"')
			if j < 0 {
				return stQuoted
			}
			i += j
			st = stQuoteInQuoted
		case stQuoteInQuoted:
			switch ch {
			case '"':
				st = stQuoted
			case ',':
				st = stFieldStart
			default:
				st = stUnquoted
			}
		case stFieldStart:
			switch ch {
			case '"':
				st = stQuoted
			case ',':
			default:
				st = stUnquoted
			}
		case stUnquoted:
			if ch == ',' {
				st = stFieldStart
			}
		}
	}
	return st
}

// splitCSVInto splits a record into dst, returning the number of fields
// (which may exceed len(dst): the extra fields are counted, not stored).
// Quoted fields with doubled quotes are unescaped into *scratch, which is
// reset first.
func splitCSVInto(rec []byte, dst [][]byte, scratch *[]byte) (int, string) {
	if bytes.IndexByte(rec, '"') < 0 { // fast path: no quoting
		// A byte loop beats bytes.IndexByte on fields this short.
		n, start := 0, 0
		for i, ch := range rec {
			if ch == ',' {
				if n < len(dst) {
					dst[n] = rec[start:i]
				}
				n++
				start = i + 1
			}
		}
		if n < len(dst) {
			dst[n] = rec[start:]
		}
		return n + 1, ""
	}
	_, n, msg := splitCSV(rec, dst, scratch, false)
	return n, msg
}

// splitCSV splits a record with RFC 4180 quoting into dst and returns the
// number of fields. Fields past len(dst) are appended when grow is set and
// only counted otherwise. Quoted fields with doubled quotes are unescaped
// into *scratch, which is reset first; other fields are slices of rec.
func splitCSV(rec []byte, dst [][]byte, scratch *[]byte, grow bool) ([][]byte, int, string) {
	*scratch = (*scratch)[:0]
	n := 0
	for {
		var f []byte
		last := false
		if len(rec) == 0 || rec[0] != '"' {
			i := bytes.IndexByte(rec, ',')
			f = rec
			if i >= 0 {
				f, rec = rec[:i], rec[i+1:]
			} else {
				last = true
			}
			if bytes.IndexByte(f, '"') >= 0 {
				return dst, n, `bare " in a field that does not start with a quote`
			}
		} else {
			rec = rec[1:]
			i := bytes.IndexByte(rec, '"')
			if i < 0 {
				return dst, n, "quoted field not closed"
			}
			if i+1 < len(rec) && rec[i+1] == '"' { // doubled quotes: unescape
				start := len(*scratch)
				for {
					*scratch = append(*scratch, rec[:i+1]...)
					rec = rec[i+2:]
					i = bytes.IndexByte(rec, '"')
					if i < 0 {
						return dst, n, "quoted field not closed"
					}
					if i+1 >= len(rec) || rec[i+1] != '"' {
						break
					}
				}
				*scratch = append(*scratch, rec[:i]...)
				f = (*scratch)[start:]
			} else {
				f = rec[:i]
			}
			rec = rec[i+1:]
			switch {
			case len(rec) == 0:
				last = true
			case rec[0] == ',':
				rec = rec[1:]
			default:
				return dst, n, "text after the closing quote of a quoted field"
			}
		}
		switch {
		case n < len(dst):
			dst[n] = f
		case grow:
			dst = append(dst, f)
		}
		n++
		if last {
			return dst, n, ""
		}
	}
}
