package traces

import (
	"bytes"
	"fmt"
	"io"
	"strings"
)

// CSVReader reads a CSV trace.
//
// The model: the first line is a header naming the columns; the ts column
// ("ts", or Options.TS) and the key column ("key", or Options.Key) are
// required, the cost column ("cost", or Options.Cost) is optional, in any
// order, and other columns are ignored. Names are case-sensitive (spaces
// around them are ignored) and a UTF-8 byte order mark before the header is
// skipped. Every following line is one request with exactly as many fields
// as the header. Without a header (Options.Columns), the columns are those
// given, and every line is a request. Fields are separated by commas, or
// Options.Sep, or the separator found in the header (see Options.Sep). They
// may be quoted as in RFC 4180: a quoted field may hold separators, doubled
// quotes "" and line breaks, which are kept as they are (a "\r\n" inside
// quotes stays "\r\n"). Lines end in "\n" or "\r\n". With a separator
// of several characters (Options.MultiSep) nothing is quoted: every line
// is a record, split at each occurrence of the separator, literally, and a
// '"' is part of its field (such a file is read on one goroutine).
//
//   - ts is an integer count of Options.TSUnit (by default decided by the
//     first timestamp's magnitude: see ts_unit.go), decimal seconds read exactly
//     ("1700000000.123456789", at most nanosecond precision), or an RFC 3339
//     time ("2024-01-02T03:04:05.123Z", "...+01:00"); or, with
//     Options.TSFormat, a time in that layout (see ts_format.go). It must
//     not be negative and must fit int64 nanoseconds.
//   - key is a non-empty string of valid UTF-8, at most Options.MaxKey
//     bytes.
//   - cost, when the column exists and the field is not empty, is a positive
//     integer; otherwise it is 1.
//
// A NUL byte anywhere is an error, and so is a record longer than
// Options.MaxLine. A blank line is an error unless only blank lines follow
// it (a file may end in extra newlines). A file with a header and no rows is
// an empty trace, and so is an empty file when the columns are given;
// otherwise a file without a header is an error.
//
// Errors are *ParseError naming the line where the bad record starts. With
// Options.SkipBad a bad record is skipped and counted (see Skipped); a bad
// header, a quoted field left open at the end of the file and I/O errors
// still stop the reader. Reading allocates nothing per record once the
// buffers have grown to the longest record: keys are slices of reused
// buffers, valid until the next Scan.
//
// The splitting into records and fields, and the pipeline that does it in
// parallel (csv_parallel.go), are the reader's own, not encoding/csv's.
// Reading the floor's trace shape (BenchmarkCSVFloor, reader against
// encoding_csv, medians of runs on a shared 2-core machine), the goroutine
// that calls Scan spends 4.2× to 4.4× less CPU per record than one that
// reads with encoding/csv, the workers parsing beside it; in wall time, on
// that machine, the pipeline gained nothing when the caller did nothing
// else (0.8× to 0.95×), and 1.0× to 1.9× when it interned every key. On one
// goroutine (reader_serial) the reader's splitting costs only 1.1× to 1.2×
// less CPU than encoding/csv's; it stays because encoding/csv does not
// read the same records: it drops the \r of a \r\n inside quotes, skips
// blank lines and has no record length limit. Read in runs split by key
// (Partition, csv_partition.go), the workers write each request straight
// into its part, and no goroutine hands out every request.
type CSVReader struct {
	csvParser
	closer  io.Closer
	columns [3]string // names of the ts, key and cost columns
	needed  []int     // the columns there must be (colTS...)
	blank   blankLines
	bad     badRecords
	err     error
	done    bool

	// Reading in parallel (csv_parallel.go): par is the pipeline while it
	// reads, pipe the last one started, for Close. seqLeft counts down the
	// records to read one at a time before a pipeline starts (< 0: none).
	tune    csvTuning
	seqLeft int
	par     *csvPipe
	pipe    *csvPipe

	// Reading in runs split by key (csv_partition.go): the runs read one
	// record at a time, nil unless Partition was called; scanned says
	// whether Scan was.
	runs    *runPool
	scanned bool
}

// csvParser turns the lines of a CSV trace into records and requests: the
// reader's own, and each worker's of a parallel reader.
type csvParser struct {
	name   string
	lr     lineReader
	clock  tsClock // the unit of integer ts (0 until auto decides it)
	maxKey int
	sep    byte      // the field separator
	multi  []byte    // the separator of several characters (Options.MultiSep), or nil
	layout *tsLayout // Options.TSFormat, or nil

	nfields                int // fields per record, from the header
	tsCol, keyCol, costCol int // costCol is -1 when there is no cost column
	fields                 [][]byte
	rec                    []byte // assembles records that span lines
	scratch                []byte // unescaped quoted fields
	recLine                int64  // line where the current record starts
	skipping               bool   // the rest of a record refused is still to be read
	req                    Request

	headerless bool // the columns are those of Options.Columns
}

// FormatCSV is delimited text (comma-separated, or tab-separated for .tsv,
// or see Options.Sep) with a header naming the columns ts, key and
// optionally cost, in any order (or see Options.Columns).
const FormatCSV Format = "csv"

func init() {
	register(&formatSpec{format: FormatCSV, rank: 10, exts: []string{".csv", ".tsv"}, kind: "CSV",
		open: func(s stream, opt Options) (Reader, error) {
			if opt.Sep == 0 && opt.MultiSep == "" && s.path != "" && isTSVPath(s.path) {
				opt.Sep = '\t'
			}
			return asReader(newCSVReader(s.r, s.name, opt, s.closer))
		},
		writer: func(w io.Writer, closer io.Closer, path string) Writer {
			return &CSVWriter{t: newTextWriter(w, closer), tabs: isTSVPath(path)}
		},
		sniff: sniffer{header: looksDelimited, what: func(opt Options) string {
			names, err := opt.columnNames()
			if err != nil {
				names = [3]string{"ts", "key"}
			}
			return fmt.Sprintf("CSV with %s and %s columns", names[colTS], names[colKey])
		}},
	})
}

func (*CSVReader) traceFormat() Format { return FormatCSV }

// NewCSVReader returns a reader of the CSV trace in r, reading its header
// now. name is the file name used in errors. Close does not close r.
func NewCSVReader(r io.Reader, name string, opt Options) (*CSVReader, error) {
	return newCSVReader(newCancelReader(r, opt.Cancel), name, opt, nil)
}

func newCSVReader(r io.Reader, name string, opt Options, closer io.Closer) (*CSVReader, error) {
	st, err := opt.resolve()
	if err == nil && opt.Pattern != "" {
		err = opt.refuseLineOptions("CSV")
	}
	if err != nil {
		return nil, err
	}
	c := &CSVReader{csvParser: csvParser{name: name, lr: newLineReader(r, st.maxLine), clock: newTSClock(st.unit), maxKey: st.maxKey,
		layout: st.layout},
		closer: closer, columns: st.names, bad: badRecords{skip: opt.SkipBad, cancel: opt.Cancel}, tune: opt.csvTuning()}
	c.seqLeft = c.tune.after
	c.lr.csv = true
	c.needed = opt.required()
	if opt.MultiSep != "" { // no quotes: a record is a line; read one at a time, as the workers cut records by quotes
		c.multi, c.lr.csv, c.seqLeft = []byte(opt.MultiSep), false, -1
	}
	if opt.Columns != nil {
		err = c.useColumns(opt.Columns, opt.Sep)
	} else {
		if c.sep = opt.Sep; c.sep == 0 && c.multi == nil {
			var want []string
			for _, i := range c.needed {
				want = append(want, c.columns[i])
			}
			c.sep = detectSep(c.peekLine(), want, 0)
		}
		c.lr.sep = c.sep
		err = c.readHeader()
	}
	if err != nil {
		return nil, err
	}
	c.fields = make([][]byte, c.nfields)
	return c, nil
}

// peekLine returns the first line of the input, as far as the buffer
// holds it, without reading it.
func (c *CSVReader) peekLine() []byte {
	head, _ := peekUntil(c.lr.br, func(b []byte) bool { return bytes.IndexByte(b, '\n') >= 0 })
	if i := bytes.IndexByte(head, '\n'); i >= 0 {
		head = head[:i+1]
	}
	return head
}

// useColumns takes the columns of a file without a header from cols, and
// the separator from sep or else the first line.
func (c *CSVReader) useColumns(cols []string, sep byte) error {
	at, err := columnsGiven(cols, c.columns, c.needed)
	if err != nil {
		return err
	}
	c.tsCol, c.keyCol, c.costCol = at[colTS], at[colKey], at[colCost]
	c.nfields, c.headerless = len(cols), true
	if c.sep = sep; c.sep == 0 && c.multi == nil {
		c.sep = detectSep(c.peekLine(), nil, len(cols))
	}
	c.lr.sep = c.sep
	return nil
}

func (c *CSVReader) headerHint() string {
	return "expected a header with " + c.columns[colTS] + "," + c.columns[colKey] + "[," + c.columns[colCost] + "]"
}

func (c *CSVReader) readHeader() error {
	rec, msg, err := c.nextRecord()
	for err == nil && msg == "" && len(rec) == 0 {
		c.blank.add(c.recLine)
		rec, msg, err = c.nextRecord()
	}
	if err == io.EOF {
		return &ParseError{Pos: Position{File: c.name}, Msg: "empty file, " + c.headerHint()}
	}
	if err != nil {
		return err
	}
	if c.blank.n != 0 {
		return c.errAt(c.blank.first, "empty line, "+c.headerHint())
	}
	if msg != "" {
		return c.errAt(c.recLine, msg)
	}
	var names [][]byte
	if c.multi != nil {
		names, _ = splitLiteral(rec, nil, true, c.multi)
	} else if names, _, msg = splitCSV(rec, nil, &c.scratch, true, c.sep); msg != "" {
		return c.errAt(c.recLine, "header: "+msg)
	}
	c.tsCol, c.keyCol, c.costCol = -1, -1, -1
	trimmed := make([]string, len(names))
	for i, raw := range names {
		name := strings.Trim(string(raw), " \t")
		trimmed[i] = name
		var col *int
		switch name {
		case c.columns[colTS]:
			col = &c.tsCol
		case c.columns[colKey]:
			col = &c.keyCol
		case c.columns[colCost]:
			col = &c.costCol
		default:
			continue
		}
		if *col >= 0 {
			return c.errAt(c.recLine, fmt.Sprintf("header has two %q columns", name))
		}
		*col = i
	}
	cols := [3]int{c.tsCol, c.keyCol, c.costCol}
	for _, i := range c.needed {
		if cols[i] < 0 {
			hint := ""
			if len(trimmed) == 1 {
				hint = "; give the separator with -sep"
			}
			return c.errAt(c.recLine, fmt.Sprintf("header has no %q column (columns: %s%s)", c.columns[i], quoteList(trimmed), hint))
		}
	}
	c.nfields = len(names)
	return nil
}

func (c *csvParser) errAt(line int64, msg string) error {
	return &ParseError{Pos: Position{File: c.name, Line: line}, Msg: msg}
}

// Scan advances to the next request; see Reader.
func (c *CSVReader) Scan() bool {
	if p := c.par; p != nil {
		if p.i < p.stop {
			r := &p.recs[p.i]
			c.req, c.recLine = r.req, p.line+int64(r.line)
			p.i++
			return true
		}
		return c.scanPipe()
	}
	if c.done {
		return false
	}
	c.scanned = true
	if c.pipeDue() {
		c.startPipe()
		return c.scanPipe()
	}
	return c.scanSeq()
}

// pipeDue reports whether the rest of the input is for a pipeline: the
// records to read one at a time first are read, none is being read
// through, and the unit of the times is decided (the workers need it).
func (c *CSVReader) pipeDue() bool {
	return c.seqLeft == 0 && !c.skipping && (c.clock.unit != 0 || c.layout != nil)
}

// scanSeq is Scan reading one record at a time.
func (c *CSVReader) scanSeq() bool {
	for {
		rec, msg, err := c.nextRecord()
		if err != nil {
			if err != io.EOF {
				c.err = err
			}
			c.done = true
			return false
		}
		if msg == "" && len(rec) == 0 {
			c.blank.add(c.recLine)
			continue
		}
		if c.blank.n != 0 {
			if err := c.blank.flush(&c.bad, c.name); err != nil {
				c.err, c.done = err, true
				return false
			}
		}
		if msg == "" {
			if msg = c.parse(rec); msg == "" {
				if c.seqLeft > 0 {
					c.seqLeft--
				}
				return true
			}
		}
		if err, skip := c.bad.add(Position{File: c.name, Line: c.recLine}, msg); !skip {
			c.err, c.done = err, true
			return false
		}
	}
}

// parse turns a non-empty record into c.req, returning what is wrong with
// it or "".
func (c *csvParser) parse(rec []byte) string {
	var n int
	var msg string
	if c.multi != nil {
		_, n = splitLiteral(rec, c.fields, false, c.multi)
	} else if n, msg = splitCSVInto(rec, c.fields, &c.scratch, c.sep); msg != "" {
		return msg
	}
	if n != c.nfields {
		if c.headerless {
			hint := ""
			if n == 1 {
				hint = "; give the separator with -sep"
			}
			return fmt.Sprintf("%s, -columns names %d%s", plural(n, "field"), c.nfields, hint)
		}
		return fmt.Sprintf("%s, header has %d", plural(n, "field"), c.nfields)
	}
	ts, msg := c.parseTS(c.fields[c.tsCol])
	if msg != "" {
		if msg == tsErrOverflow && isDigits(c.fields[c.tsCol]) {
			return tsMessage(c.fields[c.tsCol], msg) + c.clock.overflowHint()
		}
		return tsMessage(c.fields[c.tsCol], msg)
	}
	key := c.fields[c.keyCol]
	if msg := keyProblem(key, c.maxKey); msg != "" {
		return msg
	}
	cost := int64(1)
	if c.costCol >= 0 {
		if cost, msg = parseCost(c.fields[c.costCol]); msg != "" {
			return fmt.Sprintf("cost %q %s", c.fields[c.costCol], msg)
		}
	}
	c.req = Request{T: ts, Key: key, Cost: cost}
	return ""
}

// parseTS reads the ts field s: in the layout of Options.TSFormat, or else
// in the forms of parseTS, integers in the clock's unit (deciding it from s
// when it is auto and undecided).
func (c *csvParser) parseTS(s []byte) (int64, string) {
	if c.layout != nil {
		return c.layout.parse(s)
	}
	unit := c.clock.unit
	if unit == 0 {
		unit = c.clock.first(s)
	}
	return parseTS(s, unit)
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

func (c *CSVReader) interrupted() bool { return c.bad.interrupted() }

// Pos returns the file and the line where the current record starts.
func (c *CSVReader) Pos() Position { return Position{File: c.name, Line: c.recLine} }

// Err returns the first error, nil at a clean end of the trace.
func (c *CSVReader) Err() error { return c.err }

// Skipped returns how many records were skipped as bad (with
// Options.SkipBad), and the first ones (at most MaxSkipExamples), in file
// order.
func (c *CSVReader) Skipped() (n int64, first []*ParseError) { return c.bad.skipped() }

// Close closes the file if the reader was made by Open; a reader made by
// NewCSVReader leaves its io.Reader alone.
func (c *CSVReader) Close() error {
	c.done, c.par = true, nil
	closer := c.closer
	c.closer = nil
	if c.pipe != nil && c.pipe.shutdown(closer) {
		return nil // closed when the read under way returns
	}
	if closer == nil {
		return nil
	}
	return closer.Close()
}

// nextRecord returns the next record without its line terminator, setting
// c.recLine to the line it starts on. A record spans lines when a quoted
// field holds a line break. A record that is bad whatever its fields (a NUL
// byte) is read to its end and returned as a message instead; so is a
// record too long, as soon as it passes the limit, its rest being read
// through by the next call. It returns io.EOF at the end of the input, and
// other errors when the rest of the input cannot be read.
func (c *csvParser) nextRecord() (rec []byte, msg string, err error) {
	if c.skipping {
		c.skipping = false
		if err := c.skipRecord(); err != nil {
			return nil, "", err
		}
	}
	c.lr.qs = stFieldStart
	line, err := c.lr.next()
	if err == nil || err == errLineTooLong {
		c.recLine = c.lr.line
	}
	if err == errLineTooLong {
		c.skipping = true
		return nil, c.lr.tooLongMsg(), nil
	}
	if err != nil {
		return nil, "", c.readErr(err)
	}
	if c.recLine == 1 {
		line = bytes.TrimPrefix(line, utf8BOM)
	}
	nul := bytes.IndexByte(line, 0) >= 0
	if c.multi != nil || bytes.IndexByte(line, '"') < 0 || scanQuotes(stFieldStart, line, c.sep) != stQuoted {
		if nul {
			return nil, "NUL byte", nil
		}
		return trimEOL(line), "", nil
	}
	c.rec = append(c.rec[:0], line...)
	st := stQuoted
	for st == stQuoted {
		c.lr.qs = st
		line, err = c.lr.nextLimit(c.lr.max - len(c.rec))
		switch {
		case err == errLineTooLong:
			c.skipping = true
			return nil, c.recordTooLong(), nil
		case err == io.EOF:
			return nil, "", c.errAt(c.recLine, "quoted field not closed before the end of the file")
		case err != nil:
			return nil, "", c.readErr(err)
		}
		nul = nul || bytes.IndexByte(line, 0) >= 0
		st = scanQuotes(st, line, c.sep)
		c.rec = append(c.rec, line...)
	}
	if nul {
		return nil, "NUL byte", nil
	}
	return trimEOL(c.rec), "", nil
}

func (c *csvParser) recordTooLong() string {
	return fmt.Sprintf("record spanning lines exceeds the limit of %d bytes (-max-line)", c.lr.max)
}

// skipRecord reads through the rest of a record refused for its length:
// the rest of the line it was refused in, then the lines that follow while
// a quoted field is open (c.lr.qs tracks the quotes). A quoted field still
// open at the end of the file is an error.
func (c *csvParser) skipRecord() error {
	for {
		if err := c.lr.skipRest(); err != nil {
			return c.readErr(err)
		}
		if c.lr.qs != stQuoted {
			return nil
		}
		line, err := c.lr.next()
		switch {
		case err == errLineTooLong: // its quotes are in c.lr.qs, its rest to skip
			continue
		case err == io.EOF:
			return c.errAt(c.recLine, "quoted field not closed before the end of the file")
		case err != nil:
			return c.readErr(err)
		}
		c.lr.qs = scanQuotes(c.lr.qs, line, c.sep)
	}
}

func (c *csvParser) readErr(err error) error {
	if err == io.EOF {
		return err
	}
	return c.lr.readErr(c.name, err)
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

// scanQuotes advances the quote state over b, fields separated by sep.
// Malformed quoting (a quote in an unquoted field, text after a closing
// quote) is left to splitCSV to report; here it never opens a quoted field.
func scanQuotes(st quoteState, b []byte, sep byte) quoteState {
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
			case sep:
				st = stFieldStart
			default:
				st = stUnquoted
			}
		case stFieldStart:
			switch ch {
			case '"':
				st = stQuoted
			case sep:
			default:
				st = stUnquoted
			}
		case stUnquoted:
			if ch == sep {
				st = stFieldStart
			}
		}
	}
	return st
}

// splitCSVInto splits a record of fields separated by sep into dst,
// returning the number of fields (which may exceed len(dst): the extra
// fields are counted, not stored). Quoted fields with doubled quotes are
// unescaped into *scratch, which is reset first.
func splitCSVInto(rec []byte, dst [][]byte, scratch *[]byte, sep byte) (int, string) {
	if bytes.IndexByte(rec, '"') < 0 { // fast path: no quoting
		// A byte loop beats bytes.IndexByte on fields this short.
		n, start := 0, 0
		for i, ch := range rec {
			if ch == sep {
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
	_, n, msg := splitCSV(rec, dst, scratch, false, sep)
	return n, msg
}

// splitCSV splits a record with RFC 4180 quoting, fields separated by sep,
// into dst and returns the number of fields. Fields past len(dst) are appended when grow is set and
// only counted otherwise. Quoted fields with doubled quotes are unescaped
// into *scratch, which is reset first; other fields are slices of rec.
func splitCSV(rec []byte, dst [][]byte, scratch *[]byte, grow bool, sep byte) ([][]byte, int, string) {
	*scratch = (*scratch)[:0]
	n := 0
	for {
		var f []byte
		last := false
		if len(rec) == 0 || rec[0] != '"' {
			i := bytes.IndexByte(rec, sep)
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
			case rec[0] == sep:
				rec = rec[1:]
			default:
				return dst, n, "text after the closing quote of a quoted field"
			}
		}
		dst = putField(dst, n, f, grow)
		n++
		if last {
			return dst, n, ""
		}
	}
}
