package traces

import (
	"bytes"
	"fmt"
	"io"
	"strings"
)

// The key choices of the log readers are the access log's (ip, user, path,
// ip+path; see Options.Key), and, in a log whose fields have names, a field
// by its name. logKey is one, parsed; logKey.of takes it from a line.

// accessKeyField is a log key that is the value of a named field.
const accessKeyField accessKey = accessKeyIPPath + 1

// logKey is what a log reader takes as the key.
type logKey struct {
	kind  accessKey
	field string // the field's name, for accessKeyField
}

// logFields is what a log format offers as keys besides ip, path and
// ip+path.
type logFields struct {
	hasUser bool
	// isField says whether a name is a field of the format; nil when it
	// has none.
	isField func(name string) bool
	// names describes the fields, for an error: the end of a list ("a or
	// b").
	names string
}

// parseLogKey parses Options.Key for a log (title, in messages: "an ALB
// access log").
func parseLogKey(s string, title string, fields logFields) (logKey, error) {
	choices := []string{"ip", "path", "ip+path"}
	if fields.hasUser {
		choices = []string{"ip", "user", "path", "ip+path"}
	}
	want := strings.Join(choices[:len(choices)-1], ", ") + " or " + choices[len(choices)-1]
	if fields.names != "" {
		want = strings.Join(choices, ", ") + ", " + fields.names
	}
	if k, err := parseAccessKey(s); err == nil {
		if k == accessKeyUser && !fields.hasUser {
			return logKey{}, fmt.Errorf("traces: %s has no user field to key on (want %s)", title, want)
		}
		return logKey{kind: k}, nil
	}
	if fields.isField != nil && fields.isField(s) {
		return logKey{kind: accessKeyField, field: s}, nil
	}
	return logKey{}, fmt.Errorf("traces: unknown key %q for %s (want %s)", s, title, want)
}

// logLine is what a log line offers as its key, nil where it has nothing.
type logLine struct {
	ip, user, request, path, field []byte
}

// of returns the key k takes from a line, checked by keyProblem, or what is
// wrong. The key of ip+path is built in buf. Every log reader takes its key
// here, so one rule holds for all: a "-" (the logs' word for nothing) is
// never a key, whether the client, the user or a field, and makes the line
// bad (skipped and counted with SkipBad), as a line of an ALB log whose
// client:port is not an address is.
func (k logKey) of(l *logLine, buf *[]byte, maxKey int) ([]byte, string) {
	var key []byte
	if (k.kind == accessKeyIP || k.kind == accessKeyIPPath) && string(l.ip) == "-" {
		// A log's "-" is no client: taken as a key, it would make all the
		// clients a log does not name one.
		return nil, `client is "-" (no client address to key on)`
	}
	switch k.kind {
	case accessKeyIP:
		key = l.ip
	case accessKeyUser:
		if string(l.user) == "-" {
			return nil, `user is "-" (no authenticated user to key on)`
		}
		key = l.user
	case accessKeyPath, accessKeyIPPath:
		if len(l.path) == 0 {
			return nil, fmt.Sprintf("request %s has no path", quoteTrunc(l.request))
		}
		key = l.path
		if k.kind == accessKeyIPPath {
			*buf = append(append(append((*buf)[:0], l.ip...), ' '), l.path...)
			key = *buf
		}
	case accessKeyField:
		if string(l.field) == "-" {
			return nil, fmt.Sprintf(`%s is "-" (nothing to key on)`, k.field)
		}
		key = l.field
	}
	if msg := keyProblem(key, maxKey); msg != "" {
		return nil, msg
	}
	return key, ""
}

var slash = []byte("/")

// uriPath returns the path of a request line's target, as requestPath
// does, and for a target in absolute form ("GET http://host:80/a HTTP/1.1",
// as load balancers and proxies log it) the path after the authority ("/a";
// "/" when there is none). A target "-" (an ALB's for a request it could
// not read) is none.
func uriPath(req []byte) []byte {
	p := requestPath(req)
	if string(p) == "-" {
		return nil
	}
	i := bytes.Index(p, []byte("://"))
	if i <= 0 || bytes.IndexByte(p[:i], '/') >= 0 {
		return p
	}
	rest := p[i+3:]
	if j := bytes.IndexByte(rest, '/'); j >= 0 {
		return rest[j:]
	}
	return slash
}

// clientIP returns the address of a "host:port" field (IPv6 as
// "2001:db8::1:443" or "[2001:db8::1]:443"), or nil when it is not one.
func clientIP(hp []byte) []byte {
	i := bytes.LastIndexByte(hp, ':')
	if i <= 0 || i == len(hp)-1 || !isDigits(hp[i+1:]) {
		return nil
	}
	host := hp[:i]
	if host[0] == '[' {
		if len(host) < 3 || host[len(host)-1] != ']' {
			return nil
		}
		host = host[1 : len(host)-1]
	}
	for _, c := range host {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' || c == '.' || c == ':') {
			return nil
		}
	}
	return host
}

// logRecords is what the log readers (but the older AccessLogReader) share
// besides the line loop: the key, and the methods of Reader but Scan.
type logRecords struct {
	lineRecords
	closer io.Closer
	key    logKey
	maxKey int
	keyBuf []byte
	req    Request
}

func newLogRecords(r io.Reader, name string, opt Options, closer io.Closer, key logKey) logRecords {
	maxKey, maxLine, _ := opt.limits()
	return logRecords{lineRecords: newLineRecords(r, name, maxLine, opt), closer: closer, key: key, maxKey: maxKey}
}

// set makes the current request the one at ts keyed as l says, or returns
// what is wrong with the key.
func (r *logRecords) set(ts int64, l *logLine) string {
	key, msg := r.key.of(l, &r.keyBuf, r.maxKey)
	if msg != "" {
		return msg
	}
	r.req = Request{T: ts, Key: key, Cost: 1}
	return ""
}

// Request returns the current request; its Key is valid until the next Scan.
func (r *logRecords) Request() Request { return r.req }

// Pos returns the file and line of the current request.
func (r *logRecords) Pos() Position { return Position{File: r.name, Line: r.recLine} }

// Err returns the first error, nil at a clean end of the trace.
func (r *logRecords) Err() error { return r.err }

// Skipped returns how many lines were skipped as bad (with Options.SkipBad),
// and the first ones (at most MaxSkipExamples), in file order.
func (r *logRecords) Skipped() (n int64, first []*ParseError) { return r.bad.skipped() }

// Close closes the file if the reader was made by Open; a reader made by
// its New function leaves its io.Reader alone.
func (r *logRecords) Close() error {
	r.done = true
	if r.closer == nil {
		return nil
	}
	err := r.closer.Close()
	r.closer = nil
	return err
}
