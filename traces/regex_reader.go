package traces

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
)

// RegexReader reads any line-oriented text as a trace, one request a line,
// by a regular expression (Options.Pattern, Go's RE2 syntax):
//
//	^(?P<key>\S+): (?P<ts>\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4}) \(
//
// The model: the pattern's named groups give the request's fields, ts and
// key always, cost when the pattern has such a group (the names are those
// of Options.TS, Key and Cost, by default "ts", "key" and "cost"; other
// groups are allowed and ignored). The pattern matches anywhere in the
// line (its leftmost match is taken) unless it is anchored with ^ and $.
//
//   - ts is read as in a CSV trace: an integer count of Options.TSUnit,
//     decimal seconds or an RFC 3339 time, or, with Options.TSFormat, a
//     time in that layout (see ts_format.go).
//   - key is the group's text, non-empty, valid UTF-8 and at most
//     Options.MaxKey bytes.
//   - cost is a positive integer; 1 when the pattern has no cost group, or
//     its group matched nothing or the empty text.
//
// A line the pattern does not match is a bad line: an error naming the
// file and line, or, with Options.SkipBad, skipped and counted (see
// Skipped). Blank lines, NUL bytes and lines longer than Options.MaxLine
// are bad as in the other line formats. Errors are *ParseError.
//
// Reading allocates nothing per line of its own: keys are slices of the
// line, valid until the next Scan. The match itself costs one small
// allocation a line, the index slice of Regexp.FindSubmatchIndex (the
// standard library has no form of it that fills a slice of the caller's).
type RegexReader struct {
	lineRecords
	closer io.Closer
	re     *regexp.Regexp
	group  [3]int // the submatch index of the ts, key and cost groups; cost -1 when there is none
	clock  tsClock
	layout *tsLayout
	maxKey int
	req    Request
}

// FormatRegex is any line-oriented text, one request a line, read by the
// regular expression of Options.Pattern (see RegexReader). It is read
// only, and never told from the content: a -pattern given asks for it.
const FormatRegex Format = "regex"

func init() {
	register(&formatSpec{format: FormatRegex, rank: 90, title: "a log read by -pattern", note: "any line format, by -pattern", log: true,
		open: func(s stream, opt Options) (Reader, error) {
			return asReader(newRegexReader(s.r, s.name, opt, s.closer))
		},
		impliedBy: func(opt Options) bool { return opt.Pattern != "" },
	})
}

func (*RegexReader) traceFormat() Format { return FormatRegex }

// NewRegexReader returns a reader of the text in r by Options.Pattern.
// name is the file name used in errors. Close does not close r.
func NewRegexReader(r io.Reader, name string, opt Options) (*RegexReader, error) {
	return newRegexReader(newCancelReader(r, opt.Cancel), name, opt, nil)
}

func newRegexReader(r io.Reader, name string, opt Options, closer io.Closer) (*RegexReader, error) {
	st, err := opt.resolve()
	if err == nil {
		columns := opt
		columns.Pattern = "" // the one format that takes it
		err = columns.refuseColumns("-format regex", true)
	}
	if err != nil {
		return nil, err
	}
	re, group, err := compilePattern(opt.Pattern, st.names, opt.Cost != "")
	if err != nil {
		return nil, err
	}
	return &RegexReader{lineRecords: newLineRecords(r, name, st.maxLine, opt), closer: closer, re: re, group: group,
		clock: newTSClock(st.unit), layout: st.layout, maxKey: st.maxKey}, nil
}

// compilePattern compiles a -pattern and finds its ts, key and cost
// groups (names), refusing a pattern without the ts and key groups, or
// without the cost group when one is named (needCost), and one that names
// any of the three twice (which of the two holds the field would be a
// guess: the leftmost, silently).
func compilePattern(pattern string, names [3]string, needCost bool) (*regexp.Regexp, [3]int, error) {
	group := [3]int{-1, -1, -1}
	if pattern == "" {
		return nil, group, fmt.Errorf("traces: -format regex needs -pattern, a regular expression with the named groups (?P<%s>...) and (?P<%s>...)", names[colTS], names[colKey])
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, group, fmt.Errorf("traces: -pattern %q: %v", pattern, err)
	}
	for i, n := range names {
		group[i] = re.SubexpIndex(n)
		if group[i] >= 0 && slices.Index(re.SubexpNames()[group[i]+1:], n) >= 0 {
			return nil, group, fmt.Errorf("traces: -pattern %q names the group (?P<%s>...) (the %s, %s) twice; name it once", pattern, n, colWord(i), columnFlags[i])
		}
	}
	var missing []string
	for i := range names {
		if group[i] < 0 && (i != colCost || needCost) {
			missing = append(missing, fmt.Sprintf("(?P<%s>...) (the %s, %s)", names[i], colWord(i), columnFlags[i]))
		}
	}
	if len(missing) > 0 {
		return nil, group, fmt.Errorf("traces: -pattern %q has no group %s", pattern, strings.Join(missing, " and no group "))
	}
	return re, group, nil
}

// Scan advances to the next request; see Reader.
func (x *RegexReader) Scan() bool { return x.scan(x.parse) }

// errNoMatch is the message of a line the pattern does not match.
const errNoMatch = "line does not match -pattern (-skip-bad skips such lines and counts them)"

// parse reads one line into x.req, returning what is wrong with it or "".
func (x *RegexReader) parse(line []byte) string {
	m := x.re.FindSubmatchIndex(line)
	if m == nil {
		return errNoMatch
	}
	tsAt, keyAt := 2*x.group[colTS], 2*x.group[colKey]
	if m[tsAt] < 0 {
		return "the ts group matched nothing"
	}
	s := line[m[tsAt]:m[tsAt+1]]
	var ts int64
	var msg string
	if x.layout != nil {
		ts, msg = x.layout.parse(s)
	} else {
		unit := x.clock.unit
		if unit == 0 {
			unit = x.clock.first(s)
		}
		if ts, msg = parseTS(s, unit); msg == tsErrOverflow && isDigits(s) {
			msg += x.clock.overflowHint()
		}
	}
	if msg != "" {
		return tsMessage(s, msg)
	}
	if m[keyAt] < 0 {
		return "empty key"
	}
	key := line[m[keyAt]:m[keyAt+1]]
	if msg := keyProblem(key, x.maxKey); msg != "" {
		return msg
	}
	cost := int64(1)
	if g := x.group[colCost]; g >= 0 && m[2*g] >= 0 {
		c := line[m[2*g]:m[2*g+1]]
		if cost, msg = parseCost(c); msg != "" {
			return fmt.Sprintf("cost %q %s", c, msg)
		}
	}
	x.req = Request{T: ts, Key: key, Cost: cost}
	return ""
}

// Request returns the current request; its Key is valid until the next Scan.
func (x *RegexReader) Request() Request { return x.req }

// Pos returns the file and line of the current request.
func (x *RegexReader) Pos() Position { return Position{File: x.name, Line: x.recLine} }

// Err returns the first error, nil at a clean end of the trace.
func (x *RegexReader) Err() error { return x.err }

// Skipped returns how many lines were skipped as bad (with Options.SkipBad),
// and the first ones (at most MaxSkipExamples), in file order.
func (x *RegexReader) Skipped() (n int64, first []*ParseError) { return x.bad.skipped() }

// Close closes the file if the reader was made by Open; a reader made by
// NewRegexReader leaves its io.Reader alone.
func (x *RegexReader) Close() error {
	x.done = true
	if x.closer == nil {
		return nil
	}
	err := x.closer.Close()
	x.closer = nil
	return err
}
