package traces

import (
	"bytes"
	"testing"
)

// fuzzLog checks a log reader on fuzzed input as FuzzAccessLogReader does
// the access log's: mode picks the key from keys (low bits), SkipBad (bit
// 4), a short MaxLine (bit 5) and MaxKey (bit 6).
func fuzzLog(t *testing.T, f Format, keys []string, data []byte, mode uint8) {
	opt := Options{Key: keys[int(mode&15)%len(keys)], SkipBad: mode&16 != 0}
	if mode&32 != 0 {
		opt.MaxLine = 200
	}
	if mode&64 != 0 {
		opt.MaxKey = 8
	}
	got, err := checkFuzzRead(t, f, data, opt)
	maxKey, _, _ := opt.limits()
	for _, r := range got {
		if r.Cost != 1 || len(r.Key) > maxKey {
			t.Fatalf("bad request %+v", r)
		}
	}
	checkSkipping(t, f, data, opt, got, err)
	if opt.SkipBad && f != FormatW3C && f != FormatCloudFront { // a bad #Fields line stops a W3C reader
		if err != nil {
			t.Fatalf("stopped with SkipBad: %v", err)
		}
		// Every line is a request, a skipped record or a blank line at
		// the end.
		r, _ := newStreamReader(f, bytes.NewReader(data), "fuzz.in", opt)
		all, _ := readAll(r)
		n, _ := r.(SkipCounter).Skipped()
		lines, blank := countLines(data)
		if int64(len(all))+n+int64(blank) != int64(lines) {
			t.Fatalf("%d requests + %d skipped + %d trailing blank lines != %d lines", len(all), n, blank, lines)
		}
	}
	rewrite(t, FormatCSV, got)
}

func FuzzALBReader(f *testing.F) {
	for _, s := range []string{
		logALB + "\n" + logALBv6 + "\n",
		`ws 2018-07-02T22:23:00Z e [::1]:5 - 1 1 1 - - 0 57 "GET / HTTP/1.1" "a\"b"` + "\r\n\r\n",
		"https 2018-07-02T22:23:00Z\nh2 1969-12-31T23:59:59Z e 1.2.3.4:5 - 1 1 1 200 200 0 57 \"- - - \"\n\x00\n",
	} {
		f.Add([]byte(s), uint8(0))
	}
	keys := []string{"", "path", "ip+path", "user_agent", "client:port", "conn_trace_id"}
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) { fuzzLog(t, FormatALB, keys, data, mode) })
}

// FuzzW3CReader reads IIS logs, and CloudFront's with bit 7 of mode.
func FuzzW3CReader(f *testing.F) {
	for _, s := range []string{
		iisHeader + logIIS + "\n#Fields: c-ip time date\n::1 00:00:00.5 2024-02-10\n",
		cfHeader + logCloudFront + "\n",
		"#Fields: date time c-ip\n2024-02-30 00:00:01 ::1\n\n2024-02-09\t24:00:00 x\n#Fields: time\n",
		"\xEF\xBB\xBF2024-02-09 00:00:01 ::1\n#Version: 1.0\r\n",
	} {
		f.Add([]byte(s), uint8(0))
		f.Add([]byte(s), uint8(128))
	}
	keys := []string{"", "user", "path", "ip+path", "cs(User-Agent)", "time"}
	cfKeys := []string{"", "x-forwarded-for", "path", "ip+path", "cs(User-Agent)", "time"} // no user
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		if mode&128 != 0 {
			fuzzLog(t, FormatCloudFront, cfKeys, data, mode&127)
			return
		}
		fuzzLog(t, FormatW3C, keys, data, mode)
	})
}

func FuzzHAProxyReader(f *testing.F) {
	for _, s := range []string{
		logHAProxy + "\n" + logHAProxySys + "\n" + logHAProxy5424 + "\n",
		"a [b] 1.2.3.4:5 [09/Feb/2024:10:22:33.1234567891] f b/s 1/2/3/4/+5 -1 +0 {|x} {y} \"GET\n",
		"1:2 [31/Dec/1969:23:59:59] f b/s 1/2/3/4/5 200 0 {a|b|c \"x\"\n\x00\n",
		"1.2.3.4:5 [09/Feb/2024:10:22:33] f b/s 1/2/3/4/5 200 0 s={a t=} ---- 1/1/1/1/+0 0/0 {h|u} {r} \"GET /{x} HTTP/1.1\"\n",
	} {
		f.Add([]byte(s), uint8(0))
	}
	keys := []string{"", "path", "ip+path", "capture.req.hdr(0)", "capture.req.hdr(2)", "backend_name", "server_name"}
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) { fuzzLog(t, FormatHAProxy, keys, data, mode) })
}
