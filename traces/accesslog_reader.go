package traces

import (
	"bytes"
	"fmt"
	"io"
	"math"
)

// AccessLogReader reads a web server access log in the NCSA Common Log
// Format or the Combined Log Format (Apache's common and combined, nginx's
// default combined format) as a trace:
//
//	host ident authuser [10/Oct/2000:13:55:36 -0700] "GET /a.gif?x=1 HTTP/1.0" 200 2326 "referer" "user agent"
//
// The model: the fields host, ident and authuser are separated by spaces;
// then comes the date in brackets, the request line in double quotes (where
// \" and \\ are escapes; the text is kept as it is, escapes not decoded),
// the status (three digits) and the size (digits or "-"). Whatever follows
// (the referer and user agent of the combined format, or more fields) is
// ignored.
//
//   - ts comes from the date "dd/Mon/yyyy:HH:MM:SS ±hhmm", exactly to the
//     second (nanoseconds = seconds*1e9) or to the fraction of a second
//     when the seconds have one ("13:55:36.123", up to 9 digits), converted
//     to UTC with the zone offset. It must not be before 1970.
//   - the key is chosen by Options.Key: the host ("" or "ip"; a "-" host,
//     no client, makes the line bad, as it does with "ip+path"), the
//     authuser ("user"; a "-" user makes the line bad), the request path
//     ("path": the second word of the request line as logged, escapes and
//     percent-encoding kept, with the query string from "?" left out; a
//     request line without one, such as "-", makes the line bad) or host, a
//     space and path ("ip+path"). It must be valid UTF-8 and at most
//     Options.MaxKey bytes.
//   - cost is always 1.
//
// Lines end in "\n" or "\r\n". A blank line is an error unless only blank
// lines follow it; so is a NUL byte, or a line longer than Options.MaxLine.
// An empty file is an empty trace. Errors are *ParseError naming the line
// ("access.log:3: no [date] field", and, as a line of the wrong shape after
// good ones is most often a wrapped or cut one, a word on -skip-bad). With Options.SkipBad bad lines are
// skipped and counted (see Skipped); only I/O errors stop the reader.
// Reading allocates nothing per line: keys are slices of the line, or of a
// reused buffer for "ip+path", valid until the next Scan.
type AccessLogReader struct {
	lineRecords
	closer io.Closer
	key    accessKey
	maxKey int

	keyBuf []byte
	req    Request
	read   bool // a good line was read
}

// accessKey is what an access log reader takes as the key.
type accessKey uint8

const (
	accessKeyIP accessKey = iota
	accessKeyUser
	accessKeyPath
	accessKeyIPPath
)

func parseAccessKey(s string) (accessKey, error) {
	switch s {
	case "", "ip":
		return accessKeyIP, nil
	case "user":
		return accessKeyUser, nil
	case "path":
		return accessKeyPath, nil
	case "ip+path":
		return accessKeyIPPath, nil
	}
	return 0, fmt.Errorf("traces: unknown access log key %q (want ip, user, path or ip+path)", s)
}

// FormatAccessLog is a web server access log in the Common or Combined Log
// Format (see AccessLogReader). It is read only.
const FormatAccessLog Format = "accesslog"

// accessLogTitle names the access log in messages.
const accessLogTitle = "an access log"

func init() {
	register(&formatSpec{format: FormatAccessLog, aliases: []string{"clf", "combined", "common"}, rank: 40, exts: []string{".log"},
		kind: "NCSA access", title: accessLogTitle, log: true,
		open: func(s stream, opt Options) (Reader, error) {
			return asReader(newAccessLogReader(s.r, s.name, opt, s.closer))
		},
		sniff: sniffer{
			good: func(line []byte) bool {
				var al accessLine
				return splitAccessLine(line, &al) == ""
			},
			looks: looksLikeAccessLine, lookOrder: 30,
		},
	})
}

func (*AccessLogReader) traceFormat() Format { return FormatAccessLog }

// looksLikeAccessLine reports whether a line starts like an access log's:
// three words and a [date].
func looksLikeAccessLine(line []byte) bool {
	first, rest := accessToken(line)
	ident, rest := accessToken(rest)
	user, rest := accessToken(rest)
	return len(first) > 0 && len(ident) > 0 && len(user) > 0 && len(rest) > 0 && rest[0] == '['
}

// NewAccessLogReader returns a reader of the access log in r. name is the
// file name used in errors. Close does not close r.
func NewAccessLogReader(r io.Reader, name string, opt Options) (*AccessLogReader, error) {
	return newAccessLogReader(newCancelReader(r, opt.Cancel), name, opt, nil)
}

func newAccessLogReader(r io.Reader, name string, opt Options, closer io.Closer) (*AccessLogReader, error) {
	if err := opt.check(); err != nil {
		return nil, err
	}
	if err := opt.refuseColumns(accessLogTitle, false); err != nil {
		return nil, err
	}
	maxKey, maxLine, _ := opt.limits()
	key, err := parseAccessKey(opt.Key)
	if err != nil {
		return nil, err
	}
	return &AccessLogReader{lineRecords: newLineRecords(r, name, maxLine, opt), closer: closer, key: key,
		maxKey: maxKey}, nil
}

// Scan advances to the next request; see Reader.
func (a *AccessLogReader) Scan() bool { return a.scan(a.parse) }

// accessLine is the fields of an access log line the reader uses.
type accessLine struct {
	host, user, date, request []byte
}

// splitAccessLine splits a line into its fields and checks its shape,
// returning what is wrong or "".
func splitAccessLine(line []byte, f *accessLine) string {
	var ident []byte
	f.host, line = accessToken(line)
	if len(f.host) == 0 {
		return "no host field (the line starts with a space)"
	}
	ident, line = accessToken(line)
	f.user, line = accessToken(line)
	if len(ident) == 0 || len(f.user) == 0 || len(line) == 0 || line[0] != '[' {
		return "no [date] field"
	}
	end := bytes.IndexByte(line, ']')
	if end < 0 {
		return "[date] field not closed"
	}
	f.date, line = line[1:end], skipSpaces(line[end+1:])
	if len(line) == 0 || line[0] != '"' {
		return `no "request" field after the date`
	}
	end = closingQuote(line[1:])
	if end < 0 {
		return `"request" field not closed`
	}
	f.request, line = line[1:end+1], skipSpaces(line[end+2:])
	var status, size []byte
	status, line = accessToken(line)
	if len(status) == 0 {
		return "no status field"
	}
	if len(status) != 3 || !isDigits(status) {
		return fmt.Sprintf("status %s is not a 3-digit number", quoteTrunc(status))
	}
	size, _ = accessToken(line)
	if len(size) == 0 {
		return "no size field"
	}
	if !isDigits(size) && string(size) != "-" {
		return fmt.Sprintf(`size %s is not a number or "-"`, quoteTrunc(size))
	}
	return ""
}

// accessToken returns the bytes up to the next space and the rest after the
// spaces that follow.
func accessToken(b []byte) (tok, rest []byte) {
	i := bytes.IndexByte(b, ' ')
	if i < 0 {
		return b, nil
	}
	return b[:i], skipSpaces(b[i+1:])
}

func skipSpaces(b []byte) []byte {
	for len(b) > 0 && b[0] == ' ' {
		b = b[1:]
	}
	return b
}

// closingQuote returns the index of the first '"' in b that a backslash does
// not escape, or -1.
func closingQuote(b []byte) int {
	for i := 0; i < len(b); {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return -1
		}
		j += i
		bs := 0
		for k := j - 1; k >= 0 && b[k] == '\\'; k-- {
			bs++
		}
		if bs%2 == 0 {
			return j
		}
		i = j + 1
	}
	return -1
}

// quoteTrunc quotes b for a message, cut to 64 bytes.
func quoteTrunc(b []byte) string {
	if len(b) > 64 {
		return fmt.Sprintf("%q...", b[:64])
	}
	return fmt.Sprintf("%q", b)
}

// brokenLineHint follows the message of a line not shaped like an access
// log line after a good one, unless the reader skips bad lines: a log
// often has a few wrapped or cut lines among good ones.
const brokenLineHint = "; if the log has wrapped or broken lines, -skip-bad skips them and counts them"

// parse reads one line into a.req, returning what is wrong with it or "".
func (a *AccessLogReader) parse(line []byte) string {
	var f accessLine
	if msg := splitAccessLine(line, &f); msg != "" {
		if a.read && !a.bad.skip {
			msg += brokenLineHint
		}
		return msg
	}
	ts, msg := parseCLFDate(f.date)
	if msg != "" {
		return fmt.Sprintf("date %s %s", quoteTrunc(f.date), msg)
	}
	l := logLine{ip: f.host, user: f.user, request: f.request}
	if a.key == accessKeyPath || a.key == accessKeyIPPath {
		l.path = requestPath(f.request)
	}
	key, msg := logKey{kind: a.key}.of(&l, &a.keyBuf, a.maxKey)
	if msg != "" {
		return msg
	}
	a.req, a.read = Request{T: ts, Key: key, Cost: 1}, true
	return ""
}

// requestPath returns the second word of a request line ("GET /a?b
// HTTP/1.1") without its query string, or nil.
func requestPath(req []byte) []byte {
	i := bytes.IndexByte(req, ' ')
	if i < 0 {
		return nil
	}
	target := skipSpaces(req[i+1:])
	if j := bytes.IndexByte(target, ' '); j >= 0 {
		target = target[:j]
	}
	if j := bytes.IndexByte(target, '?'); j >= 0 {
		target = target[:j]
	}
	return target
}

// Message suffixes for a bad access log date, to follow `date "<text>" `.
const (
	dateErrSyntax   = "is not a valid time"
	dateErrNegative = "is before 1970 (a negative ts)"
	dateErrOverflow = "overflows int64 nanoseconds"
	dateErrFraction = "has more than 9 fraction digits (finer than a nanosecond)"
)

var monthNames = [12]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}

// parseCLFDate parses an access log date "10/Oct/2000:13:55:36 -0700",
// with an optional fraction of a second ("13:55:36.123"), to Unix
// nanoseconds. msg is "" on success, otherwise one of the dateErr*
// suffixes.
func parseCLFDate(s []byte) (ns int64, msg string) {
	unix, frac, rest, msg := parseCLFClock(s)
	if msg != "" {
		return 0, msg
	}
	if len(rest) != 6 || rest[0] != ' ' || (rest[1] != '+' && rest[1] != '-') {
		return 0, dateErrSyntax
	}
	oh, om := atoiN(rest[2:4]), atoiN(rest[4:6])
	if oh < 0 || oh > 23 || om < 0 || om > 59 {
		return 0, dateErrSyntax
	}
	offset := int64(oh*3600 + om*60)
	if rest[1] == '-' {
		offset = -offset
	}
	return unixNS(unix-offset, frac)
}

// parseCLFClock parses the "10/Oct/2000:13:55:36" of an access log date,
// with an optional fraction of a second, to Unix seconds (as if in UTC) and
// the fraction in nanoseconds, returning what follows it. msg is "" on
// success, otherwise one of the dateErr* suffixes.
func parseCLFClock(s []byte) (unix, frac int64, rest []byte, msg string) {
	if len(s) < 20 || s[2] != '/' || s[6] != '/' || s[11] != ':' || s[14] != ':' || s[17] != ':' {
		return 0, 0, nil, dateErrSyntax
	}
	month := 0
	for i, m := range monthNames {
		if string(s[3:6]) == m {
			month = i + 1
			break
		}
	}
	day, year := atoiN(s[0:2]), atoiN(s[7:11])
	hour, minute, sec := atoiN(s[12:14]), atoiN(s[15:17]), atoiN(s[18:20])
	if month == 0 || year < 0 || day < 1 || day > daysIn(month, year) ||
		hour < 0 || hour > 23 || minute < 0 || minute > 59 || sec < 0 || sec > 59 {
		return 0, 0, nil, dateErrSyntax
	}
	frac, rest, bad, fmsg := cutFraction(s[20:])
	switch {
	case bad:
		return 0, 0, nil, dateErrSyntax
	case fmsg != "":
		return 0, 0, nil, dateErrFraction
	}
	return daysFromCivil(year, month, day)*86400 + int64(hour*3600+minute*60+sec), frac, rest, ""
}

// unixNS returns Unix seconds and a fraction in nanoseconds as Unix
// nanoseconds, or dateErrNegative or dateErrOverflow.
func unixNS(unix, frac int64) (int64, string) {
	if unix < 0 {
		return 0, dateErrNegative
	}
	if unix > (math.MaxInt64-frac)/1e9 {
		return 0, dateErrOverflow
	}
	return unix*1e9 + frac, ""
}

// Request returns the current request; its Key is valid until the next Scan.
func (a *AccessLogReader) Request() Request { return a.req }

// Pos returns the file and line of the current request.
func (a *AccessLogReader) Pos() Position { return Position{File: a.name, Line: a.recLine} }

// Err returns the first error, nil at a clean end of the trace.
func (a *AccessLogReader) Err() error { return a.err }

// Skipped returns how many lines were skipped as bad (with Options.SkipBad),
// and the first ones (at most MaxSkipExamples), in file order.
func (a *AccessLogReader) Skipped() (n int64, first []*ParseError) { return a.bad.skipped() }

// Close closes the file if the reader was made by Open; a reader made by
// NewAccessLogReader leaves its io.Reader alone.
func (a *AccessLogReader) Close() error {
	a.done = true
	if a.closer == nil {
		return nil
	}
	err := a.closer.Close()
	a.closer = nil
	return err
}
