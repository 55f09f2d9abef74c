package traces

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// JSONLReader reads a JSON lines trace.
//
// The model: each line holds one JSON object with the fields
//
//   - "ts": a number, either an integer count of Options.TSUnit (by default
//     decided by the first timestamp's magnitude: see ts_unit.go) or decimal
//     seconds read exactly (1700000000.123456789; no exponent), or a string
//     holding an integer, decimal seconds or an RFC 3339 time (see
//     CSVReader). It must not be negative and must fit int64 nanoseconds.
//   - "key" (or the field named by Options.Key): a non-empty JSON string of
//     at most Options.MaxKey bytes once decoded. Escapes are decoded (\uXXXX
//     and surrogate pairs included); a lone surrogate ("\ud800" without
//     its pair) makes the record bad, as it is not a Unicode character
//     (encoding/json would make it U+FFFD, so that "\ud800", "\udfff" and
//     "\ufffd" were one key); so do raw bytes that are not valid UTF-8, and a
//     NUL byte, escaped ("\u0000") or not, as in every format.
//   - "cost": optional; a positive integer, or null for the default 1.
//
// Options.TS and Options.Cost name the ts and cost fields as Options.Key
// does the key's. A dotted name is a path into nested objects:
// "request.remote_ip" is the field remote_ip of the object in the field
// request (a field whose own name has the dots matches too). A line without
// the ts or the key field is bad, its error listing the fields there are.
// A name has at most 64 parts (maxPathParts); a longer one is refused.
//
// Other fields are ignored whatever their value (nested objects and arrays
// included), and may repeat. The ts, key or cost field given twice (also
// once by its dotted name and once nested) makes the line bad: which of the
// two counts would be a guess. Lines end in "\n" or
// "\r\n". A blank line (empty or only JSON white space) is an error unless
// only blank lines follow it; so is a NUL byte, or a line longer than
// Options.MaxLine. An empty file is an empty trace.
//
// The reader is a small hand-written scanner, not encoding/json: it
// allocates nothing per line once its buffers have grown, and reads the
// floor's trace shape 6× to 8× faster than the same line loop decoding
// each line with json.Unmarshal (BenchmarkJSONLFloor, scanner against
// encoding_json, medians of runs on a shared 2-core machine: 6.3× and 7.2×
// in wall time, 7.2× and 7.6× in the CPU time of the goroutine; 4.2× to
// 4.8× when every key is also interned).
// Keys are slices of the line buffer, or of a reused buffer when they hold
// escapes, valid until the next Scan. Errors are *ParseError naming the
// line; syntax errors read "invalid JSON: ... at column N" (columns count
// bytes from 1). With Options.SkipBad every bad line is skipped and counted
// (see Skipped); only I/O errors (a truncated compressed stream among them)
// stop the reader.
type JSONLReader struct {
	lineRecords
	closer io.Closer
	clock  tsClock
	layout *tsLayout // Options.TSFormat, or nil
	maxKey int

	p   jsonScanner
	req Request
}

// FormatJSONL is JSON lines: one {"ts":..,"key":..,"cost":..} object a
// line.
const FormatJSONL Format = "jsonl"

func init() {
	register(&formatSpec{format: FormatJSONL, aliases: []string{"ndjson", "json"}, rank: 30, exts: []string{".jsonl", ".ndjson", ".json"},
		kind: "JSON lines",
		open: func(s stream, opt Options) (Reader, error) {
			return asReader(newJSONLReader(s.r, s.name, opt, s.closer))
		},
		writer: func(w io.Writer, closer io.Closer, path string) Writer {
			return &JSONLWriter{t: newTextWriter(w, closer)}
		},
		sniff: sniffer{line: func(first []byte) bool { // an object, after spaces and tabs
			for _, c := range first {
				if c != ' ' && c != '\t' {
					return c == '{'
				}
			}
			return false
		}},
	})
}

func (*JSONLReader) traceFormat() Format { return FormatJSONL }

// NewJSONLReader returns a reader of the JSON lines trace in r. name is the
// file name used in errors. Close does not close r.
func NewJSONLReader(r io.Reader, name string, opt Options) (*JSONLReader, error) {
	return newJSONLReader(newCancelReader(r, opt.Cancel), name, opt, nil)
}

func newJSONLReader(r io.Reader, name string, opt Options, closer io.Closer) (*JSONLReader, error) {
	st, err := opt.resolve()
	if err == nil {
		err = opt.refuseColumns("JSON lines", true)
	}
	if err == nil {
		err = checkPaths(st.names)
	}
	if err != nil {
		return nil, err
	}
	j := &JSONLReader{lineRecords: newLineRecords(r, name, st.maxLine, opt), closer: closer, clock: newTSClock(st.unit),
		layout: st.layout, maxKey: st.maxKey}
	j.p.setNames(st.names)
	return j, nil
}

// Scan advances to the next request; see Reader.
func (j *JSONLReader) Scan() bool { return j.scan(j.parse) }

func trimBOM(b []byte) []byte {
	if len(b) >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF {
		return b[3:]
	}
	return b
}

func isJSONBlank(b []byte) bool {
	for _, c := range b {
		if !isJSONSpace(c) {
			return false
		}
	}
	return true
}

// overflowHint is the clock's overflowHint for an integer ts that
// overflows (msg), "" for any other message.
func (j *JSONLReader) overflowHint(msg string) string {
	if msg != tsErrOverflow || !isDigits(j.p.ts) {
		return ""
	}
	return j.clock.overflowHint()
}

// readTS reads the ts field of the object scanned, returning what is
// wrong with it or "".
func (j *JSONLReader) readTS() (int64, string) {
	p := &j.p
	if j.layout != nil {
		switch p.tsKind {
		case jsonString:
			ts, msg := j.layout.parse(p.ts)
			if msg != "" {
				return 0, tsMessage(p.ts, msg)
			}
			return ts, ""
		case jsonNumber:
			return 0, fmt.Sprintf("ts %s is a number, and -ts-format %q reads strings", p.ts, j.layout.given)
		}
	}
	unit := j.clock.unit
	if unit == 0 && (p.tsKind == jsonNumber && !p.tsExp || p.tsKind == jsonString) {
		unit = j.clock.first(p.ts)
	}
	switch p.tsKind {
	case jsonNumber:
		if p.tsExp {
			return 0, fmt.Sprintf("ts %s has an exponent; write an integer or decimal seconds", p.ts)
		}
		ts, msg := parseTS(p.ts, unit)
		if msg != "" {
			return 0, fmt.Sprintf("ts %s %s", p.ts, msg) + j.overflowHint(msg)
		}
		return ts, ""
	case jsonString:
		ts, msg := parseTS(p.ts, unit)
		if msg != "" {
			return 0, tsMessage(p.ts, msg) + j.overflowHint(msg)
		}
		return ts, ""
	case jsonNull:
		return 0, "ts is null"
	}
	return 0, "ts is not a number or a string"
}

// parse reads one object into j.req, returning an error message or "".
func (j *JSONLReader) parse(line []byte) string {
	p := &j.p
	if !p.object(line) {
		return p.message()
	}
	if i := p.twice; i >= 0 {
		return [3]string{"ts", "key", "cost"}[i] + " is given twice (which one counts would be a guess)"
	}
	if !p.hasTS {
		return p.missing(colTS, line)
	}
	if !p.hasKey {
		return p.missing(colKey, line)
	}
	ts, msg := j.readTS()
	if msg != "" {
		return msg
	}
	switch p.keyKind {
	case jsonString:
	case jsonNull:
		return "key is null"
	default:
		return "key is not a string"
	}
	if msg := keyProblem(p.key, j.maxKey); msg != "" {
		return msg
	}
	cost := int64(1)
	switch p.costKind {
	case jsonAbsent, jsonNull:
	case jsonNumber:
		if cost, msg = parseCost(p.cost); msg != "" {
			return fmt.Sprintf("cost %s %s", p.cost, msg)
		}
	default:
		return "cost is not a number"
	}
	j.req = Request{T: ts, Key: p.key, Cost: cost}
	return ""
}

// Request returns the current request; its Key is valid until the next Scan.
func (j *JSONLReader) Request() Request { return j.req }

// Pos returns the file and line of the current request.
func (j *JSONLReader) Pos() Position { return Position{File: j.name, Line: j.recLine} }

// Err returns the first error, nil at a clean end of the trace.
func (j *JSONLReader) Err() error { return j.err }

// Skipped returns how many lines were skipped as bad (with Options.SkipBad),
// and the first ones (at most MaxSkipExamples), in file order.
func (j *JSONLReader) Skipped() (n int64, first []*ParseError) { return j.bad.skipped() }

// Close closes the file if the reader was made by Open; a reader made by
// NewJSONLReader leaves its io.Reader alone.
func (j *JSONLReader) Close() error {
	j.done = true
	if j.closer == nil {
		return nil
	}
	err := j.closer.Close()
	j.closer = nil
	return err
}

// jsonKind is the kind of a JSON value.
type jsonKind uint8

const (
	jsonAbsent jsonKind = iota
	jsonString
	jsonNumber
	jsonNull
	jsonOther // true, false, object, array
)

// maxJSONDepth bounds the nesting of skipped values.
const maxJSONDepth = 1000

// jsonScanner parses one object a line and keeps the raw ts, key and cost,
// looking into nested objects only for the paths of dotted names. It holds
// reusable buffers for strings with escapes.
type jsonScanner struct {
	b       []byte
	pos     int
	keyName string // the field that holds the key

	// plain: ts and cost are "ts" and "cost", and the key's name has no
	// dot. Otherwise paths are the names' parts and rests[i][l] the name of
	// colTS+i from its part l on.
	plain bool
	paths [3][]string
	rests [3][]string

	ts, key, cost             []byte
	tsKind, keyKind, costKind jsonKind
	hasTS, hasKey             bool
	tsExp                     bool
	twice                     int // the first of ts, key and cost (colTS...) given twice, -1 if none is

	keyBuf, tsBuf, nameBuf, skipBuf []byte

	errMsg   string // syntax error, formatted by message
	errPos   int
	errFound bool // name the byte found at errPos
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

func (p *jsonScanner) skipWS() {
	for p.pos < len(p.b) && isJSONSpace(p.b[p.pos]) {
		p.pos++
	}
}

// fail records a syntax error at the current position.
func (p *jsonScanner) fail(msg string) bool {
	p.errMsg, p.errPos, p.errFound = msg, p.pos, false
	return false
}

// failChar reports the byte at the current position as unexpected (or the
// end of the line).
func (p *jsonScanner) failChar(want string) bool {
	if p.pos >= len(p.b) {
		return p.fail("unexpected end of line, expected " + want)
	}
	p.fail("expected " + want)
	p.errFound = true
	return false
}

func (p *jsonScanner) message() string {
	if p.errFound && p.errPos < len(p.b) {
		return fmt.Sprintf("invalid JSON: %s, found %s at column %d", p.errMsg, quoteByte(p.b[p.errPos]), p.errPos+1)
	}
	return fmt.Sprintf("invalid JSON: %s at column %d", p.errMsg, p.errPos+1)
}

func quoteByte(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return fmt.Sprintf("%q", rune(c))
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

// object parses the line as one object, setting the ts, key and cost
// fields; on a syntax error it returns false with errMsg set.
func (p *jsonScanner) object(b []byte) bool {
	p.b, p.pos = b, 0
	p.ts, p.key, p.cost = nil, nil, nil
	p.tsKind, p.keyKind, p.costKind = jsonAbsent, jsonAbsent, jsonAbsent
	p.hasTS, p.hasKey, p.tsExp = false, false, false
	p.twice = -1
	p.skipWS()
	if p.pos >= len(p.b) || p.b[p.pos] != '{' {
		return p.failChar("'{'")
	}
	if !p.plain { // the names given: read as inner does the objects below
		return p.inner(0, 1<<colTS|1<<colKey|1<<colCost) && p.end()
	}
	p.pos++
	p.skipWS()
	if p.pos < len(p.b) && p.b[p.pos] == '}' {
		p.pos++
		return p.end()
	}
	for {
		p.skipWS()
		if p.pos >= len(p.b) || p.b[p.pos] != '"' {
			return p.failChar("a field name")
		}
		name, ok := p.str(&p.nameBuf)
		if !ok {
			return false
		}
		p.skipWS()
		if p.pos >= len(p.b) || p.b[p.pos] != ':' {
			return p.failChar("':'")
		}
		p.pos++
		p.skipWS()
		switch { // takeTS, takeKey and takeCost, inline
		case string(name) == "ts":
			p.noteTaken(colTS)
			p.hasTS = true
			p.tsKind, p.tsExp = p.peekKind(), false
			switch p.tsKind {
			case jsonString:
				p.ts, ok = p.str(&p.tsBuf)
			case jsonNumber:
				p.ts, p.tsExp, ok = p.number()
			default:
				ok = p.skip(0)
			}
		case string(name) == p.keyName:
			p.noteTaken(colKey)
			p.hasKey = true
			p.keyKind = p.peekKind()
			if p.keyKind == jsonString {
				p.key, ok = p.str(&p.keyBuf)
			} else {
				ok = p.skip(0)
			}
		case string(name) == "cost":
			p.noteTaken(colCost)
			p.costKind = p.peekKind()
			if p.costKind == jsonNumber {
				p.cost, _, ok = p.number()
			} else {
				ok = p.skip(0)
			}
		default:
			ok = p.skip(0)
		}
		if !ok {
			return false
		}
		p.skipWS()
		if p.pos >= len(p.b) {
			return p.failChar("',' or '}'")
		}
		switch p.b[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			return p.end()
		default:
			return p.failChar("',' or '}'")
		}
	}
}

// setNames sets the names of the ts, key and cost fields.
func (p *jsonScanner) setNames(names [3]string) {
	p.keyName = names[colKey]
	p.plain = names[colTS] == "ts" && names[colCost] == "cost" && !strings.Contains(p.keyName, ".")
	for i, n := range names {
		p.paths[i] = strings.Split(n, ".")
		// The rest from part l on is a substring of n (no copy), so that
		// the names take memory in proportion to their length.
		p.rests[i] = make([]string, len(p.paths[i]))
		for l, at := 0, 0; l < len(p.paths[i]); l++ {
			p.rests[i][l] = n[at:]
			at += len(p.paths[i][l]) + 1
		}
	}
}

// maxPathParts is the most dot-separated parts a field name of JSON lines
// may have: the path into nested objects is followed part by part on every
// line.
const maxPathParts = 64

// checkPaths refuses field names of more than maxPathParts parts.
func checkPaths(names [3]string) error {
	for i, n := range names {
		if parts := strings.Count(n, ".") + 1; parts > maxPathParts {
			return fmt.Errorf("traces: the %s field %s is a path of %d parts (%s); JSON lines take at most %d",
				colWord(i), quoteTrunc([]byte(n)), parts, columnFlags[i], maxPathParts)
		}
	}
	return nil
}

// noteTaken notes that field i (colTS...) is about to be read: if it was
// read already, the line gives it twice (twice).
func (p *jsonScanner) noteTaken(i int) {
	taken := [3]bool{p.hasTS, p.hasKey, p.costKind != jsonAbsent}
	if taken[i] && p.twice < 0 {
		p.twice = i
	}
}

// takeTS reads the value at the cursor, at the depth given, as ts.
func (p *jsonScanner) takeTS(depth int) (ok bool) {
	p.noteTaken(colTS)
	p.hasTS = true
	p.tsKind, p.tsExp = p.peekKind(), false
	switch p.tsKind {
	case jsonString:
		p.ts, ok = p.str(&p.tsBuf)
	case jsonNumber:
		p.ts, p.tsExp, ok = p.number()
	default:
		ok = p.skip(depth)
	}
	return ok
}

// takeKey reads the value at the cursor as the key.
func (p *jsonScanner) takeKey(depth int) (ok bool) {
	p.noteTaken(colKey)
	p.hasKey = true
	p.keyKind = p.peekKind()
	if p.keyKind == jsonString {
		p.key, ok = p.str(&p.keyBuf)
	} else {
		ok = p.skip(depth)
	}
	return ok
}

// takeCost reads the value at the cursor as the cost.
func (p *jsonScanner) takeCost(depth int) (ok bool) {
	p.noteTaken(colCost)
	p.costKind = p.peekKind()
	if p.costKind == jsonNumber {
		p.cost, _, ok = p.number()
	} else {
		ok = p.skip(depth)
	}
	return ok
}

func (p *jsonScanner) take(i, depth int) bool {
	switch i {
	case colTS:
		return p.takeTS(depth)
	case colKey:
		return p.takeKey(depth)
	}
	return p.takeCost(depth)
}

// descend reads the value at the cursor, of the field name at the depth
// given, whose parent's path matches the first depth parts of the paths
// in want (a bit a field, 1<<colTS...): when it is an object and name is
// the next part of some of them, it looks into it for them; otherwise it
// skips it.
func (p *jsonScanner) descend(name []byte, depth int, want uint8) bool {
	in := uint8(0)
	for i := range p.paths {
		if want&(1<<i) != 0 && depth+1 < len(p.paths[i]) && p.paths[i][depth] == string(name) {
			in |= 1 << i
		}
	}
	if in == 0 || p.pos >= len(p.b) || p.b[p.pos] != '{' {
		return p.skip(depth)
	}
	return p.inner(depth+1, in)
}

// inner reads the object at the cursor, at the depth given (0: the line's
// object), looking for the fields in want, whose paths match its path: a
// field named with the rest of one's path is its value; one named with its
// next part is looked into. Other values are skipped, checked as skip
// checks them.
func (p *jsonScanner) inner(depth int, want uint8) bool {
	if depth-1 > maxJSONDepth { // as skip(depth-1) of the object
		return p.fail("nesting deeper than 1000")
	}
	p.pos++
	p.skipWS()
	if p.pos < len(p.b) && p.b[p.pos] == '}' {
		p.pos++
		return true
	}
	for {
		p.skipWS()
		if p.pos >= len(p.b) || p.b[p.pos] != '"' {
			return p.failChar("a field name")
		}
		name, ok := p.str(&p.nameBuf)
		if !ok {
			return false
		}
		p.skipWS()
		if p.pos >= len(p.b) || p.b[p.pos] != ':' {
			return p.failChar("':'")
		}
		p.pos++
		p.skipWS()
		leaf := -1
		for i := range p.rests {
			if want&(1<<i) != 0 && p.rests[i][depth] == string(name) {
				leaf = i
			}
		}
		if leaf >= 0 {
			ok = p.take(leaf, depth)
		} else {
			ok = p.descend(name, depth, want)
		}
		if !ok {
			return false
		}
		p.skipWS()
		if p.pos >= len(p.b) {
			return p.failChar("',' or '}'")
		}
		switch p.b[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			return true
		default:
			return p.failChar("',' or '}'")
		}
	}
}

// maxListedFields is the most field names an error lists.
const maxListedFields = 20

// missing describes the field i missing from the object in line, listing
// the fields there are where it was looked for: at the top, or in the
// deepest object along its path.
func (p *jsonScanner) missing(i int, line []byte) string {
	path := p.paths[i]
	p.b, p.pos = line, 0
	p.skipWS()
	var names []string
	where := ""
	for depth := 0; ; depth++ {
		names = names[:0]
		next := -1 // where the object of the next part of the path is
		p.pos++    // '{', or '"' of a field name below
		for ok := true; ok; {
			p.skipWS()
			if p.pos >= len(p.b) || p.b[p.pos] != '"' {
				break // "{}"
			}
			name, _ := p.str(&p.nameBuf)
			names = append(names, string(name))
			p.skipWS()
			p.pos++ // ':'
			p.skipWS()
			if depth+1 < len(path) && string(name) == path[depth] && p.pos < len(p.b) && p.b[p.pos] == '{' {
				next = p.pos
			}
			p.skip(depth)
			p.skipWS()
			ok = p.pos < len(p.b) && p.b[p.pos] == ','
			p.pos++
		}
		if next < 0 {
			break
		}
		where += "." + path[depth]
		p.pos = next
	}
	list := "none"
	if len(names) > 0 {
		list = quoteList(names[:min(len(names), maxListedFields)])
		if len(names) > maxListedFields {
			list += ", ..."
		}
	}
	if where == "" {
		return fmt.Sprintf("missing %q (fields: %s)", p.rests[i][0], list)
	}
	return fmt.Sprintf("missing %q (fields of %s: %s)", p.rests[i][0], where[1:], list)
}

// end checks that only white space follows the object.
func (p *jsonScanner) end() bool {
	p.skipWS()
	if p.pos < len(p.b) {
		return p.fail("text after the object")
	}
	return true
}

// peekKind tells the kind of the value at the cursor without consuming it.
func (p *jsonScanner) peekKind() jsonKind {
	if p.pos >= len(p.b) {
		return jsonOther
	}
	switch c := p.b[p.pos]; {
	case c == '"':
		return jsonString
	case c == '-' || (c >= '0' && c <= '9'):
		return jsonNumber
	case c == 'n' && len(p.b)-p.pos >= 4 && string(p.b[p.pos:p.pos+4]) == "null":
		return jsonNull
	}
	return jsonOther
}

// skip consumes any value, checking its syntax.
func (p *jsonScanner) skip(depth int) bool {
	if depth > maxJSONDepth {
		return p.fail("nesting deeper than 1000")
	}
	if p.pos >= len(p.b) {
		return p.failChar("a value")
	}
	switch c := p.b[p.pos]; {
	case c == '"':
		_, ok := p.str(&p.skipBuf)
		return ok
	case c == '-' || (c >= '0' && c <= '9'):
		_, _, ok := p.number()
		return ok
	case c == 't':
		return p.literal("true")
	case c == 'f':
		return p.literal("false")
	case c == 'n':
		return p.literal("null")
	case c == '{':
		p.pos++
		p.skipWS()
		if p.pos < len(p.b) && p.b[p.pos] == '}' {
			p.pos++
			return true
		}
		for {
			p.skipWS()
			if p.pos >= len(p.b) || p.b[p.pos] != '"' {
				return p.failChar("a field name")
			}
			if _, ok := p.str(&p.skipBuf); !ok {
				return false
			}
			p.skipWS()
			if p.pos >= len(p.b) || p.b[p.pos] != ':' {
				return p.failChar("':'")
			}
			p.pos++
			p.skipWS()
			if !p.skip(depth + 1) {
				return false
			}
			p.skipWS()
			if p.pos >= len(p.b) {
				return p.failChar("',' or '}'")
			}
			switch p.b[p.pos] {
			case ',':
				p.pos++
			case '}':
				p.pos++
				return true
			default:
				return p.failChar("',' or '}'")
			}
		}
	case c == '[':
		p.pos++
		p.skipWS()
		if p.pos < len(p.b) && p.b[p.pos] == ']' {
			p.pos++
			return true
		}
		for {
			p.skipWS()
			if !p.skip(depth + 1) {
				return false
			}
			p.skipWS()
			if p.pos >= len(p.b) {
				return p.failChar("',' or ']'")
			}
			switch p.b[p.pos] {
			case ',':
				p.pos++
			case ']':
				p.pos++
				return true
			default:
				return p.failChar("',' or ']'")
			}
		}
	}
	return p.failChar("a value")
}

func (p *jsonScanner) literal(lit string) bool {
	if len(p.b)-p.pos < len(lit) || string(p.b[p.pos:p.pos+len(lit)]) != lit {
		return p.fail("invalid literal, expected " + lit)
	}
	p.pos += len(lit)
	return true
}

// number consumes a JSON number and returns its text and whether it has an
// exponent.
func (p *jsonScanner) number() (num []byte, exp, ok bool) {
	b, start := p.b, p.pos
	i := p.pos
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		p.pos = i
		return nil, false, p.failChar("a digit")
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			p.pos = i
			return nil, false, p.failChar("a digit after '.'")
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		exp = true
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			p.pos = i
			return nil, false, p.failChar("a digit in the exponent")
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	p.pos = i
	return b[start:i], exp, true
}

// str consumes a string at the cursor and returns its decoded bytes: a
// slice of the line when it has no escapes, else of *buf.
func (p *jsonScanner) str(buf *[]byte) ([]byte, bool) {
	b := p.b
	p.pos++ // opening quote
	start := p.pos
	i := start
	for i < len(b) {
		c := b[i]
		if c == '"' {
			p.pos = i + 1
			return b[start:i], true
		}
		if c == '\\' {
			break
		}
		if c < 0x20 {
			p.pos = i
			return nil, p.fail("control character in string")
		}
		i++
	}
	if i >= len(b) {
		p.pos = i
		return nil, p.fail("string not closed before the end of the line")
	}
	out := append((*buf)[:0], b[start:i]...)
	for i < len(b) {
		c := b[i]
		switch {
		case c == '"':
			p.pos = i + 1
			*buf = out
			return out, true
		case c < 0x20:
			p.pos = i
			return nil, p.fail("control character in string")
		case c != '\\':
			out = append(out, c)
			i++
			continue
		}
		// escape
		if i+1 >= len(b) {
			break
		}
		switch e := b[i+1]; e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(b[i+2:])
			if !ok {
				p.pos = i
				return nil, p.fail(`invalid \u escape`)
			}
			i += 6
			if r >= 0xD800 && r < 0xDC00 && len(b)-i >= 6 && b[i] == '\\' && b[i+1] == 'u' {
				// A high surrogate and its low pair are one character.
				if r2, ok := hex4(b[i+2:]); ok && r2 >= 0xDC00 && r2 < 0xE000 {
					r = 0x10000 + (r-0xD800)<<10 + (r2 - 0xDC00)
					i += 6
				}
			}
			out = appendRuneExact(out, r)
			continue
		default:
			p.pos = i
			return nil, p.fail("invalid escape")
		}
		i += 2
	}
	p.pos = len(b)
	return nil, p.fail("string not closed before the end of the line")
}

// appendRuneExact appends r in UTF-8, a lone surrogate (which is not a
// Unicode character, and has no UTF-8 form) included: as the three bytes
// its code point would take, which are not valid UTF-8. So a string with a
// lone surrogate is never equal to one without, nor to one with another
// (as it would be were both U+FFFD), and a key holding one is refused
// (keyProblem).
func appendRuneExact(out []byte, r rune) []byte {
	if r >= 0xD800 && r < 0xE000 {
		return append(out, 0xE0|byte(r>>12), 0x80|byte(r>>6)&0x3F, 0x80|byte(r)&0x3F)
	}
	return utf8.AppendRune(out, r)
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
