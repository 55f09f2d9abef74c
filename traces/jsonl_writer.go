package traces

import (
	"io"
	"strconv"
	"unicode/utf8"
)

// JSONLWriter writes a JSON lines trace: one {"ts":123,"key":"k","cost":1}
// object a line, ts in integer nanoseconds. Keys are escaped as
// encoding/json does, except that <, > and & are left alone: quotes,
// backslashes and control characters are escaped, and so are U+2028 and
// U+2029. Keys that are not valid UTF-8 are refused, as by every writer
// (should one get through, its bad bytes are written as U+FFFD). Output is
// buffered.
type JSONLWriter struct {
	t textWriter
}

// NewJSONLWriter returns a writer of a JSON lines trace to w. Close flushes
// but does not close w.
func NewJSONLWriter(w io.Writer) *JSONLWriter {
	return &JSONLWriter{t: newTextWriter(w, nil)}
}

// Write appends one request.
func (j *JSONLWriter) Write(r Request) error {
	if err := checkRequest(r); err != nil {
		return err
	}
	b := append(j.t.scratch[:0], `{"ts":`...)
	b = strconv.AppendInt(b, r.T, 10)
	b = append(b, `,"key":`...)
	b = appendJSONString(b, r.Key)
	b = append(b, `,"cost":`...)
	b = strconv.AppendInt(b, r.Cost, 10)
	b = append(b, "}\n"...)
	j.t.scratch = b
	return j.t.write(b)
}

// Close flushes the output and closes the file if the writer was made by
// Create.
func (j *JSONLWriter) Close() error { return j.t.close() }

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string.
func appendJSONString(b, s []byte) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRune(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
