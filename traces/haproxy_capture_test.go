package traces

import (
	"strings"
	"testing"
)

// The captured request headers are the first block of braces after the
// queues, where HAProxy's HTTP log writes them; a "{" in a cookie before
// them is not a block, and the second block, the response headers, is
// never taken for request headers.
func TestHAProxyCapturePosition(t *testing.T) {
	const head = `10.0.1.2:33317 [09/Feb/2024:10:22:33.123] http-in static/srv1 10/0/30/69/109 200 2750 `
	const req = ` "GET /a HTTP/1.1"`
	ts := utc("2024-02-09T10:22:33.123Z")
	tests := []struct {
		name, rest, key string
		want            string // the key read, or the error after "t.log:1: "
		ok              bool
	}{
		{"both blocks", `- - ---- 1/1/1/1/0 0/0 {host|agent} {resp0|resp1}`, "capture.req.hdr(1)", "agent", true},
		{"a { in the request cookie", `s={x - ---- 1/1/1/1/0 0/0 {host|agent} {resp}`, "capture.req.hdr(0)", "host", true},
		{"a {...} in the cookies", `s={a} t={b} ---- 1/1/1/1/0 0/0 {host} {resp}`, "capture.req.hdr(0)", "host", true},
		{"a {...} in a cookie, no captures", `s={a} - ---- 1/1/1/1/0 0/0`, "capture.req.hdr(0)",
			"no captured request header 0, for the key capture.req.hdr(0)", false},
		{"fewer request headers than asked, response block after", `- - ---- 1/1/1/1/0 0/0 {host} {resp0|resp1}`, "capture.req.hdr(1)",
			"no captured request header 1, for the key capture.req.hdr(1)", false},
		{"empty request block, response block after", `- - ---- 1/1/1/1/0 0/0 {} {resp}`, "capture.req.hdr(0)", "empty key", false},
		{"request headers only", `- - ---- 1/1/1/1/0 0/0 {host}`, "capture.req.hdr(0)", "host", true},
		{"a request with a brace", `- - ---- 1/1/1/1/0 0/0 {host}`, "path", "/a", true},
		{"three blocks", `- - ---- 1/1/1/1/0 0/0 {a} {b} {c}`, "capture.req.hdr(0)",
			"more than two {captured headers} blocks (request and response)", false},
		{"block not closed", `- - ---- 1/1/1/1/0 0/0 {a`, "capture.req.hdr(0)", "{captured headers} not closed", false},
		{"no connection counts", `- - ---- {a} {b}`, "capture.req.hdr(0)",
			`connection counts "{a}" are not actconn/feconn/beconn/srv_conn/retries (after the cookies and the termination state)`, false},
		{"no queues", `- - ---- 1/1/1/1/0 {a}`, "capture.req.hdr(0)", `queues "{a}" are not srv_queue/backend_queue`, false},
		{"a word before the request", `- - ---- 1/1/1/1/+1 0/0 {a} x`, "capture.req.hdr(0)",
			`"x" where the "request" field should be (after the queues and the captured headers)`, false},
	}
	for _, tt := range tests {
		got, err := read(FormatHAProxy, []byte(head+tt.rest+req+"\n"), "t.log", Options{Key: tt.key})
		switch {
		case tt.ok && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.ok:
			diffRequests(t, got, []Request{{T: ts, Key: []byte(tt.want), Cost: 1}})
		case errString(err) != "t.log:1: "+tt.want:
			t.Errorf("%s: err = %v\nwant t.log:1: %s", tt.name, err, tt.want)
		}
	}
	// A request line with braces is not a block.
	line := head + `- - ---- 1/1/1/1/0 0/0 "GET /{x} HTTP/1.1"`
	if _, err := read(FormatHAProxy, []byte(line+"\n"), "t.log", Options{Key: "capture.req.hdr(0)"}); !strings.Contains(errString(err), "no captured request header 0") {
		t.Errorf("braces in the request line: err = %v, want no captured request header", err)
	}
}
