package traces

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// HAProxyReader reads HAProxy's HTTP log (option httplog) as a trace, with
// or without the syslog header in front of it:
//
//	Feb  9 10:22:33 lb1 haproxy[1234]: 10.0.1.2:33317 [09/Feb/2024:10:22:33.123] http-in static/srv1 10/0/30/69/109 200 2750 - - ---- 1/1/1/1/0 0/0 {www.example.com|Mozilla/5.0} {} "GET /index.html HTTP/1.1"
//
// The model: whatever comes before the client's "address:port" and the
// accept date in brackets is ignored (a syslog header, in any of its
// forms); then come, separated by spaces, the frontend, backend/server, the
// five timers Tq/Tw/Tc/Tr/Ta (integers, -1 for none, Ta maybe with a "+"),
// the status (three digits, or -1) and the bytes read (digits, maybe with a
// "+"); then the captured request and response cookies and the termination
// state (each a word, not looked at), the connection counts (five integers
// a/b/c/d/e) and the queues (two, a/b); then, if the configuration
// captures any, the captured request headers in braces, then the captured
// response headers in braces; then the request line in double quotes. A
// request line truncated by HAProxy, without its closing quote, is read up
// to the end of the line. Only the first block of braces after the queues
// is request headers: a "{" in a cookie is not a block, and of two blocks
// the second, the response headers, is never a request header's. A log
// that captures response headers and no request headers has one block too,
// which a line cannot tell from request headers: capture.req.hdr(N) reads
// it as request headers.
//
//   - ts is the accept date "09/Feb/2024:10:22:33.123", exactly (to the
//     millisecond HAProxy writes, or any fraction up to 9 digits, or none).
//     HAProxy writes it in its local time with no zone: it is taken as UTC.
//     It must not be before 1970.
//   - the key is chosen by Options.Key: the client address without its
//     port ("" or "ip"; IPv6 too), the request path ("path": the second
//     word of the request line, without its query string, the path of an
//     absolute URL), the address, a space and the path ("ip+path"),
//     "frontend_name", "backend_name", "server_name", or a captured request
//     header, capture.req.hdr(0) for the first, as HAProxy numbers them: of
//     the request headers' braces, the texts between "|". HAProxy's log
//     has no user.
//   - cost is always 1.
//
// Lines, blank lines, limits, errors and SkipBad are as for
// AccessLogReader.
type HAProxyReader struct {
	logRecords
	hdr  int // the captured request header of the key, for capture.req.hdr(N)
	line haproxyLine
}

var haproxyFields = logFields{
	isField: func(name string) bool { _, ok := haproxyField(name); return ok },
	names:   "frontend_name, backend_name, server_name or capture.req.hdr(N) (the N-th captured request header, from 0)",
}

// haproxyField returns the captured request header a key names (-1 for
// frontend_name, -2 for backend_name, -3 for server_name), or false.
func haproxyField(name string) (int, bool) {
	switch name {
	case "frontend_name":
		return -1, true
	case "backend_name":
		return -2, true
	case "server_name":
		return -3, true
	}
	if n, ok := strings.CutPrefix(name, "capture.req.hdr("); ok && strings.HasSuffix(n, ")") {
		i, err := strconv.Atoi(n[:len(n)-1])
		return i, err == nil && i >= 0 && i < 1000
	}
	return 0, false
}

// FormatHAProxy is HAProxy's HTTP log (see HAProxyReader).
const FormatHAProxy Format = "haproxy"

// haproxyTitle names HAProxy's log in messages.
const haproxyTitle = "an HAProxy log"

func init() {
	register(&formatSpec{format: FormatHAProxy, rank: 80, kind: "HAProxy", title: haproxyTitle, log: true,
		open: func(s stream, opt Options) (Reader, error) {
			return asReader(newHAProxyReader(s.r, s.name, opt, s.closer))
		},
		sniff: sniffer{
			good: func(line []byte) bool {
				var hl haproxyLine
				return splitHAProxyLine(line, &hl) == ""
			},
			// an address:port before an [accept date]
			looks: func(line []byte) bool { ip, _ := haproxyClient(line); return ip != nil }, lookOrder: 10,
		},
	})
}

func (*HAProxyReader) traceFormat() Format { return FormatHAProxy }

// NewHAProxyReader returns a reader of the HAProxy log in r. name is the
// file name used in errors. Close does not close r.
func NewHAProxyReader(r io.Reader, name string, opt Options) (*HAProxyReader, error) {
	return newHAProxyReader(newCancelReader(r, opt.Cancel), name, opt, nil)
}

func newHAProxyReader(r io.Reader, name string, opt Options, closer io.Closer) (*HAProxyReader, error) {
	if err := opt.check(); err != nil {
		return nil, err
	}
	if err := opt.refuseLineOptions(haproxyTitle); err != nil {
		return nil, err
	}
	key, err := parseLogKey(opt.Key, haproxyTitle, haproxyFields)
	if err != nil {
		return nil, err
	}
	h := &HAProxyReader{logRecords: newLogRecords(r, name, opt, closer, key)}
	if key.kind == accessKeyField {
		h.hdr, _ = haproxyField(key.field)
	}
	return h, nil
}

// haproxyLine is the fields of an HAProxy log line the reader uses.
type haproxyLine struct {
	ip, frontend, backend, server, request, headers []byte
	ts                                              int64
}

// splitHAProxyLine splits a line into its fields and checks them,
// returning what is wrong or "".
func splitHAProxyLine(line []byte, l *haproxyLine) string {
	var rest []byte
	if l.ip, rest = haproxyClient(line); l.ip == nil {
		return "no client address:port and [accept date]"
	}
	end := bytes.IndexByte(rest, ']')
	if end < 0 {
		return "[accept date] not closed"
	}
	date := rest[:end]
	unix, frac, after, msg := parseCLFClock(date)
	if msg == "" && len(after) > 0 {
		msg = dateErrSyntax
	}
	if msg == "" {
		l.ts, msg = unixNS(unix, frac)
	}
	if msg != "" {
		return fmt.Sprintf("accept date %s %s", quoteTrunc(date), msg)
	}
	rest = skipSpaces(rest[end+1:])
	var backendServer, timers, status, size []byte
	l.frontend, rest = accessToken(rest)
	backendServer, rest = accessToken(rest)
	var ok bool
	if l.backend, l.server, ok = bytes.Cut(backendServer, slash); len(l.frontend) == 0 || !ok {
		return "no frontend and backend/server after the accept date"
	}
	timers, rest = accessToken(rest)
	if !isSlashInts(timers, 5) {
		if isSlashInts(timers, 3) {
			return fmt.Sprintf("timers %s are Tw/Tc/Tt: a line of HAProxy's TCP log (option tcplog), not of its HTTP log (option httplog)", quoteTrunc(timers))
		}
		return fmt.Sprintf("timers %s are not Tq/Tw/Tc/Tr/Ta", quoteTrunc(timers))
	}
	status, rest = accessToken(rest)
	if string(status) != "-1" && (len(status) != 3 || !isDigits(status)) {
		return fmt.Sprintf("status %s is not a 3-digit number or -1", quoteTrunc(status))
	}
	size, rest = accessToken(rest)
	if len(size) > 1 && size[0] == '+' {
		size = size[1:]
	}
	if !isDigits(size) {
		return fmt.Sprintf("bytes read %s is not a number", quoteTrunc(size))
	}
	// Then, by position: the captured request and response cookies and
	// the termination state (any text without a space, "{" included), the
	// connection counts and the queues, then the captured request headers
	// in braces and the response headers in braces, each only when the
	// configuration captures some, and the request line in quotes.
	var conns, queues []byte
	_, rest = accessToken(rest) // captured request cookie
	_, rest = accessToken(rest) // captured response cookie
	_, rest = accessToken(rest) // termination state
	conns, rest = accessToken(rest)
	if !isSlashInts(conns, 5) {
		return fmt.Sprintf("connection counts %s are not actconn/feconn/beconn/srv_conn/retries (after the cookies and the termination state)", quoteTrunc(conns))
	}
	queues, rest = accessToken(rest)
	if !isSlashInts(queues, 2) {
		return fmt.Sprintf("queues %s are not srv_queue/backend_queue", quoteTrunc(queues))
	}
	l.headers = nil
	for blocks := 0; len(rest) > 0 && rest[0] == '{'; blocks++ {
		// HAProxy writes a "{", "|", "}" or '"' of a captured header as
		// "#7B"..., so the first "}" closes the block.
		k := bytes.IndexByte(rest, '}')
		if k < 0 {
			return "{captured headers} not closed"
		}
		if blocks == 2 {
			return "more than two {captured headers} blocks (request and response)"
		}
		if blocks == 0 {
			l.headers = rest[1:k]
		}
		rest = skipSpaces(rest[k+1:])
	}
	if len(rest) == 0 || rest[0] != '"' {
		if len(rest) == 0 {
			return `no "request" field`
		}
		found, _ := accessToken(rest)
		return fmt.Sprintf(`%s where the "request" field should be (after the queues and the captured headers)`, quoteTrunc(found))
	}
	l.request = rest[1:]
	if k := bytes.IndexByte(l.request, '"'); k >= 0 {
		l.request = l.request[:k]
	}
	return ""
}

// haproxyClient returns the client's address of an HAProxy log line, the
// first word followed by " [" that is an address:port, and what follows the
// "[", or nil.
func haproxyClient(line []byte) (ip, rest []byte) {
	for from := 0; ; {
		j := bytes.Index(line[from:], []byte(" ["))
		if j < 0 {
			return nil, nil
		}
		at := from + j
		if ip = clientIP(line[bytes.LastIndexByte(line[:at], ' ')+1 : at]); ip != nil {
			return ip, line[at+2:]
		}
		from = at + 2
	}
}

// isSlashInts reports whether b is n integers separated by "/", each maybe
// with a sign (HAProxy writes "+" before a count it had to cut short).
func isSlashInts(b []byte, n int) bool {
	parts := 0
	for part := range bytes.SplitSeq(b, slash) {
		if len(part) > 1 && (part[0] == '-' || part[0] == '+') {
			part = part[1:]
		}
		if !isDigits(part) {
			return false
		}
		parts++
	}
	return parts == n
}

// Scan advances to the next request; see Reader.
func (h *HAProxyReader) Scan() bool { return h.scan(h.parse) }

// parse reads one line into h.req, returning what is wrong with it or "".
func (h *HAProxyReader) parse(line []byte) string {
	l := &h.line
	if msg := splitHAProxyLine(line, l); msg != "" {
		return msg
	}
	k := logLine{ip: l.ip, request: l.request}
	switch h.key.kind {
	case accessKeyPath, accessKeyIPPath:
		k.path = uriPath(l.request)
	case accessKeyField:
		switch h.hdr {
		case -1:
			k.field = l.frontend
		case -2:
			k.field = l.backend
		case -3:
			k.field = l.server
		default:
			var ok bool
			if k.field, ok = nthCapture(l.headers, h.hdr); !ok {
				return fmt.Sprintf("no captured request header %d, for the key %s", h.hdr, h.key.field)
			}
		}
	}
	return h.set(l.ts, &k)
}

// nthCapture returns the n-th (from 0) of the captured headers hdrs, the
// text between the braces, or false when there are not so many.
func nthCapture(hdrs []byte, n int) ([]byte, bool) {
	if hdrs == nil {
		return nil, false
	}
	for range n {
		j := bytes.IndexByte(hdrs, '|')
		if j < 0 {
			return nil, false
		}
		hdrs = hdrs[j+1:]
	}
	v, _, _ := bytes.Cut(hdrs, []byte("|"))
	return v, true
}
