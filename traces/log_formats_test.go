package traces

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// One line of each log, as its software writes it.
const (
	logALB         = `https 2018-07-02T22:23:00.186641Z app/my-loadbalancer/50dc6c495c0c9188 192.168.131.39:2817 10.0.0.1:80 0.086 0.048 0.037 200 200 0 57 "GET https://www.example.com:443/a/b?x=1 HTTP/1.1" "curl/7.46.0" ECDHE-RSA-AES128-GCM-SHA256 TLSv1.2 arn:aws:elasticloadbalancing:us-east-2:123456789012:targetgroup/my-targets/73e2d6bc24d8a067 "Root=1-58337281-1d84f3d73c47ec4e58577259" "www.example.com" "arn:aws:acm:us-east-2:123456789012:certificate/12345678-1234-1234-1234-123456789012" 1 2018-07-02T22:22:48.364000Z "authenticate,forward" "-" "-" "10.0.0.1:80" "200" "-" "-" TID_1234abcd5678ef90`
	logALBv6       = `h2 2018-07-02T22:23:00.5Z app/my-loadbalancer/50dc6c495c0c9188 2001:db8:85a3::8a2e:370:7334:53211 - -1 -1 -1 502 - 34 366 "GET http://www.example.com:80/ HTTP/1.1" "-" - - - "-" "-" "-" - 2018-07-02T22:23:00.4Z "-" "-" "-" "-" "-" "-" "-"`
	cfHeader       = "#Version: 1.0\n#Fields: date time x-edge-location sc-bytes c-ip cs-method cs(Host) cs-uri-stem sc-status cs(Referer) cs(User-Agent) cs-uri-query\n"
	logCloudFront  = "2019-12-04\t21:02:31\tLAX1\t392\t192.0.2.100\tGET\td111111abcdef8.cloudfront.net\t/index.html\t200\t-\tMozilla/5.0%20(Windows%20NT)\t-"
	iisHeader      = "#Software: Microsoft Internet Information Services 10.0\n#Version: 1.0\n#Date: 2024-02-09 00:00:00\n#Fields: date time s-ip cs-method cs-uri-stem cs-uri-query s-port cs-username c-ip cs(User-Agent) cs(Referer) sc-status sc-substatus sc-win32-status time-taken\n"
	logIIS         = "2024-02-09 00:00:01 10.0.0.5 GET /index.html a=1 443 CONTOSO\\alice 203.0.113.7 Mozilla/5.0+(X11) - 200 0 0 15"
	logHAProxy     = `10.0.1.2:33317 [09/Feb/2024:10:22:33.123] http-in static/srv1 10/0/30/69/109 200 2750 - - ---- 1/1/1/1/0 0/0 {1wt.eu|Mozilla/5.0 (X11)} {} "GET /index.html?a=1 HTTP/1.1"`
	logHAProxySys  = `Feb  9 10:22:33 lb1 haproxy[1234]: ` + logHAProxy
	logHAProxy5424 = `<134>1 2024-02-09T10:22:33.300Z lb1 haproxy 1234 - - ::1:443 [09/Feb/2024:10:22:33.200] fe~ be/<NOSRV> -1/-1/-1/-1/+5 503 +212 - - SC-- 0/0/0/0/0 0/0 "GET http://h.example/x/y HTTP/1.1"`
)

// logFirstLines are a good first record of each log, with the header
// lines it needs, for the tests of every text reader.
var logFirstLines = map[Format]string{
	FormatALB:        logALB + "\n",
	FormatCloudFront: cfHeader + logCloudFront + "\n",
	FormatW3C:        iisHeader + logIIS + "\n",
	FormatHAProxy:    logHAProxySys + "\n",
}

func utc(s string) int64 {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t.UnixNano()
}

func TestLogRead(t *testing.T) {
	alb, albv6 := utc("2018-07-02T22:23:00.186641Z"), utc("2018-07-02T22:23:00.5Z")
	cf, iis := utc("2019-12-04T21:02:31Z"), utc("2024-02-09T00:00:01Z")
	hap, hap5424 := utc("2024-02-09T10:22:33.123Z"), utc("2024-02-09T10:22:33.2Z")
	tests := []struct {
		name string
		f    Format
		in   string
		key  string
		want []Request
	}{
		{"alb, ip", FormatALB, logALB + "\n", "", []Request{{alb, []byte("192.168.131.39"), 1}}},
		{"alb, ipv6 client", FormatALB, logALBv6, "ip", []Request{{albv6, []byte("2001:db8:85a3::8a2e:370:7334"), 1}}},
		{"alb, ipv6 in brackets", FormatALB, strings.Replace(logALB, "192.168.131.39:2817", "[2001:db8::1]:2817", 1), "", []Request{{alb, []byte("2001:db8::1"), 1}}},
		{"alb, path of the URL", FormatALB, logALB, "path", []Request{{alb, []byte("/a/b"), 1}}},
		{"alb, path of a URL without one", FormatALB, logALBv6, "path", []Request{{albv6, []byte("/"), 1}}},
		{"alb, ip+path", FormatALB, logALB + "\r\n", "ip+path", []Request{{alb, []byte("192.168.131.39 /a/b"), 1}}},
		{"alb, user agent", FormatALB, logALB, "user_agent", []Request{{alb, []byte("curl/7.46.0"), 1}}},
		{"alb, client:port", FormatALB, logALB, "client:port", []Request{{alb, []byte("192.168.131.39:2817"), 1}}},
		{"alb, last field", FormatALB, logALB, "conn_trace_id", []Request{{alb, []byte("TID_1234abcd5678ef90"), 1}}},
		{"alb, only up to the request", FormatALB, logALB[:strings.Index(logALB, ` "curl`)] + "\n\n", "path", []Request{{alb, []byte("/a/b"), 1}}},
		{"alb, escaped quote in a field", FormatALB, strings.Replace(logALB, `"curl/7.46.0"`, `"a \"b\" c"`, 1), "user_agent", []Request{{alb, []byte(`a \"b\" c`), 1}}},

		{"cloudfront, ip", FormatCloudFront, cfHeader + logCloudFront + "\n", "", []Request{{cf, []byte("192.0.2.100"), 1}}},
		{"cloudfront, path", FormatCloudFront, cfHeader + logCloudFront, "path", []Request{{cf, []byte("/index.html"), 1}}},
		{"cloudfront, header field, any case", FormatCloudFront, cfHeader + logCloudFront, "cs(user-agent)", []Request{{cf, []byte("Mozilla/5.0%20(Windows%20NT)"), 1}}},
		{"cloudfront, ip+path", FormatCloudFront, cfHeader + logCloudFront, "ip+path", []Request{{cf, []byte("192.0.2.100 /index.html"), 1}}},

		{"iis, ip", FormatW3C, iisHeader + logIIS + "\n", "", []Request{{iis, []byte("203.0.113.7"), 1}}},
		{"iis, user", FormatW3C, iisHeader + logIIS, "user", []Request{{iis, []byte(`CONTOSO\alice`), 1}}},
		{"iis, path without the query", FormatW3C, iisHeader + logIIS, "path", []Request{{iis, []byte("/index.html"), 1}}},
		{"iis, user agent as logged", FormatW3C, iisHeader + logIIS, "cs(User-Agent)", []Request{{iis, []byte("Mozilla/5.0+(X11)"), 1}}},
		{"iis, fields change midway", FormatW3C, "\xEF\xBB\xBF" + iisHeader + logIIS + "\n#Remark: restarted\n#Fields: c-ip time date\n198.51.100.1 23:59:59.5 2024-02-10\n", "",
			[]Request{{iis, []byte("203.0.113.7"), 1}, {utc("2024-02-10T23:59:59.5Z"), []byte("198.51.100.1"), 1}}},
		{"w3c, tabs too", FormatW3C, "#Fields: date time c-ip\n2024-02-09\t00:00:01\t::1\n", "", []Request{{iis, []byte("::1"), 1}}},
		{"w3c, only directives", FormatW3C, iisHeader, "", nil},

		{"haproxy, ip", FormatHAProxy, logHAProxy + "\n", "", []Request{{hap, []byte("10.0.1.2"), 1}}},
		{"haproxy, syslog header", FormatHAProxy, logHAProxySys, "", []Request{{hap, []byte("10.0.1.2"), 1}}},
		{"haproxy, path", FormatHAProxy, logHAProxySys, "path", []Request{{hap, []byte("/index.html"), 1}}},
		{"haproxy, ip+path", FormatHAProxy, logHAProxy, "ip+path", []Request{{hap, []byte("10.0.1.2 /index.html"), 1}}},
		{"haproxy, captured header", FormatHAProxy, logHAProxy, "capture.req.hdr(1)", []Request{{hap, []byte("Mozilla/5.0 (X11)"), 1}}},
		{"haproxy, server", FormatHAProxy, logHAProxy, "server_name", []Request{{hap, []byte("srv1"), 1}}},
		{"haproxy, rfc 5424 header, ipv6, no server", FormatHAProxy, logHAProxy5424, "ip", []Request{{hap5424, []byte("::1"), 1}}},
		{"haproxy, absolute URL", FormatHAProxy, logHAProxy5424, "path", []Request{{hap5424, []byte("/x/y"), 1}}},
		{"haproxy, request truncated", FormatHAProxy, logHAProxy[:len(logHAProxy)-12], "path", []Request{{hap, []byte("/index.html"), 1}}},
		{"haproxy, no fraction", FormatHAProxy, strings.Replace(logHAProxy, ":33.123]", ":33]", 1), "backend_name", []Request{{utc("2024-02-09T10:22:33Z"), []byte("static"), 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := read(tt.f, []byte(tt.in), "t.log", Options{Key: tt.key})
			if err != nil {
				t.Fatal(err)
			}
			diffRequests(t, got, tt.want)
		})
	}
}

func TestLogErrors(t *testing.T) {
	alb := func(old, new string) string { return strings.Replace(logALB, old, new, 1) + "\n" }
	hap := func(old, new string) string { return strings.Replace(logHAProxy, old, new, 1) + "\n" }
	tests := []struct {
		name string
		f    Format
		in   string
		key  string
		want string
	}{
		{"alb, bad type", FormatALB, alb("https ", "ftp "), "", `t.log:1: type "ftp" is not http, https, h2, grpcs, ws or wss`},
		{"alb, leading space", FormatALB, " " + logALB, "", `t.log:1: no type field (the line starts with a space)`},
		{"alb, short", FormatALB, logALB + "\nhttps 2018-07-02T22:23:00Z elb 1.2.3.4:5 - 1 1 1 200 200 0 57\n", "", `t.log:2: 12 fields, want at least 13 (up to the request)`},
		{"alb, bad time", FormatALB, alb("2018-07-02T22:23:00.186641Z", "2018-07-02 22:23:00"), "", `t.log:1: time "2018-07-02" is not a valid RFC 3339 time`},
		{"alb, february 30", FormatALB, alb("2018-07-02T", "2018-02-30T"), "", `t.log:1: time "2018-02-30T22:23:00.186641Z" is not a valid RFC 3339 time`},
		{"alb, before 1970", FormatALB, alb("2018-07-02T22:23:00.186641Z", "1969-12-31T23:59:59Z"), "", `t.log:1: time "1969-12-31T23:59:59Z" is negative`},
		{"alb, after 2262", FormatALB, alb("2018-07-02T22:23:00.186641Z", "2263-01-01T00:00:00Z"), "", `t.log:1: time "2263-01-01T00:00:00Z" overflows int64 nanoseconds`},
		{"alb, no port", FormatALB, alb("192.168.131.39:2817", "192.168.131.39"), "", `t.log:1: client:port "192.168.131.39" is not an address and port`},
		{"alb, bad status", FormatALB, alb(" 200 200 ", " OK 200 "), "", `t.log:1: elb_status_code "OK" is not a 3-digit number or "-"`},
		{"alb, request not quoted", FormatALB, alb(`"GET https://www.example.com:443/a/b?x=1 HTTP/1.1"`, "GET"), "", `t.log:1: request field not in quotes`},
		{"alb, request not closed", FormatALB, `http 2018-07-02T22:23:00Z e 1.2.3.4:5 - 1 1 1 200 200 0 57 "GET / HTTP/1.1\"`, "", `t.log:1: "request" field not closed`},
		{"alb, quote glued", FormatALB, alb(`"curl/7.46.0" `, `"curl/7.46.0"x `), "user_agent", `t.log:1: no space after the user_agent field`},
		{"alb, dash field", FormatALB, logALBv6, "user_agent", `t.log:1: user_agent is "-" (nothing to key on)`},
		{"alb, no such field in the line", FormatALB, logALB[:strings.Index(logALB, ` "curl`)], "domain_name", `t.log:1: no domain_name field (the line has 13)`},
		{"alb, no path", FormatALB, alb(`"GET https://www.example.com:443/a/b?x=1 HTTP/1.1"`, `"- - - "`), "path", `t.log:1: request "- - - " has no path`},
		{"alb, key too long", FormatALB, alb("curl/7.46.0", strings.Repeat("c", 5000)), "user_agent", `t.log:1: key of 5000 bytes exceeds the limit of 4096 (-max-key)`},
		{"alb, NUL", FormatALB, logALB + "\n\x00\n", "", `t.log:2: NUL byte`},
		{"alb, blank line in the middle", FormatALB, logALB + "\n\n" + logALB, "", `t.log:2: empty line`},

		{"w3c, record before #Fields", FormatW3C, "#Version: 1.0\n" + logIIS, "", `t.log:2: record before any #Fields line`},
		{"w3c, no date", FormatW3C, "#Fields: time c-ip\n", "", `t.log:1: #Fields has no date and time fields (fields: "time", "c-ip")`},
		{"w3c, no key field", FormatW3C, iisHeader, "cs(Cookie)", `t.log:4: #Fields has no cs(Cookie) field, for the key cs(Cookie) (fields: "date", "time", "s-ip", "cs-method", "cs-uri-stem", "cs-uri-query", "s-port", "cs-username", "c-ip", "cs(User-Agent)", "cs(Referer)", "sc-status", "sc-substatus", "sc-win32-status", "time-taken")`},
		{"w3c, no c-ip midway", FormatW3C, iisHeader + logIIS + "\n#Fields: date time s-ip\n", "", `t.log:6: #Fields has no c-ip field, for the key ip (fields: "date", "time", "s-ip")`},
		{"w3c, too few fields", FormatW3C, iisHeader + "2024-02-09 00:00:01 10.0.0.5\n", "", `t.log:5: 3 fields, #Fields names 15`},
		{"w3c, too many fields", FormatW3C, iisHeader + logIIS + " x\n", "", `t.log:5: more than 15 fields, #Fields names 15`},
		{"w3c, bad date", FormatW3C, "#Fields: date time c-ip\n2024-02-30 00:00:01 ::1\n", "", `t.log:2: date "2024-02-30" is not a date YYYY-MM-DD`},
		{"w3c, bad time", FormatW3C, "#Fields: date time c-ip\n2024-02-09 24:00:01 ::1\n", "", `t.log:2: time "24:00:01" is not a time HH:MM:SS`},
		{"w3c, time with a zone", FormatW3C, "#Fields: date time c-ip\n2024-02-09 00:00:01Z ::1\n", "", `t.log:2: time "00:00:01Z" is not a time HH:MM:SS`},
		{"w3c, too fine", FormatW3C, "#Fields: date time c-ip\n2024-02-09 00:00:01.0000000001 ::1\n", "", `t.log:2: time "00:00:01.0000000001" has more than 9 fraction digits (finer than a nanosecond)`},
		{"w3c, before 1970", FormatW3C, "#Fields: date time c-ip\n1969-12-31 23:59:59 ::1\n", "", `t.log:2: date and time "1969-12-31 23:59:59" is before 1970 (a negative ts)`},
		{"w3c, after 2262", FormatW3C, "#Fields: date time c-ip\n2262-04-12 00:00:00 ::1\n", "", `t.log:2: date and time "2262-04-12 00:00:00" overflows int64 nanoseconds`},
		{"w3c, dash user", FormatW3C, iisHeader + strings.Replace(logIIS, `CONTOSO\alice`, "-", 1), "user", `t.log:5: user is "-" (no authenticated user to key on)`},
		{"w3c, dash field", FormatW3C, iisHeader + logIIS, "cs(Referer)", `t.log:5: cs(Referer) is "-" (nothing to key on)`},
		{"w3c, dash path", FormatW3C, "#Fields: date time cs-uri-stem\n2024-02-09 00:00:01 -\n", "path", `t.log:2: cs-uri-stem is "-" (no path to key on)`},
		{"cloudfront, spaces for tabs", FormatCloudFront, cfHeader + strings.ReplaceAll(logCloudFront, "\t", " "), "", `t.log:3: 1 fields, #Fields names 12 (a CloudFront log's fields are separated by tabs)`},

		{"haproxy, no client", FormatHAProxy, "Feb  9 10:22:33 lb1 haproxy[1234]: Proxy http-in started.\n", "", `t.log:1: no client address:port and [accept date]`},
		{"haproxy, date not closed", FormatHAProxy, hap("33.123]", "33.123"), "", `t.log:1: [accept date] not closed`},
		{"haproxy, date with a zone", FormatHAProxy, hap(":33.123]", ":33.123 +0000]"), "", `t.log:1: accept date "09/Feb/2024:10:22:33.123 +0000" is not a valid time`},
		{"haproxy, bad date", FormatHAProxy, hap("09/Feb", "30/Feb"), "", `t.log:1: accept date "30/Feb/2024:10:22:33.123" is not a valid time`},
		{"haproxy, before 1970", FormatHAProxy, hap("09/Feb/2024:10:22:33.123", "31/Dec/1969:23:59:59.999"), "", `t.log:1: accept date "31/Dec/1969:23:59:59.999" is before 1970 (a negative ts)`},
		{"haproxy, no backend", FormatHAProxy, hap("static/srv1", "static"), "", `t.log:1: no frontend and backend/server after the accept date`},
		{"haproxy, tcp log", FormatHAProxy, "10.0.1.2:33317 [09/Feb/2024:10:22:33.123] fe be/srv1 0/0/5007 212 -- 0/0/0/0/3 0/0\n", "", `t.log:1: timers "0/0/5007" are Tw/Tc/Tt: a line of HAProxy's TCP log (option tcplog), not of its HTTP log (option httplog)`},
		{"haproxy, bad timers", FormatHAProxy, hap("10/0/30/69/109", "10/0/30"+"/69"), "", `t.log:1: timers "10/0/30/69" are not Tq/Tw/Tc/Tr/Ta`},
		{"haproxy, bad status", FormatHAProxy, hap(" 200 2750 ", " 20 2750 "), "", `t.log:1: status "20" is not a 3-digit number or -1`},
		{"haproxy, bad bytes", FormatHAProxy, hap(" 200 2750 ", " 200 2k "), "", `t.log:1: bytes read "2k" is not a number`},
		{"haproxy, no request", FormatHAProxy, logHAProxy[:strings.Index(logHAProxy, ` "GET`)], "", `t.log:1: no "request" field`},
		{"haproxy, braces not closed", FormatHAProxy, hap("(X11)} {}", "(X11)"), "", `t.log:1: {captured headers} not closed`},
		{"haproxy, no such header", FormatHAProxy, logHAProxy, "capture.req.hdr(2)", `t.log:1: no captured request header 2, for the key capture.req.hdr(2)`},
		{"haproxy, no captures", FormatHAProxy, logHAProxy5424, "capture.req.hdr(0)", `t.log:1: no captured request header 0, for the key capture.req.hdr(0)`},
		{"haproxy, bad request", FormatHAProxy, hap("GET /index.html?a=1 HTTP/1.1", "<BADREQ>"), "path", `t.log:1: request "<BADREQ>" has no path`},
		{"haproxy, invalid utf-8", FormatHAProxy, hap("/index.html", "/caf\xe9"), "path", `t.log:1: key is not valid UTF-8`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := read(tt.f, []byte(tt.in), "t.log", Options{Key: tt.key})
			if err == nil {
				t.Fatalf("no error, read %+v", got)
			}
			if err.Error() != tt.want {
				t.Fatalf("error\n got: %s\nwant: %s", err, tt.want)
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %T is not a *ParseError", err)
			}
		})
	}
}

// A bad record is skipped with SkipBad; a #Fields line the reader cannot
// go on after stops it even then.
func TestLogSkipBad(t *testing.T) {
	for _, tt := range []struct {
		f       Format
		in      string
		read    int
		skipped int64
		err     string
	}{
		{FormatALB, logALB + "\nhttp 2018\n" + logALBv6 + "\n", 2, 1, ""},
		{FormatHAProxy, logHAProxy + "\nnot a log\n\n" + logHAProxy5424 + "\n\n", 2, 2, ""},
		{FormatW3C, "2024-02-09 00:00:01 ::1\n" + iisHeader + logIIS + "\n" + logIIS + " x\n" + logIIS + "\n#Fields: date c-ip\n" + logIIS + "\n", 2, 2,
			`t:9: #Fields has no date and time fields (fields: "date", "c-ip")`},
	} {
		got, n, msgs, err := readSkipping(t, tt.f, []byte(tt.in), Options{})
		if len(got) != tt.read || n != tt.skipped || errString(err) != tt.err || int64(len(msgs)) != n {
			t.Errorf("%v: read %d, skipped %d %q, error %v; want %d, %d, %s", tt.f, len(got), n, msgs, err, tt.read, tt.skipped, tt.err)
		}
	}
}

func TestLogKeyChoices(t *testing.T) {
	for _, tt := range []struct {
		f        Format
		key, err string
	}{
		{FormatALB, "user", "traces: an ALB access log has no user field to key on (want ip, path, ip+path, or a field by its name (type, time, elb, client:port, target:port, request_processing_time, target_processing_time, response_processing_time, elb_status_code, target_status_code, received_bytes, sent_bytes, request, user_agent, ssl_cipher, ssl_protocol, target_group_arn, trace_id, domain_name, chosen_cert_arn, matched_rule_priority, request_creation_time, actions_executed, redirect_url, error_reason, target:port_list, target_status_code_list, classification, classification_reason, conn_trace_id))"},
		{FormatALB, "cs(User-Agent)", `traces: unknown key "cs(User-Agent)" for an ALB access log (want ip, path, ip+path, or a field by its name (type, time, elb, client:port, target:port, request_processing_time, target_processing_time, response_processing_time, elb_status_code, target_status_code, received_bytes, sent_bytes, request, user_agent, ssl_cipher, ssl_protocol, target_group_arn, trace_id, domain_name, chosen_cert_arn, matched_rule_priority, request_creation_time, actions_executed, redirect_url, error_reason, target:port_list, target_status_code_list, classification, classification_reason, conn_trace_id))`},
		{FormatCloudFront, "user", "traces: a CloudFront log has no user field to key on (want ip, path, ip+path, or a field of #Fields by its name (cs(User-Agent), x-forwarded-for, ...))"},
		{FormatHAProxy, "user", "traces: an HAProxy log has no user field to key on (want ip, path, ip+path, frontend_name, backend_name, server_name or capture.req.hdr(N) (the N-th captured request header, from 0))"},
		{FormatHAProxy, "capture.req.hdr(-1)", `traces: unknown key "capture.req.hdr(-1)" for an HAProxy log (want ip, path, ip+path, frontend_name, backend_name, server_name or capture.req.hdr(N) (the N-th captured request header, from 0))`},
		{FormatW3C, "user", ""},
		{FormatW3C, "cs(Cookie)", ""},
	} {
		_, err := newStreamReader(tt.f, strings.NewReader(""), "t", Options{Key: tt.key})
		if errString(err) != tt.err {
			t.Errorf("%v -key %s: %v\nwant %s", tt.f, tt.key, err, tt.err)
		}
	}
	if _, err := NewW3CReader(strings.NewReader(""), "t", FormatALB, Options{}); err == nil {
		t.Error("NewW3CReader took FormatALB")
	}
}

// Each committed sample reads whole, from its content, with the times and
// keys it was written with.
func TestLogSamples(t *testing.T) {
	for _, tt := range []struct {
		file                  string
		f                     Format
		key                   string
		n, keys               int
		first, last           string // time and key
		firstKey, lastKey     string
		lowest, highest       string // when not first and last
		wantOutOfOrder, gzTry bool
	}{
		{file: "alb.log", f: FormatALB, n: 300, keys: 16, first: "2024-02-09T10:00:02.425404Z", last: "2024-02-09T10:05:24.371922Z",
			firstKey: "203.0.113.7", lastKey: "192.0.2.201", gzTry: true},
		{file: "alb.log", f: FormatALB, key: "path", n: 300, keys: 14, first: "2024-02-09T10:00:02.425404Z", last: "2024-02-09T10:05:24.371922Z",
			firstKey: "/cart", lastKey: "/"},
		{file: "cloudfront.log", f: FormatCloudFront, n: 300, keys: 18, first: "2024-02-09T10:00:02Z", last: "2024-02-09T10:03:34Z",
			firstKey: "203.0.113.7", lastKey: "203.0.113.7", gzTry: true},
		{file: "cloudfront.log", f: FormatCloudFront, key: "cs(User-Agent)", n: 300, keys: 5, first: "2024-02-09T10:00:02Z", last: "2024-02-09T10:03:34Z",
			firstKey: "Mozilla/5.0%20(Windows%20NT%2010.0;%20Win64;%20x64)%20AppleWebKit/537.36%20(KHTML,%20like%20Gecko)%20Chrome/121.0.0.0%20Safari/537.36",
			lastKey:  "Mozilla/5.0%20(Windows%20NT%2010.0;%20Win64;%20x64)%20AppleWebKit/537.36%20(KHTML,%20like%20Gecko)%20Chrome/121.0.0.0%20Safari/537.36"},
		{file: "iis.log", f: FormatW3C, n: 300, keys: 19, first: "2024-02-09T10:00:02Z", last: "2024-02-09T10:04:33Z",
			firstKey: "203.0.113.7", lastKey: "203.0.113.7"},
		{file: "iis.log", f: FormatW3C, key: "ip+path", n: 300, keys: 106, first: "2024-02-09T10:00:02Z", last: "2024-02-09T10:04:33Z",
			firstKey: "203.0.113.7 /checkout", lastKey: "203.0.113.7 /api/v1/items"},
		{file: "haproxy.log", f: FormatHAProxy, n: 300, keys: 16, first: "2024-02-09T10:00:00.783Z", last: "2024-02-09T10:04:42.687Z",
			firstKey: "203.0.113.150", lastKey: "203.0.113.7", wantOutOfOrder: true, gzTry: true},
		{file: "haproxy.log", f: FormatHAProxy, key: "capture.req.hdr(1)", n: 300, keys: 5, first: "2024-02-09T10:00:00.783Z", last: "2024-02-09T10:04:42.687Z",
			wantOutOfOrder: true, firstKey: "python-requests/2.31.0", lastKey: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/121.0.0.0 Safari/537.36"},
	} {
		path := filepath.Join("samples", tt.file)
		paths := []string{path}
		if tt.gzTry { // as the logs are stored: compressed, under a name that says nothing
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			gz := filepath.Join(t.TempDir(), "E2EXAMPLE.2024-02-09-10.a1b2c3d4.gz")
			if err := os.WriteFile(gz, compress(t, compressGzip, data), 0o644); err != nil {
				t.Fatal(err)
			}
			paths = append(paths, gz)
		}
		for _, p := range paths {
			r, err := Open(p, FormatAuto, Options{Key: tt.key})
			if err != nil {
				t.Fatal(err)
			}
			if FormatOf(r) != tt.f {
				t.Errorf("%s: format %v, want %v", p, FormatOf(r), tt.f)
			}
			got, err := readAll(r)
			r.Close()
			if err != nil {
				t.Fatal(err)
			}
			keys := map[string]bool{}
			backwards := false
			for i, q := range got {
				keys[string(q.Key)] = true
				backwards = backwards || i > 0 && q.T < got[i-1].T
			}
			if len(got) != tt.n || len(keys) != tt.keys || backwards != tt.wantOutOfOrder {
				t.Fatalf("%s -key %q: %d requests, %d keys, out of order %v", p, tt.key, len(got), len(keys), backwards)
			}
			first, last := got[0], got[len(got)-1]
			if first.T != utc(tt.first) || last.T != utc(tt.last) || string(first.Key) != tt.firstKey || string(last.Key) != tt.lastKey {
				t.Errorf("%s -key %q: first %s %q, last %s %q", p, tt.key, time.Unix(0, first.T).UTC().Format(time.RFC3339Nano), first.Key,
					time.Unix(0, last.T).UTC().Format(time.RFC3339Nano), last.Key)
			}
		}
	}
}

// The format of each log is told from its content: under a name that says
// nothing, as a .log, and on standard input; the NCSA access log stays
// what a .log is when its content tells nothing else.
func TestLogDetection(t *testing.T) {
	dir := t.TempDir()
	cases := map[string]struct {
		in string
		f  Format
	}{
		"alb":             {logALB + "\n", FormatALB},
		"alb_ipv6":        {logALBv6 + "\n", FormatALB},
		"cloudfront":      {cfHeader + logCloudFront + "\n", FormatCloudFront},
		"iis":             {iisHeader + logIIS + "\n", FormatW3C},
		"w3c_fields_only": {"#Fields: date time c-ip\n2024-02-09 00:00:01 ::1\n", FormatW3C},
		"haproxy":         {logHAProxy + "\n", FormatHAProxy},
		"haproxy_syslog":  {logHAProxySys + "\n", FormatHAProxy},
		"haproxy_5424":    {logHAProxy5424 + "\n", FormatHAProxy},
		"haproxy_later":   {"Feb  9 10:22:33 lb1 haproxy[1234]: Proxy http-in started.\n" + logHAProxySys + "\n", FormatHAProxy},
		"alb_bom":         {"\xEF\xBB\xBF" + logALB + "\n", FormatALB},
		"access":          {logCombined + "\n", FormatAccessLog},
	}
	for name, c := range cases {
		for _, file := range []string{name, name + ".log", name + ".log.gz"} {
			data := []byte(c.in)
			if strings.HasSuffix(file, ".gz") {
				data = compress(t, compressGzip, data)
			}
			path := filepath.Join(dir, file)
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			r, err := Open(path, FormatAuto, Options{})
			if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			if FormatOf(r) != c.f {
				t.Errorf("%s: format %v, want %v", file, FormatOf(r), c.f)
			}
			got, err := readAll(r)
			if name == "haproxy_later" { // HAProxy's own messages are no requests
				if len(got) != 0 || errString(err) != path+":1: no client address:port and [accept date]" {
					t.Errorf("%s: %d requests, %v", file, len(got), err)
				}
			} else if err != nil || len(got) != 1 {
				t.Errorf("%s: %d requests, %v", file, len(got), err)
			}
			r.Close()
		}
		r, err := openStream(strings.NewReader(c.in), "stdin", FormatAuto, Options{})
		if err != nil || FormatOf(r) != c.f {
			t.Errorf("stdin %s: %v, %v", name, r, err)
		}
	}
	// A .log of nothing known is read as an access log, with its errors.
	path := filepath.Join(dir, "junk.log")
	os.WriteFile(path, []byte("junk\n"), 0o644)
	if r, err := Open(path, FormatAuto, Options{}); err != nil || FormatOf(r) != FormatAccessLog {
		t.Errorf("junk.log: %v", err)
	} else if _, err := readAll(r); errString(err) != path+":1: no [date] field" {
		t.Errorf("junk.log: %v", err)
	}
}

func TestParseLogFormats(t *testing.T) {
	for in, want := range map[string]Format{"alb": FormatALB, "ALB": FormatALB, "cloudfront": FormatCloudFront, "w3c": FormatW3C,
		"iis": FormatW3C, " haproxy ": FormatHAProxy} {
		if got, err := ParseFormat(in); err != nil || got != want {
			t.Errorf("ParseFormat(%q) = %v, %v", in, got, err)
		}
	}
	for _, f := range []Format{FormatALB, FormatCloudFront, FormatW3C, FormatHAProxy} {
		if got, _ := ParseFormat(f.String()); got != f {
			t.Errorf("ParseFormat(%v.String()) = %v", f, got)
		}
		// The error of an unknown name lists every name.
		if _, err := ParseFormat("x"); err == nil || !strings.Contains(err.Error(), f.String()) {
			t.Errorf("ParseFormat(x) = %v, does not list %v", err, f)
		}
		if _, err := NewWriter(io.Discard, f); err == nil || !strings.Contains(err.Error(), "read only") {
			t.Errorf("NewWriter(%v) = %v", f, err)
		}
		path := filepath.Join(t.TempDir(), "x.log")
		if _, err := Create(path, f); err == nil || !strings.Contains(err.Error(), "read only") {
			t.Errorf("Create(%v) = %v", f, err)
		}
		if _, err := os.Stat(path); err == nil {
			t.Errorf("Create(%v) made the file", f)
		}
	}
	if _, err := ParseFormat("nginx"); errString(err) != `unknown trace format "nginx" (want csv, parquet, jsonl, accesslog, alb, cloudfront, w3c, haproxy, regex, dataset or auto)` {
		t.Errorf("ParseFormat(nginx) = %v", err)
	}
}

// Reading allocates nothing per line, whatever the key.
func TestLogAllocs(t *testing.T) {
	for _, tt := range []struct {
		f      Format
		header string
		line   string
		keys   []string
	}{
		{FormatALB, "", logALB, []string{"ip", "path", "ip+path", "user_agent"}},
		{FormatCloudFront, cfHeader, logCloudFront, []string{"ip", "ip+path", "cs(User-Agent)"}},
		{FormatW3C, iisHeader, logIIS, []string{"ip", "user", "path"}},
		{FormatHAProxy, "", logHAProxySys, []string{"ip", "ip+path", "capture.req.hdr(1)"}},
	} {
		data := tt.header + strings.Repeat(tt.line+"\n", 60_000)
		for _, key := range tt.keys {
			r, err := newStreamReader(tt.f, strings.NewReader(data), "t", Options{Key: key})
			if err != nil {
				t.Fatal(err)
			}
			allocs := testing.AllocsPerRun(50, func() {
				for range 1000 {
					if !r.Scan() {
						t.Fatal("short trace", r.Err())
					}
				}
			})
			if allocs != 0 {
				t.Errorf("%v key %s: %.0f allocations per 1000 records, want 0", tt.f, key, allocs)
			}
		}
	}
}

// Telling the log from its first line, Open does not wait for more: a
// stream that stalls after it opens, as a .log or from standard input; W3C
// logs are read up to their #Fields line.
func TestLogSniffDoesNotWait(t *testing.T) {
	for _, stdin := range []bool{false, true} {
		for f, first := range logFirstLines {
			pr, pw := io.Pipe()
			go pw.Write([]byte(first)) // then nothing, and no end
			done := make(chan struct{})
			var r Reader
			var err error
			go func() {
				defer close(done)
				r, err = open(source{r: pr, name: "x.log", stdin: stdin}, FormatAuto, Options{})
			}()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Fatalf("%v (stdin %v): Open waits for more than the first record", f, stdin)
			}
			if err != nil || FormatOf(r) != f {
				t.Errorf("%v (stdin %v): %v, %v", f, stdin, FormatOf(r), err)
			}
			pw.Close()
		}
	}
}
