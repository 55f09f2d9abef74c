package traces

import (
	"io"
	"strconv"
)

// CSVWriter writes a CSV trace that CSVReader reads back exactly: a header
// "ts,key,cost", then one line "ts,key,cost\n" a request with ts in integer
// nanoseconds and cost always written. A key is quoted (RFC 4180, quotes
// doubled) only when it must be: when it holds a comma, a quote, CR or LF,
// or starts or ends with a space or tab. As no reader takes them, negative
// ts, cost below 1, empty keys and keys that are not valid UTF-8 or hold a
// NUL byte cannot be written. Output is buffered; the header is written
// even for an empty trace. Create makes a writer of a .tsv file separate
// the fields with tabs instead of commas.
type CSVWriter struct {
	t             textWriter
	headerWritten bool
	tabs          bool
}

// NewCSVWriter returns a writer of a CSV trace to w. Close flushes but does
// not close w.
func NewCSVWriter(w io.Writer) *CSVWriter {
	return &CSVWriter{t: newTextWriter(w, nil)}
}

const csvHeader = "ts,key,cost\n"

func (c *CSVWriter) sep() byte {
	if c.tabs {
		return '\t'
	}
	return ','
}

func (c *CSVWriter) header() []byte {
	if c.tabs {
		return []byte("ts\tkey\tcost\n")
	}
	return []byte(csvHeader)
}

// Write appends one request.
func (c *CSVWriter) Write(r Request) error {
	if err := checkRequest(r); err != nil {
		return err
	}
	b := c.t.scratch[:0]
	if !c.headerWritten {
		c.headerWritten = true
		b = append(b, c.header()...)
	}
	sep := c.sep()
	b = strconv.AppendInt(b, r.T, 10)
	b = append(b, sep)
	b = appendCSVField(b, r.Key, sep)
	b = append(b, sep)
	b = strconv.AppendInt(b, r.Cost, 10)
	b = append(b, '\n')
	c.t.scratch = b
	return c.t.write(b)
}

// Close writes the header if no request was written, flushes the output
// and closes the file if the writer was made by Create.
func (c *CSVWriter) Close() error {
	if !c.headerWritten && !c.t.closed {
		c.headerWritten = true
		c.t.write(c.header())
	}
	return c.t.close()
}

// csvNeedsQuotes reports whether a field must be quoted to read back as
// is, fields separated by sep.
func csvNeedsQuotes(f []byte, sep byte) bool {
	if len(f) == 0 {
		return false
	}
	if f[0] == ' ' || f[0] == '\t' || f[len(f)-1] == ' ' || f[len(f)-1] == '\t' {
		return true
	}
	for _, ch := range f {
		switch ch {
		case sep, '"', '\r', '\n':
			return true
		}
	}
	return false
}

func appendCSVField(b, f []byte, sep byte) []byte {
	if !csvNeedsQuotes(f, sep) {
		return append(b, f...)
	}
	b = append(b, '"')
	for _, ch := range f {
		if ch == '"' {
			b = append(b, '"')
		}
		b = append(b, ch)
	}
	return append(b, '"')
}
