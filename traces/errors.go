package traces

import "fmt"

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
type ParseError struct {
	Pos Position
	Msg string
}

func (e *ParseError) Error() string { return e.Pos.String() + ": " + e.Msg }
