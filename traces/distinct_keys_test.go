package traces

import (
	"fmt"
	"strings"
	"testing"
)

// JSON's lone surrogates are not characters: a key holding one is a bad
// record naming the file, the line and the code point, never U+FFFD, so that
// "\ud800", "\udfff" and "\ufffd" are never read as one key. A real U+FFFD
// and a surrogate pair are keys like any other.
func TestJSONLLoneSurrogatesRefused(t *testing.T) {
	in := strings.Join([]string{
		`{"ts":1,"key":"\ud800"}`,
		`{"ts":2,"key":"\udfff"}`,
		`{"ts":3,"key":"\ufffd"}`,
		`{"ts":4,"key":"a\ud83dx"}`,
		`{"ts":5,"key":"\ud83d\ude80"}`,
		`{"ts":6,"key":"\ud800\u0041"}`,
	}, "\n") + "\n"
	_, err := read(FormatJSONL, []byte(in), "t.jsonl", Options{})
	want := `t.jsonl:1: key holds the lone surrogate U+D800 (in JSON, a "\ud800" escape without its pair), which is not a Unicode character`
	if errString(err) != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
	r, err := NewJSONLReader(strings.NewReader(in), "t.jsonl", Options{SkipBad: true})
	if err != nil {
		t.Fatal(err)
	}
	got, err := readAll(r)
	if err != nil {
		t.Fatal(err)
	}
	diffRequests(t, got, []Request{{T: 3, Key: []byte("\uFFFD"), Cost: 1}, {T: 5, Key: []byte("🚀"), Cost: 1}})
	n, first := r.Skipped()
	var msgs []string
	for _, e := range first {
		msgs = append(msgs, e.Error())
	}
	wantMsgs := []string{
		`t.jsonl:1: key holds the lone surrogate U+D800 (in JSON, a "\ud800" escape without its pair), which is not a Unicode character`,
		`t.jsonl:2: key holds the lone surrogate U+DFFF (in JSON, a "\udfff" escape without its pair), which is not a Unicode character`,
		`t.jsonl:4: key holds the lone surrogate U+D83D (in JSON, a "\ud83d" escape without its pair), which is not a Unicode character`,
		`t.jsonl:6: key holds the lone surrogate U+D800 (in JSON, a "\ud800" escape without its pair), which is not a Unicode character`,
	}
	if n != 4 || strings.Join(msgs, "\n") != strings.Join(wantMsgs, "\n") {
		t.Errorf("skipped %d:\n%s\nwant 4:\n%s", n, strings.Join(msgs, "\n"), strings.Join(wantMsgs, "\n"))
	}

	// A field name with a lone surrogate is not the name with U+FFFD.
	got, err = read(FormatJSONL, []byte(`{"ts":1,"\ud800":"x","k\ufffd":"y"}`+"\n"), "t.jsonl", Options{Key: "k\uFFFD"})
	if err != nil {
		t.Fatal(err)
	}
	diffRequests(t, got, reqsOf(1, "y", 1))
	_, err = read(FormatJSONL, []byte(`{"ts":1,"\ud800":"x"}`+"\n"), "t.jsonl", Options{Key: "\uFFFD"})
	if err == nil || !strings.Contains(err.Error(), `missing "\ufffd"`) && !strings.Contains(err.Error(), "missing \"\uFFFD\"") {
		t.Errorf("key named U+FFFD on a line whose field is \\ud800: err = %v, want the field missing", err)
	}
}

// A client "-" (the logs' word for none) is never a key: in every log it
// makes the line bad, naming file and line, skipped and counted with
// SkipBad, whether the key is the client or the client and the path. Were
// it a key, every request a log does not name the client of would be one
// client's.
func TestLogMissingClientRefused(t *testing.T) {
	access := `- - - [10/Oct/2000:13:55:36 -0700] "GET /a HTTP/1.1" 200 1`
	iis := iisHeader + strings.Replace(logIIS, "203.0.113.7", "-", 1)
	cf := cfHeader + strings.Replace(logCloudFront, "192.0.2.100", "-", 1)
	alb := strings.Replace(logALB, "192.168.131.39:2817", "-", 1)
	tests := []struct {
		name string
		f    Format
		in   string
		line int
		msg  string
	}{
		{"access log", FormatAccessLog, access, 1, `client is "-" (no client address to key on)`},
		{"IIS", FormatW3C, iis, 5, `client is "-" (no client address to key on)`},
		{"CloudFront", FormatCloudFront, cf, 3, `client is "-" (no client address to key on)`},
		{"ALB", FormatALB, alb, 1, `client:port "-" is not an address and port`},
	}
	for _, tt := range tests {
		for _, key := range []string{"ip", "ip+path"} {
			in := tt.in + "\n"
			_, err := read(tt.f, []byte(in), "t.log", Options{Key: key})
			want := fmt.Sprintf("t.log:%d: %s", tt.line, tt.msg)
			if errString(err) != want {
				t.Errorf("%s, key %s: err = %v\nwant %s", tt.name, key, err, want)
			}
			r, err := newReader(tt.f, []byte(in), "t.log", Options{Key: key, SkipBad: true})
			if err != nil {
				t.Fatal(err)
			}
			got, err := readAll(r)
			n, _ := r.(SkipCounter).Skipped()
			if err != nil || len(got) != 0 || n != 1 {
				t.Errorf("%s, key %s, SkipBad: read %d, skipped %d, err %v; want 0, 1 skipped, no error", tt.name, key, len(got), n, err)
			}
		}
		// Keyed on something else, the line is read.
		if tt.f != FormatALB {
			got, err := read(tt.f, []byte(tt.in+"\n"), "t.log", Options{Key: "path"})
			if err != nil || len(got) != 1 {
				t.Errorf("%s, key path: read %d, err %v; want the line", tt.name, len(got), err)
			}
		}
	}
}
