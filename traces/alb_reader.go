package traces

import (
	"fmt"
	"io"
	"strings"
)

// ALBReader reads an AWS Application Load Balancer access log as a trace
// (the files are usually .log.gz, read decompressed):
//
//	https 2018-07-02T22:23:00.186641Z app/my-loadbalancer/50dc6c495c0c9188 192.168.131.39:2817 10.0.0.1:80 0.000 0.001 0.000 200 200 34 366 "GET https://www.example.com:443/a?b=1 HTTP/1.1" "curl/7.46.0" ECDHE-RSA-AES128-GCM-SHA256 TLSv1.2 arn:... "Root=1-58337262-36d228ad5d99923122bbe354" "www.example.com" ...
//
// The model: fields separated by spaces, in the order of albFieldNames
// (type, time, elb, client:port, target:port, ...); a field in double
// quotes (request, user_agent, trace_id, ...) may hold spaces, and \" and
// \\ in it are escapes (kept as they are, not decoded). A line has at
// least the fields up to the request; whatever follows the fields named
// here (fields AWS adds later) is ignored. The type must be http, https,
// h2, grpcs, ws or wss, the elb_status_code three digits or "-".
//
//   - ts is the time field (the second; when the load balancer sent the
//     response), RFC 3339 in UTC with microseconds, exactly. It must not be
//     before 1970.
//   - the key is chosen by Options.Key: the client's address without its
//     port ("" or "ip"; IPv6 too), the request path ("path": of the URL of
//     the request line, "https://host:443/a?b" giving "/a"), the client
//     address, a space and the path ("ip+path"), or any field by its name
//     ("user_agent", "domain_name", "client:port", ...; the text between
//     the quotes of a quoted field; "-" makes the line bad). An ALB log has
//     no user.
//   - cost is always 1.
//
// Lines, blank lines, limits, errors and SkipBad are as for
// AccessLogReader.
type ALBReader struct {
	logRecords
	need  int // fields to split: through the request, and the key's
	keyAt int // index of the key's field
	line  albLine
}

// albFieldNames are the fields of an ALB access log entry, in order, as
// AWS documents them.
var albFieldNames = [...]string{"type", "time", "elb", "client:port", "target:port",
	"request_processing_time", "target_processing_time", "response_processing_time",
	"elb_status_code", "target_status_code", "received_bytes", "sent_bytes", "request", "user_agent",
	"ssl_cipher", "ssl_protocol", "target_group_arn", "trace_id", "domain_name", "chosen_cert_arn",
	"matched_rule_priority", "request_creation_time", "actions_executed", "redirect_url", "error_reason",
	"target:port_list", "target_status_code_list", "classification", "classification_reason", "conn_trace_id"}

// Indexes of the fields the reader looks at, and the number a line has at
// least.
const (
	albType, albTime, albClient, albStatus, albRequest = 0, 1, 3, 8, 12
	albMinFields                                       = albRequest + 1
)

func albFieldIndex(name string) int {
	for i, n := range albFieldNames {
		if n == name {
			return i
		}
	}
	return -1
}

var albFields = logFields{
	isField: func(name string) bool { return albFieldIndex(name) >= 0 },
	names:   "or a field by its name (" + strings.Join(albFieldNames[:], ", ") + ")",
}

// FormatALB is an AWS Application Load Balancer access log (see
// ALBReader). It is read only, like the other logs.
const FormatALB Format = "alb"

// albTitle names the ALB log in messages.
const albTitle = "an ALB access log"

func init() {
	register(&formatSpec{format: FormatALB, rank: 50, kind: "ALB", title: albTitle, log: true,
		open: func(s stream, opt Options) (Reader, error) {
			return asReader(newALBReader(s.r, s.name, opt, s.closer))
		},
		sniff: sniffer{
			good: func(line []byte) bool {
				var fl albLine
				return splitALBLine(line, &fl, albMinFields) == ""
			},
			looks: looksLikeALBLine, lookOrder: 20,
		},
	})
}

func (*ALBReader) traceFormat() Format { return FormatALB }

// looksLikeALBLine reports whether a line starts like an ALB log's: one of
// its types, then a time.
func looksLikeALBLine(line []byte) bool {
	first, rest := accessToken(line)
	second, _ := accessToken(rest)
	switch string(first) {
	case "http", "https", "h2", "grpcs", "ws", "wss":
		return len(second) > 0 && second[0] >= '0' && second[0] <= '9'
	}
	return false
}

// NewALBReader returns a reader of the ALB access log in r. name is the
// file name used in errors. Close does not close r.
func NewALBReader(r io.Reader, name string, opt Options) (*ALBReader, error) {
	return newALBReader(newCancelReader(r, opt.Cancel), name, opt, nil)
}

func newALBReader(r io.Reader, name string, opt Options, closer io.Closer) (*ALBReader, error) {
	if err := opt.check(); err != nil {
		return nil, err
	}
	if err := opt.refuseLineOptions(albTitle); err != nil {
		return nil, err
	}
	key, err := parseLogKey(opt.Key, albTitle, albFields)
	if err != nil {
		return nil, err
	}
	a := &ALBReader{logRecords: newLogRecords(r, name, opt, closer, key), need: albMinFields}
	if key.kind == accessKeyField {
		a.keyAt = albFieldIndex(key.field)
		a.need = max(a.need, a.keyAt+1)
	}
	return a, nil
}

// albLine is the fields of an ALB log line, split.
type albLine struct {
	f      [len(albFieldNames)][]byte
	n      int    // fields split
	quoted uint64 // bit i: field i was in quotes
	ts     int64
}

// splitALBLine splits the first need fields of a line (fewer if the line
// has fewer, but at least albMinFields) and checks them, returning what is
// wrong or "".
func splitALBLine(line []byte, l *albLine, need int) string {
	l.n, l.quoted = 0, 0
	for l.n < need && len(line) > 0 {
		var tok []byte
		if line[0] == '"' {
			end := closingQuote(line[1:])
			if end < 0 {
				return fmt.Sprintf(`"%s" field not closed`, albFieldNames[l.n])
			}
			tok, line = line[1:end+1], line[end+2:]
			if len(line) > 0 && line[0] != ' ' {
				return fmt.Sprintf("no space after the %s field", albFieldNames[l.n])
			}
			line = skipSpaces(line)
			l.quoted |= 1 << l.n
		} else {
			tok, line = accessToken(line)
		}
		l.f[l.n] = tok
		l.n++
	}
	if l.n == 0 || len(l.f[0]) == 0 {
		return "no type field (the line starts with a space)"
	}
	switch string(l.f[albType]) {
	case "http", "https", "h2", "grpcs", "ws", "wss":
	default:
		return fmt.Sprintf("type %s is not http, https, h2, grpcs, ws or wss", quoteTrunc(l.f[albType]))
	}
	if l.n < albMinFields {
		return fmt.Sprintf("%d fields, want at least %d (up to the request)", l.n, albMinFields)
	}
	var msg string
	if l.ts, msg = parseRFC3339(l.f[albTime]); msg != "" {
		return fmt.Sprintf("time %s %s", quoteTrunc(l.f[albTime]), msg)
	}
	if clientIP(l.f[albClient]) == nil {
		return fmt.Sprintf("client:port %s is not an address and port", quoteTrunc(l.f[albClient]))
	}
	if s := l.f[albStatus]; string(s) != "-" && (len(s) != 3 || !isDigits(s)) {
		return fmt.Sprintf(`elb_status_code %s is not a 3-digit number or "-"`, quoteTrunc(s))
	}
	if l.quoted&(1<<albRequest) == 0 {
		return "request field not in quotes"
	}
	return ""
}

// Scan advances to the next request; see Reader.
func (a *ALBReader) Scan() bool { return a.scan(a.parse) }

// parse reads one line into a.req, returning what is wrong with it or "".
func (a *ALBReader) parse(line []byte) string {
	l := &a.line
	if msg := splitALBLine(line, l, a.need); msg != "" {
		return msg
	}
	k := logLine{ip: clientIP(l.f[albClient]), request: l.f[albRequest]}
	switch a.key.kind {
	case accessKeyPath, accessKeyIPPath:
		k.path = uriPath(k.request)
	case accessKeyField:
		if a.keyAt >= l.n {
			return fmt.Sprintf("no %s field (the line has %d)", a.key.field, l.n)
		}
		k.field = l.f[a.keyAt]
	}
	return a.set(l.ts, &k)
}
