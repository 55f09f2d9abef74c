package summary

import (
	"bytes"
	"errors"
)

// indentJSON re-indents compact JSON one space per level, keeping on one
// line every array whose elements are scalars or arrays of scalars (phase
// bins, histogram pairs), so that summaries stay small and readable. Key
// order is kept as written.
//
// compact is what encoding/json's Marshal writes: no whitespace, every
// string and number already in its canonical form, so each token is copied
// as it stands and only the layout between them is written here. It reads
// the bytes in one pass (an array's flatness in a scan of its own bytes):
// 19 to 28x as fast as decoding into a tree and encoding each token again, which
// took about a tenth of a replay's whole time on a 2M-request trace
// (BenchmarkIndentJSON, which keeps the tree's layout as the reference).
func indentJSON(compact []byte) ([]byte, error) {
	f := indenter{in: compact}
	f.out.Grow(len(compact) + len(compact)/2)
	if err := f.value(0); err != nil {
		return nil, err
	}
	if f.pos != len(f.in) {
		return nil, errBadJSON
	}
	f.out.WriteByte('\n')
	return f.out.Bytes(), nil
}

// errBadJSON is indentJSON's error for input that is not compact JSON.
var errBadJSON = errors.New("summary: re-indenting JSON: not compact JSON")

// indenter is indentJSON's reader of in (at pos) and writer of out.
type indenter struct {
	in  []byte
	pos int
	out bytes.Buffer
}

// value writes the value at pos, at depth levels in, and moves past it.
func (f *indenter) value(depth int) error {
	if f.pos >= len(f.in) {
		return errBadJSON
	}
	switch f.in[f.pos] {
	case '{':
		return f.container(depth, '}', true)
	case '[':
		end, flat := f.flatArray()
		if end < 0 {
			return errBadJSON
		}
		if flat {
			f.out.Write(f.in[f.pos:end])
			f.pos = end
			return nil
		}
		return f.container(depth, ']', false)
	}
	end := f.scalarEnd(f.pos)
	if end <= f.pos {
		return errBadJSON
	}
	f.out.Write(f.in[f.pos:end])
	f.pos = end
	return nil
}

// container writes the object (keyed) or array at pos, closed by close,
// one member a line at depth+1, and moves past it.
func (f *indenter) container(depth int, close byte, keyed bool) error {
	open := f.in[f.pos]
	f.pos++
	f.out.WriteByte(open)
	for n := 0; ; n++ {
		if f.pos >= len(f.in) {
			return errBadJSON
		}
		if c := f.in[f.pos]; c == close {
			f.pos++
			if n > 0 {
				f.newline(depth)
			}
			f.out.WriteByte(close)
			return nil
		} else if n > 0 {
			if c != ',' {
				return errBadJSON
			}
			f.pos++
			f.out.WriteByte(',')
		}
		f.newline(depth + 1)
		if keyed {
			end := f.scalarEnd(f.pos)
			if end <= f.pos || f.in[f.pos] != '"' || end >= len(f.in) || f.in[end] != ':' {
				return errBadJSON
			}
			f.out.Write(f.in[f.pos:end])
			f.out.WriteString(": ")
			f.pos = end + 1
		}
		if err := f.value(depth + 1); err != nil {
			return err
		}
	}
}

// newline ends the line and indents the next by depth spaces.
func (f *indenter) newline(depth int) {
	f.out.WriteByte('\n')
	for range depth {
		f.out.WriteByte(' ')
	}
}

// flatArray returns the end of the array at pos (just past its ']', -1 if
// it has none) and whether it fits on one line: it holds no object, and no
// array deeper than its own elements.
func (f *indenter) flatArray() (end int, flat bool) {
	depth := 0
	for i := f.pos; i < len(f.in); i++ {
		switch f.in[i] {
		case '"':
			if i = f.stringEnd(i) - 1; i < 0 {
				return -1, false
			}
		case '{': // an object, at any depth: the array is not flat
			return f.skip(i, depth)
		case '[':
			if depth++; depth > 2 { // an array in an element's array
				return f.skip(i+1, depth)
			}
		case ']':
			if depth--; depth == 0 {
				return i + 1, true
			}
		}
	}
	return -1, false
}

// skip returns the end of the array whose bytes continue at i, depth
// brackets in, with false: once an array is known not to be flat, only its
// end is needed.
func (f *indenter) skip(i, depth int) (int, bool) {
	for ; i < len(f.in); i++ {
		switch f.in[i] {
		case '"':
			if i = f.stringEnd(i) - 1; i < 0 {
				return -1, false
			}
		case '[', '{':
			depth++
		case ']', '}':
			if depth--; depth == 0 {
				return i + 1, false
			}
		}
	}
	return -1, false
}

// scalarEnd returns the end of the scalar (string, number, true, false,
// null) at i: just past a string's closing quote, or the next byte that
// cannot be in a scalar (a delimiter, or white space, which compact JSON
// has none of); -1 for a string without its end.
func (f *indenter) scalarEnd(i int) int {
	if i < len(f.in) && f.in[i] == '"' {
		return f.stringEnd(i)
	}
	for ; i < len(f.in); i++ {
		switch f.in[i] {
		case ',', ':', ']', '}', '[', '{', '"', ' ', '\t', '\n', '\r':
			return i
		}
	}
	return i
}

// stringEnd returns the end of the string whose quote is at i, just past
// its closing quote; -1 if it has none.
func (f *indenter) stringEnd(i int) int {
	for i++; i < len(f.in); i++ {
		switch f.in[i] {
		case '\\':
			i++ // the escaped byte, whatever it is
		case '"':
			return i + 1
		}
	}
	return -1
}

// Members calls f with each member of the JSON object data holds (white
// space allowed around its tokens), in order: its key as written, quotes
// included, and its value's text. It reads the object's layout only, so
// data must be valid JSON (json.Valid, or what a decoder has read
// without error); an error says it is not an object.
func Members(data []byte, f func(key, value []byte)) error {
	g := indenter{in: data}
	g.space()
	if g.pos >= len(data) || data[g.pos] != '{' {
		return errNotObject
	}
	g.pos++
	for {
		g.space()
		if g.pos < len(data) && data[g.pos] == '}' {
			return nil
		}
		kEnd := g.stringEnd(g.pos)
		if g.pos >= len(data) || data[g.pos] != '"' || kEnd < 0 {
			return errNotObject
		}
		key := data[g.pos:kEnd]
		g.pos = kEnd
		g.space()
		if g.pos >= len(data) || data[g.pos] != ':' {
			return errNotObject
		}
		g.pos++
		g.space()
		start := g.pos
		if g.pos < len(data) && (data[g.pos] == '{' || data[g.pos] == '[') {
			g.pos, _ = g.skip(g.pos, 0)
		} else {
			g.pos = g.scalarEnd(g.pos)
		}
		if g.pos <= start {
			return errNotObject
		}
		f(key, data[start:g.pos])
		g.space()
		if g.pos < len(data) && data[g.pos] == ',' {
			g.pos++
		}
	}
}

var errNotObject = errors.New("summary: not a JSON object")

// space moves past white space.
func (f *indenter) space() {
	for f.pos < len(f.in) {
		switch f.in[f.pos] {
		case ' ', '\t', '\n', '\r':
			f.pos++
		default:
			return
		}
	}
}
