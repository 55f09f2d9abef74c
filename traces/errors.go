package traces

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Position locates a record in a trace file: a line for the text formats,
// a row (1-based) for Parquet.
type Position struct {
	File string
	// Line is the 1-based line number, 0 when the format has rows instead.
	Line int64
	// Row is the 1-based row number of row-oriented formats (Parquet).
	Row int64
}

// String formats the position as "file:line" or "file: row N", or as just
// "file" when the position has neither (an error about the whole file, such
// as a missing column or an empty file).
func (p Position) String() string {
	switch {
	case p.Row > 0:
		return fmt.Sprintf("%s: row %d", p.File, p.Row)
	case p.Line > 0:
		return fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	return p.File
}

// ParseError is a record (or a header, or a whole file) that could not be
// read. It prints as "file:line: msg", "file: row N: msg", or "file: msg"
// when the problem is not tied to one record.
//
// Text of the input in Msg is quoted (as strconv.Quote does) where the
// message cites it; Error escapes what would still not print as itself
// (text from a library's error, say), so that no byte of the input reaches
// a terminal raw.
type ParseError struct {
	Pos Position
	Msg string
	// Err is the error Msg says, if it came from one (errors.As finds it:
	// a compare.OrderError, say, whose advice the caller can complete).
	Err error
}

func (e *ParseError) Error() string { return e.Pos.String() + ": " + printable(e.Msg) }

// Unwrap returns the error the message came from, if any.
func (e *ParseError) Unwrap() error { return e.Err }

// printable returns s with the bytes that are not valid UTF-8 and the runes
// that do not print (control and format characters) escaped as
// strconv.Quote escapes them, and the rest as it is: backslashes are not
// doubled, so that text already quoted is unchanged.
func printable(s string) string {
	i := strings.IndexFunc(s, func(r rune) bool { return r == utf8.RuneError || !strconv.IsPrint(r) })
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.WriteString(s[:i])
	for s = s[i:]; s != ""; {
		r, size := utf8.DecodeRuneInString(s)
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[0])
		case strconv.IsPrint(r):
			b.WriteString(s[:size])
		default:
			q := strconv.QuoteRune(r) // '\x1b', '\u202e'
			b.WriteString(q[1 : len(q)-1])
		}
		s = s[size:]
	}
	return b.String()
}

// quoteList quotes each name and joins them with ", ", for messages that
// list names read from the input (the columns of a header).
func quoteList(names []string) string {
	var b strings.Builder
	for i, n := range names {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Quote(n))
	}
	return b.String()
}
