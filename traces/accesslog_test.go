package traces

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// clf parses an access log date with the time package, for reference.
func clf(s string) int64 {
	t, err := time.Parse("02/Jan/2006:15:04:05.999999999 -0700", s)
	if err != nil {
		panic(err)
	}
	return t.UnixNano()
}

const (
	logCommon   = `127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326`
	logCombined = `192.168.1.20 - - [10/Oct/2000:13:55:36.25 +0530] "GET /a/b?x=1&y=\"2\" HTTP/1.1" 304 - "http://example.com/?q=\"x\"" "Mozilla/5.0 (X11)"`
)

func TestAccessLogRead(t *testing.T) {
	tests := []struct {
		name, in, key string
		want          []Request
	}{
		{"common, ip", logCommon + "\n", "", []Request{{clf("10/Oct/2000:13:55:36 -0700"), []byte("127.0.0.1"), 1}}},
		{"common, user", logCommon, "user", []Request{{clf("10/Oct/2000:13:55:36 -0700"), []byte("frank"), 1}}},
		{"common, path", logCommon, "path", []Request{{clf("10/Oct/2000:13:55:36 -0700"), []byte("/apache_pb.gif"), 1}}},
		{"combined, ip", logCombined, "ip", []Request{{clf("10/Oct/2000:13:55:36.25 +0530"), []byte("192.168.1.20"), 1}}},
		{"combined, path without query", logCombined + "\r\n", "path", []Request{{clf("10/Oct/2000:13:55:36.25 +0530"), []byte("/a/b"), 1}}},
		{"combined, ip+path", logCombined, "ip+path", []Request{{clf("10/Oct/2000:13:55:36.25 +0530"), []byte("192.168.1.20 /a/b"), 1}}},
		{"ipv6 host, nine fraction digits", `::1 - - [29/Feb/2024:23:59:59.123456789 +0000] "POST /x HTTP/2.0" 201 12` + "\n", "",
			[]Request{{clf("29/Feb/2024:23:59:59.123456789 +0000"), []byte("::1"), 1}}},
		{"extra fields and spaces ignored", `h  -  u  [01/Jan/2020:00:00:00 +0100]  "GET / HTTP/1.1"  200  5 "-" "ua" 0.003 extra` + "\n\n\n", "path",
			[]Request{{clf("01/Jan/2020:00:00:00 +0100"), []byte("/"), 1}}},
		{"escaped backslash before closing quote", `h - - [01/Jan/2020:00:00:00 +0000] "GET /a\\ HTTP/1.1\\" 200 5`, "path",
			[]Request{{clf("01/Jan/2020:00:00:00 +0000"), []byte(`/a\\`), 1}}},
		{"bom, epoch", "\xEF\xBB\xBFh - - [01/Jan/1970:00:00:00 +0000] \"GET / HTTP/1.0\" 200 0\n", "",
			[]Request{{0, []byte("h"), 1}}},
		{"last second of int64", `h - - [11/Apr/2262:23:47:16.854775807 +0000] "GET / HTTP/1.0" 200 0`, "",
			[]Request{{1<<63 - 1, []byte("h"), 1}}},
		{"empty", "", "", nil},
		{"only blank lines", "\n\r\n", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := read(FormatAccessLog, []byte(tt.in), "access.log", Options{Key: tt.key})
			if err != nil {
				t.Fatal(err)
			}
			diffRequests(t, got, tt.want)
		})
	}
}

func TestAccessLogErrors(t *testing.T) {
	const good = logCommon + "\n"
	line := func(date string) string {
		return `1.2.3.4 - - [` + date + `] "GET / HTTP/1.1" 200 1` + "\n"
	}
	tests := []struct {
		name, in, key string
		want          string
	}{
		{"no date", good + good + "1.2.3.4 - - GET / 200 1\n", "", "access.log:3: no [date] field" + brokenLineHint},
		{"short line", "1.2.3.4 -\n", "", "access.log:1: no [date] field"},
		{"leading space", " 1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.1\" 200 1\n", "", "access.log:1: no host field (the line starts with a space)"},
		{"date not closed", "1.2.3.4 - - [10/Oct/2000:13:55:36 -0700 \"GET / HTTP/1.1\" 200 1\n", "", "access.log:1: [date] field not closed"},
		{"bad day", strings.Repeat(good, 6) + line("32/Oct/2000:13:55:36 -0700"), "", `access.log:7: date "32/Oct/2000:13:55:36 -0700" is not a valid time`},
		{"february 30", line("30/Feb/2024:13:55:36 -0700"), "", `access.log:1: date "30/Feb/2024:13:55:36 -0700" is not a valid time`},
		{"not a leap year", line("29/Feb/2100:00:00:00 +0000"), "", `access.log:1: date "29/Feb/2100:00:00:00 +0000" is not a valid time`},
		{"bad month", line("10/oct/2000:13:55:36 -0700"), "", `access.log:1: date "10/oct/2000:13:55:36 -0700" is not a valid time`},
		{"hour 24", line("10/Oct/2000:24:00:00 -0700"), "", `access.log:1: date "10/Oct/2000:24:00:00 -0700" is not a valid time`},
		{"no zone", line("10/Oct/2000:13:55:36"), "", `access.log:1: date "10/Oct/2000:13:55:36" is not a valid time`},
		{"bad zone", line("10/Oct/2000:13:55:36 -07:00"), "", `access.log:1: date "10/Oct/2000:13:55:36 -07:00" is not a valid time`},
		{"empty fraction", line("10/Oct/2000:13:55:36. -0700"), "", `access.log:1: date "10/Oct/2000:13:55:36. -0700" is not a valid time`},
		{"too fine", line("10/Oct/2000:13:55:36.1234567891 -0700"), "", `access.log:1: date "10/Oct/2000:13:55:36.1234567891 -0700" has more than 9 fraction digits (finer than a nanosecond)`},
		{"before 1970", line("31/Dec/1969:23:59:59 +0000"), "", `access.log:1: date "31/Dec/1969:23:59:59 +0000" is before 1970 (a negative ts)`},
		{"before 1970 by the zone", line("01/Jan/1970:00:30:00 +0100"), "", `access.log:1: date "01/Jan/1970:00:30:00 +0100" is before 1970 (a negative ts)`},
		{"after 2262", line("12/Apr/2262:00:00:00 +0000"), "", `access.log:1: date "12/Apr/2262:00:00:00 +0000" overflows int64 nanoseconds`},
		{"no request", "1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] 200 1\n", "", `access.log:1: no "request" field after the date`},
		{"request not closed", "1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.1\\\" 200 1\n", "", `access.log:1: "request" field not closed`},
		{"no status", "1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.1\"\n", "", `access.log:1: no status field`},
		{"bad status", "1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.1\" 2000 1\n", "", `access.log:1: status "2000" is not a 3-digit number`},
		{"no size", "1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.1\" 200\n", "", `access.log:1: no size field`},
		{"bad size", "1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.1\" 200 1k\n", "", `access.log:1: size "1k" is not a number or "-"`},
		{"dash user", good + line("10/Oct/2000:13:55:36 -0700"), "user", `access.log:2: user is "-" (no authenticated user to key on)`},
		{"no path", `1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "-" 400 0` + "\n", "path", `access.log:1: request "-" has no path`},
		{"only a query", `1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET ?a HTTP/1.1" 400 0` + "\n", "ip+path", `access.log:1: request "GET ?a HTTP/1.1" has no path`},
		{"long request quoted short", `1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "` + strings.Repeat("x", 100) + `" 400 0` + "\n", "path",
			`access.log:1: request "` + strings.Repeat("x", 64) + `"... has no path`},
		{"key too long", `1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET /` + strings.Repeat("p", 5000) + ` HTTP/1.1" 200 0` + "\n", "path",
			`access.log:1: key of 5001 bytes exceeds the limit of 4096 (-max-key)`},
		{"invalid utf-8 path", "1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] \"GET /\xff HTTP/1.1\" 200 0\n", "path", `access.log:1: key is not valid UTF-8`},
		{"NUL byte", good + "\x00\x00\x00\x00\n", "", `access.log:2: NUL byte`},
		{"blank line in the middle", good + "\n" + good, "", `access.log:2: empty line`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := read(FormatAccessLog, []byte(tt.in), "access.log", Options{Key: tt.key})
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
	if _, err := NewAccessLogReader(strings.NewReader(""), "a.log", Options{Key: "user_id"}); err == nil ||
		err.Error() != `traces: unknown access log key "user_id" (want ip, user, path or ip+path)` {
		t.Errorf("unknown key: %v", err)
	}
}

// TestCLFDates checks the date parser against the time package on random
// dates, zones and fractions.
func TestCLFDates(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		sec := rng.Int64N(9223372036 - 2*86400)
		ns := rng.Int64N(1e9)
		zone := time.FixedZone("", (rng.IntN(48)-24)*1800)
		tm := time.Unix(sec+86400, ns).In(zone)
		layout := "02/Jan/2006:15:04:05 -0700"
		want := (sec + 86400) * 1e9
		switch rng.IntN(3) {
		case 1:
			layout = "02/Jan/2006:15:04:05.000 -0700"
			want += ns / 1e6 * 1e6
		case 2:
			layout = "02/Jan/2006:15:04:05.000000000 -0700"
			want += ns
		}
		s := tm.Format(layout)
		got, msg := parseCLFDate([]byte(s))
		if msg != "" || got != want {
			t.Fatalf("parseCLFDate(%q) = %d, %q; want %d", s, got, msg, want)
		}
	}
}

func TestAccessLogAllocs(t *testing.T) {
	var sb strings.Builder
	for i := range 60_000 {
		sb.WriteString(logCombined[:len("192.168.1.")])
		sb.WriteByte(byte('0' + i%10))
		sb.WriteString(logCombined[len("192.168.1.20"):])
		sb.WriteByte('\n')
	}
	data := sb.String()
	for _, key := range []string{"ip", "path", "ip+path"} {
		r, err := NewAccessLogReader(strings.NewReader(data), "a.log", Options{Key: key})
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
			t.Fatalf("key %s: %.0f allocations per 1000 records, want 0", key, allocs)
		}
	}
}
