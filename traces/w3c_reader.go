package traces

import (
	"bytes"
	"fmt"
	"io"
	"strings"
)

// W3CReader reads a log in the W3C extended log file format as a trace:
// as IIS writes it (FormatW3C), or as Amazon CloudFront writes its standard
// logs (FormatCloudFront), a dialect with tabs:
//
//	#Software: Microsoft Internet Information Services 10.0
//	#Version: 1.0
//	#Date: 2024-02-09 00:00:00
//	#Fields: date time s-ip cs-method cs-uri-stem cs-uri-query s-port cs-username c-ip cs(User-Agent) cs(Referer) sc-status sc-substatus sc-win32-status time-taken
//	2024-02-09 00:00:01 10.0.0.5 GET /index.html - 443 - 203.0.113.7 Mozilla/5.0+(Windows+NT+10.0) - 200 0 0 15
//
// The model: a line starting with "#" is a directive; the #Fields
// directive names the fields of the records that follow it, in order
// (separated by spaces), until the next #Fields line, and the other
// directives are ignored. A record has exactly the fields #Fields names,
// separated by a space or a tab (IIS: spaces; a CloudFront log: tabs only),
// "-" for an empty one. A record before any #Fields line is bad. A #Fields
// line without a date and a time field, or without the field the key needs,
// stops the reader (even with SkipBad: the records it names cannot be read).
//
//   - ts is the date field "2024-02-09" and the time field "10:22:33"
//     (seconds, as IIS and CloudFront write it, or with a fraction of up to
//     9 digits), in UTC as both write them. It must not be before 1970.
//   - the key is chosen by Options.Key: the c-ip field ("" or "ip"; "-"
//     makes the line bad, as it does with "ip+path"), the
//     cs-username field ("user"; "-" makes the line bad; CloudFront logs
//     have none), the cs-uri-stem field ("path"; without the query, which is
//     cs-uri-query), c-ip, a space and cs-uri-stem ("ip+path"), or any field
//     #Fields names, by its name, the case ignored ("cs(User-Agent)",
//     "x-forwarded-for"; "-" makes the line bad). Values are taken as they
//     are logged: IIS's "+" for a space and CloudFront's %-escapes are not
//     decoded.
//   - cost is always 1.
//
// Lines, blank lines, limits, errors and SkipBad are as for
// AccessLogReader.
type W3CReader struct {
	logRecords
	dialect *w3cDialect

	names []string // the fields of the #Fields line in force, nil before one
	// Indexes in names of the date and time, and of what the key takes
	// (-1 when the key does not need it).
	date, time, ip, user, path, field int
	fatal                             *ParseError // a #Fields line the reader stops at
	directive                         bool        // the line parsed last is a directive
	vals                              [][]byte
}

// The W3C extended logs read: as IIS writes them, and as CloudFront does.
const (
	// FormatW3C is a W3C extended log as IIS writes it (see W3CReader).
	FormatW3C Format = "w3c"
	// FormatCloudFront is an Amazon CloudFront standard log, the W3C
	// extended format with tabs (see W3CReader).
	FormatCloudFront Format = "cloudfront"
)

// w3cDialect is how one of the W3C extended logs read is written.
type w3cDialect struct {
	format  Format
	title   string // in messages: "a CloudFront log"
	tabs    bool   // fields are separated by tabs only (CloudFront)
	hasUser bool   // a cs-username field (IIS)
	example string // fields to name in the error of a bad key
}

var (
	w3cIIS        = &w3cDialect{format: FormatW3C, title: "a W3C extended log", hasUser: true, example: "cs(User-Agent), s-ip, ..."}
	w3cCloudFront = &w3cDialect{format: FormatCloudFront, title: "a CloudFront log", tabs: true, example: "cs(User-Agent), x-forwarded-for, ..."}
)

var w3cDialects = []*w3cDialect{w3cIIS, w3cCloudFront}

func init() {
	register(&formatSpec{format: FormatCloudFront, rank: 60, kind: "CloudFront", title: w3cCloudFront.title, log: true,
		open: w3cOpener(w3cCloudFront)})
	register(&formatSpec{format: FormatW3C, aliases: []string{"iis"}, rank: 70, kind: "W3C", title: w3cIIS.title, log: true,
		open: w3cOpener(w3cIIS),
		// W3C logs, CloudFront's among them, are told by their directives
		sniff: sniffer{opens: isW3CDirective, tells: w3cFieldsDialect}})
}

// w3cOpener returns the open of a W3C dialect's format.
func w3cOpener(d *w3cDialect) func(s stream, opt Options) (Reader, error) {
	return func(s stream, opt Options) (Reader, error) {
		return asReader(newW3CReader(s.r, s.name, d, opt, s.closer))
	}
}

func (w *W3CReader) traceFormat() Format { return w.dialect.format }

var w3cFields = []byte("#Fields:")

// w3cDirectives are the directives that begin a W3C extended log.
var w3cDirectives = [][]byte{[]byte("#Version:"), []byte("#Fields:"), []byte("#Software:"), []byte("#Date:"),
	[]byte("#Start-Date:"), []byte("#End-Date:"), []byte("#Remark:")}

// isW3CDirective reports whether line is one of the directives of a W3C
// extended log.
func isW3CDirective(line []byte) bool {
	for _, d := range w3cDirectives {
		if bytes.HasPrefix(line, d) {
			return true
		}
	}
	return false
}

// w3cFieldsDialect tells a CloudFront log from another W3C extended log by
// a #Fields line (false for another line): CloudFront's name its
// x-edge-location.
func w3cFieldsDialect(line []byte) (Format, bool) {
	names, ok := bytes.CutPrefix(line, w3cFields)
	if !ok {
		return FormatAuto, false
	}
	for _, n := range bytes.Fields(names) {
		if string(n) == "x-edge-location" {
			return FormatCloudFront, true
		}
	}
	return FormatW3C, true
}

// NewW3CReader returns a reader of the W3C extended log in r (format is
// FormatW3C or FormatCloudFront). name is the file name used in errors.
// Close does not close r.
func NewW3CReader(r io.Reader, name string, format Format, opt Options) (*W3CReader, error) {
	for _, d := range w3cDialects {
		if d.format == format {
			return newW3CReader(newCancelReader(r, opt.Cancel), name, d, opt, nil)
		}
	}
	return nil, fmt.Errorf("traces: %v is not a W3C extended log format", format)
}

func newW3CReader(r io.Reader, name string, d *w3cDialect, opt Options, closer io.Closer) (*W3CReader, error) {
	if err := opt.check(); err != nil {
		return nil, err
	}
	if err := opt.refuseLineOptions(d.title); err != nil {
		return nil, err
	}
	fields := logFields{hasUser: d.hasUser, isField: func(string) bool { return true },
		names: "or a field of #Fields by its name (" + d.example + ")"}
	key, err := parseLogKey(opt.Key, d.title, fields)
	if err != nil {
		return nil, err
	}
	return &W3CReader{logRecords: newLogRecords(r, name, opt, closer, key), dialect: d}, nil
}

// Scan advances to the next request; see Reader.
func (w *W3CReader) Scan() bool {
	for w.scan(w.parse) {
		if w.fatal != nil {
			w.err, w.done, w.fatal = w.fatal, true, nil
			return false
		}
		if !w.directive {
			return true
		}
	}
	return false
}

// parse reads one line: a directive, or a record into w.req. It returns
// what is wrong with the line or "".
func (w *W3CReader) parse(line []byte) string {
	if w.directive = line[0] == '#'; w.directive {
		if names, ok := strings.CutPrefix(string(line), "#Fields:"); ok {
			w.setFields(names)
		}
		return ""
	}
	if w.names == nil {
		return "record before any #Fields line"
	}
	w.vals = w.vals[:0]
	for rest := line; ; {
		i := 0
		for i < len(rest) && rest[i] != '\t' && (w.dialect.tabs || rest[i] != ' ') {
			i++
		}
		w.vals = append(w.vals, rest[:i])
		if i == len(rest) || len(w.vals) > len(w.names) {
			break
		}
		rest = rest[i+1:]
	}
	if len(w.vals) != len(w.names) {
		msg := fmt.Sprintf("%d fields, #Fields names %d", len(w.vals), len(w.names))
		if len(w.vals) > len(w.names) {
			msg = fmt.Sprintf("more than %d fields, #Fields names %d", len(w.names), len(w.names))
		}
		if w.dialect.tabs && len(w.vals) == 1 {
			msg += " (a CloudFront log's fields are separated by tabs)"
		}
		return msg
	}
	ts, msg := parseW3CTime(w.vals[w.date], w.vals[w.time])
	if msg != "" {
		return msg
	}
	var k logLine
	if w.ip >= 0 {
		k.ip = w.vals[w.ip]
	}
	if w.user >= 0 {
		k.user = w.vals[w.user]
	}
	if w.path >= 0 {
		if k.path = w.vals[w.path]; string(k.path) == "-" {
			return `cs-uri-stem is "-" (no path to key on)`
		}
	}
	if w.field >= 0 {
		k.field = w.vals[w.field]
	}
	return w.set(ts, &k)
}

// setFields takes the names of a #Fields line, or sets w.fatal.
func (w *W3CReader) setFields(s string) {
	names := strings.Fields(s)
	index := func(name string) int {
		for i, n := range names {
			if strings.EqualFold(n, name) {
				return i
			}
		}
		return -1
	}
	fail := func(format string, args ...any) {
		w.fatal = &ParseError{Pos: Position{File: w.name, Line: w.recLine},
			Msg: fmt.Sprintf(format, args...) + " (fields: " + quoteList(names) + ")"}
	}
	w.date, w.time, w.ip, w.user, w.path, w.field = index("date"), index("time"), -1, -1, -1, -1
	if w.date < 0 || w.time < 0 {
		fail("#Fields has no date and time fields")
		return
	}
	need := func(name, key string) int {
		i := index(name)
		if i < 0 && w.fatal == nil {
			fail("#Fields has no %s field, for the key %s", name, key)
		}
		return i
	}
	switch w.key.kind {
	case accessKeyIP:
		w.ip = need("c-ip", "ip")
	case accessKeyUser:
		w.user = need("cs-username", "user")
	case accessKeyPath:
		w.path = need("cs-uri-stem", "path")
	case accessKeyIPPath:
		w.ip, w.path = need("c-ip", "ip+path"), need("cs-uri-stem", "ip+path")
	case accessKeyField:
		w.field = need(w.key.field, w.key.field)
	}
	if w.fatal == nil {
		w.names = names
	}
}

// parseW3CTime parses a W3C date "2024-02-09" and time "10:22:33" (with
// an optional fraction of a second), in UTC, to Unix nanoseconds, or
// returns what is wrong.
func parseW3CTime(date, clock []byte) (int64, string) {
	d := date
	if len(d) != 10 || d[4] != '-' || d[7] != '-' {
		return 0, fmt.Sprintf("date %s is not a date YYYY-MM-DD", quoteTrunc(date))
	}
	year, month, day := atoiN(d[0:4]), atoiN(d[5:7]), atoiN(d[8:10])
	if year < 0 || month < 1 || month > 12 || day < 1 || day > daysIn(month, year) {
		return 0, fmt.Sprintf("date %s is not a date YYYY-MM-DD", quoteTrunc(date))
	}
	c := clock
	if len(c) < 8 || c[2] != ':' || c[5] != ':' {
		return 0, fmt.Sprintf("time %s is not a time HH:MM:SS", quoteTrunc(clock))
	}
	hour, minute, sec := atoiN(c[0:2]), atoiN(c[3:5]), atoiN(c[6:8])
	if hour < 0 || hour > 23 || minute < 0 || minute > 59 || sec < 0 || sec > 59 {
		return 0, fmt.Sprintf("time %s is not a time HH:MM:SS", quoteTrunc(clock))
	}
	frac, rest, badFrac, msg := cutFraction(c[8:])
	switch {
	case badFrac || len(rest) > 0:
		return 0, fmt.Sprintf("time %s is not a time HH:MM:SS", quoteTrunc(clock))
	case msg != "":
		return 0, fmt.Sprintf("time %s %s", quoteTrunc(clock), dateErrFraction)
	}
	ns, msg := unixNS(daysFromCivil(year, month, day)*86400+int64(hour*3600+minute*60+sec), frac)
	if msg != "" {
		return 0, fmt.Sprintf("date and time %s %s", quoteTrunc(append(append(append([]byte(nil), date...), ' '), clock...)), msg)
	}
	return ns, ""
}
