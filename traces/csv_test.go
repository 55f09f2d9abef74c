package traces

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func rfc(s string) int64 {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t.UnixNano()
}

func TestCSVTimestamps(t *testing.T) {
	tests := []struct {
		ts   string
		unit time.Duration
		want int64
	}{
		{"0", 0, 0},
		{"1700000000123456789", 0, 1700000000123456789},
		{"9223372036854775807", 0, 9223372036854775807},
		{"1700000000", time.Second, 1700000000_000000000},
		{"1700000000123", time.Millisecond, 1700000000123_000000},
		{"1700000000123456", time.Microsecond, 1700000000123456_000},
		{"1.000000001", 0, 1_000000001},
		{"1700000000.123456789", 0, 1700000000_123456789},
		{"1700000000.5", 0, 1700000000_500000000},
		{"1.5", time.Millisecond, 1_500000000}, // decimal seconds ignore the unit
		{"0.000000001", 0, 1},
		{"1.1000000000000", 0, 1_100000000}, // extra zero digits are fine
		{"9223372036.854775807", 0, 9223372036854775807},
		{"2024-01-02T03:04:05Z", 0, rfc("2024-01-02T03:04:05Z")},
		{"2024-01-02T03:04:05.123Z", time.Second, rfc("2024-01-02T03:04:05.123Z")},
		{"2024-01-02T03:04:05.123456789+01:00", 0, rfc("2024-01-02T02:04:05.123456789Z")},
		{"2024-01-02T03:04:05-05:30", 0, rfc("2024-01-02T08:34:05Z")},
		{"2024-02-29t23:59:59.5z", 0, rfc("2024-02-29T23:59:59.5Z")},
		{"1970-01-01T00:00:00Z", 0, 0},
	}
	for _, tt := range tests {
		got, err := read(FormatCSV, []byte("ts,key\n"+tt.ts+",k\n"), "t.csv", Options{TSUnit: tt.unit})
		if err != nil {
			t.Errorf("ts %s unit %v: %v", tt.ts, tt.unit, err)
			continue
		}
		if len(got) != 1 || got[0].T != tt.want {
			t.Errorf("ts %s unit %v: got %+v, want T=%d", tt.ts, tt.unit, got, tt.want)
		}
	}
}

func TestCSVRead(t *testing.T) {
	tests := []struct {
		name, in string
		want     []Request
	}{
		{"header only", "ts,key,cost\n", nil},
		{"header only no newline", "ts,key", nil},
		{"no cost column", "ts,key\n5,a\n", []Request{{5, []byte("a"), 1}}},
		{"empty cost", "ts,key,cost\n5,a,\n", []Request{{5, []byte("a"), 1}}},
		{"any order, extra columns", "x,cost,key,y,ts\n1,7,k,2,9\n", []Request{{9, []byte("k"), 7}}},
		{"no final newline", "ts,key\n1,a\n2,b", []Request{{1, []byte("a"), 1}, {2, []byte("b"), 1}}},
		{"crlf", "ts,key,cost\r\n1,a,2\r\n2,b,3\r\n", []Request{{1, []byte("a"), 2}, {2, []byte("b"), 3}}},
		{"bom", "\xEF\xBB\xBFts,key\n1,a\n", []Request{{1, []byte("a"), 1}}},
		{"trailing blank lines", "ts,key\n1,a\n\n\r\n", []Request{{1, []byte("a"), 1}}},
		{"quoted header", "\"ts\",\"key\"\n1,a\n", []Request{{1, []byte("a"), 1}}},
		{"spaces around header names", "ts , key\n1,a\n", []Request{{1, []byte("a"), 1}}},
		{"quoted fields", "ts,key,cost\n\"1\",\"a,b\",\"2\"\n", []Request{{1, []byte("a,b"), 2}}},
		{"doubled quotes", "ts,key\n1,\"say \"\"hi\"\"\"\n", []Request{{1, []byte(`say "hi"`), 1}}},
		{"quoted newline", "ts,key\n1,\"a\nb\"\n2,\"c\r\nd\"\r\n", []Request{{1, []byte("a\nb"), 1}, {2, []byte("c\r\nd"), 1}}},
		{"key with spaces kept", "ts,key\n1, a \n", []Request{{1, []byte(" a "), 1}}},
		{"utf-8 key", "ts,key\n1,héllo 世界\n", []Request{{1, []byte("héllo 世界"), 1}}},
		{"last field quoted empty cost", "ts,key,cost\n1,a,\"\"\n", []Request{{1, []byte("a"), 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := read(FormatCSV, []byte(tt.in), "t.csv", Options{})
			if err != nil {
				t.Fatal(err)
			}
			diffRequests(t, got, tt.want)
		})
	}
}

func TestCSVErrors(t *testing.T) {
	const good = "1,a,1\n"
	tests := []struct {
		name, in string
		unit     time.Duration
		want     string
	}{
		{"bad ts on line 7", "ts,key,cost\n" + strings.Repeat(good, 5) + "abc,k,1\n",
			0, `trace.csv:7: ts "abc" is not a number, decimal seconds or RFC 3339 time`},
		{"too few fields", "ts,key,cost\n" + good + "1,a\n", 0, "trace.csv:3: 2 fields, header has 3"},
		{"one field", "ts,key,cost\n1\n", 0, "trace.csv:2: 1 field, header has 3"},
		{"too many fields", "ts,key,cost\n1,a,1,x\n", 0, "trace.csv:2: 4 fields, header has 3"},
		{"no ts column", "time,key\n1,a\n", 0, `trace.csv:1: header has no "ts" column (columns: "time", "key")`},
		{"no key column", "ts,Key\n1,a\n", 0, `trace.csv:1: header has no "key" column (columns: "ts", "Key")`},
		{"invalid utf-8 key", "ts,key\n1,\xff\xfe\n", 0, "trace.csv:2: key is not valid UTF-8"},
		{"key too long", "ts,key\n1," + strings.Repeat("k", 4097) + "\n", 0, "trace.csv:2: key of 4097 bytes exceeds the limit of 4096 (-max-key)"},
		{"duplicate column", "ts,key,ts\n1,a,1\n", 0, `trace.csv:1: header has two "ts" columns`},
		{"empty file", "", 0, "trace.csv: empty file, expected a header with ts,key[,cost]"},
		{"only blank lines", "\n\n", 0, "trace.csv: empty file, expected a header with ts,key[,cost]"},
		{"only bom", "\xEF\xBB\xBF", 0, "trace.csv: empty file, expected a header with ts,key[,cost]"},
		{"blank before header", "\nts,key\n", 0, "trace.csv:1: empty line, expected a header with ts,key[,cost]"},
		{"NUL byte", "ts,key\n1,a\x00b\n", 0, "trace.csv:2: NUL byte"},
		{"NUL byte in header", "ts,key\x00\n", 0, "trace.csv:1: NUL byte"},
		{"zero cost", "ts,key,cost\n1,a,0\n", 0, `trace.csv:2: cost "0" is not positive`},
		{"negative cost", "ts,key,cost\n1,a,-3\n", 0, `trace.csv:2: cost "-3" is not positive`},
		{"non-numeric cost", "ts,key,cost\n1,a,x\n", 0, `trace.csv:2: cost "x" is not an integer`},
		{"fractional cost", "ts,key,cost\n1,a,1.5\n", 0, `trace.csv:2: cost "1.5" is not an integer`},
		{"cost overflow", "ts,key,cost\n1,a,9223372036854775808\n", 0, `trace.csv:2: cost "9223372036854775808" exceeds the largest cost, 2147483647`},
		{"cost above MaxCost", "ts,key,cost\n1,a,2147483647\n2,a,2147483648\n", 0, `trace.csv:3: cost "2147483648" exceeds the largest cost, 2147483647`},
		{"negative ts", "ts,key\n-5,a\n", 0, `trace.csv:2: ts "-5" is negative`},
		{"negative decimal ts", "ts,key\n-0.5,a\n", 0, `trace.csv:2: ts "-0.5" is negative`},
		{"ts before 1970", "ts,key\n1969-12-31T23:59:59Z,a\n", 0, `trace.csv:2: ts "1969-12-31T23:59:59Z" is negative`},
		{"ts overflow", "ts,key\n99999999999999999999,a\n", 0, `trace.csv:2: ts "99999999999999999999" overflows int64 nanoseconds`},
		{"ts overflow by unit", "ts,key\n9223372037,a\n", time.Second, `trace.csv:2: ts "9223372037" overflows int64 nanoseconds as s (-ts-unit s): try a smaller unit`},
		{"ts overflow by the auto unit", "ts,key\n1431857112,a\n1431857112000,a\n", 0,
			`trace.csv:3: ts "1431857112000" overflows int64 nanoseconds as s (the unit of the trace's first timestamp): give the unit with -ts-unit`},
		{"decimal ts overflow", "ts,key\n9223372036.854775808,a\n", 0, `trace.csv:2: ts "9223372036.854775808" overflows int64 nanoseconds`},
		{"rfc3339 overflow", "ts,key\n2263-01-01T00:00:00Z,a\n", 0, `trace.csv:2: ts "2263-01-01T00:00:00Z" overflows int64 nanoseconds`},
		{"too fine", "ts,key\n1.0000000001,a\n", 0, `trace.csv:2: ts "1.0000000001" has more than 9 fraction digits (finer than a nanosecond)`},
		{"bad date", "ts,key\n2024-02-30T00:00:00Z,a\n", 0, `trace.csv:2: ts "2024-02-30T00:00:00Z" is not a valid RFC 3339 time`},
		{"no zone", "ts,key\n2024-01-02T03:04:05,a\n", 0, `trace.csv:2: ts "2024-01-02T03:04:05" is not a valid RFC 3339 time`},
		{"float exponent", "ts,key\n1e9,a\n", 0, `trace.csv:2: ts "1e9" is not a number, decimal seconds or RFC 3339 time`},
		{"empty ts", "ts,key\n,a\n", 0, `trace.csv:2: empty ts`},
		{"empty key", "ts,key\n1,\n", 0, "trace.csv:2: empty key"},
		{"blank line in the middle", "ts,key\n1,a\n\n2,b\n", 0, "trace.csv:3: empty line"},
		{"crlf blank line", "ts,key\r\n1,a\r\n\r\n2,b\r\n", 0, "trace.csv:3: empty line"},
		{"line after multi-line record", "ts,key\n1,\"a\nb\nc\"\nx,d\n", 0, `trace.csv:5: ts "x" is not a number, decimal seconds or RFC 3339 time`},
		{"multi-line record error", "ts,key\n1,a\n-1,\"a\nb\"\n", 0, `trace.csv:3: ts "-1" is negative`},
		{"unclosed quote", "ts,key\n1,a\n2,\"b\n3,c\n", 0, "trace.csv:3: quoted field not closed before the end of the file"},
		{"bare quote", "ts,key\n1,a\"b\n", 0, `trace.csv:2: bare " in a field that does not start with a quote`},
		{"text after quote", "ts,key\n1,\"a\"b\n", 0, "trace.csv:2: text after the closing quote of a quoted field"},
		{"space before quote", "ts,key\n1, \"a\"\n", 0, `trace.csv:2: bare " in a field that does not start with a quote`},
		{"bad header quoting", "ts,\"key\n", 0, "trace.csv:1: quoted field not closed before the end of the file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := read(FormatCSV, []byte(tt.in), "trace.csv", Options{TSUnit: tt.unit})
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

// TestCSVErrorStopsScan checks that requests before the bad line are read
// and Scan stays false after the error.
func TestCSVErrorStopsScan(t *testing.T) {
	r, err := NewCSVReader(strings.NewReader("ts,key\n1,a\n2,b\nx,c\n4,d\n"), "t.csv", Options{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for r.Scan() {
		n++
		if got := r.Pos().String(); got != "t.csv:"+string(rune('1'+n)) {
			t.Errorf("Pos = %s", got)
		}
	}
	if n != 2 || r.Err() == nil || r.Scan() {
		t.Fatalf("n=%d err=%v", n, r.Err())
	}
}

func TestCSVLongLine(t *testing.T) {
	key := strings.Repeat("k", 200_000) // longer than the bufio buffer
	in := "ts,key\n1," + key + "\n2,\"" + key + "\n" + key + "\"\n"
	got, err := read(FormatCSV, []byte(in), "t.csv", Options{MaxKey: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	diffRequests(t, got, []Request{{1, []byte(key), 1}, {2, []byte(key + "\n" + key), 1}})
}

func TestCSVWriterQuoting(t *testing.T) {
	reqs := []Request{
		{1, []byte("plain"), 1},
		{2, []byte("a,b"), 2},
		{3, []byte(`q"q`), 3},
		{4, []byte(" lead"), 1},
		{5, []byte("trail\t"), 1},
		{6, []byte("l\nf"), 1},
		{7, []byte("c\rr"), 1},
		{8, []byte("mid space"), 1},
	}
	want := "ts,key,cost\n1,plain,1\n2,\"a,b\",2\n3,\"q\"\"q\",3\n4,\" lead\",1\n5,\"trail\t\",1\n6,\"l\nf\",1\n7,\"c\rr\",1\n8,mid space,1\n"
	if got := string(write(t, FormatCSV, reqs)); got != want {
		t.Fatalf("got\n%q\nwant\n%q", got, want)
	}
	if got := string(write(t, FormatCSV, nil)); got != "ts,key,cost\n" {
		t.Fatalf("empty trace: %q", got)
	}
}

func TestWriterRejects(t *testing.T) {
	bad := []struct {
		req  Request
		want string
	}{
		{Request{-1, []byte("a"), 1}, "traces: cannot write request with negative ts -1"},
		{Request{1, []byte("a"), 0}, "traces: cannot write request with cost 0: must be in [1, 2147483647]"},
		{Request{1, nil, 1}, "traces: cannot write request with an empty key"},
	}
	for _, f := range []Format{FormatCSV, FormatJSONL, FormatParquet} {
		for _, b := range bad {
			w, _ := NewWriter(new(strings.Builder), f)
			if err := w.Write(b.req); err == nil || err.Error() != b.want {
				t.Errorf("%v: Write(%+v) = %v, want %s", f, b.req, err, b.want)
			}
			w.Close()
		}
	}
	w := NewCSVWriter(new(strings.Builder))
	if err := w.Write(Request{1, []byte("a\x00"), 1}); err == nil {
		t.Error("CSV writer accepted a NUL byte")
	}
}

func TestCSVAllocs(t *testing.T) {
	const perRun = 1000
	reqs := benchRequests(perRun * 60)
	reqs[5].Key = []byte("needs \"quoting\", and\nnewlines")
	data := write(t, FormatCSV, reqs)
	r, err := NewCSVReader(strings.NewReader(string(data)), "t.csv", Options{})
	if err != nil {
		t.Fatal(err)
	}
	for range 5 * perRun { // past the switch to parallel parsing and its one-time set-up
		if !r.Scan() {
			t.Fatal("short trace", r.Err())
		}
	}
	allocs := testing.AllocsPerRun(50, func() {
		for range perRun {
			if !r.Scan() {
				t.Fatal("short trace", r.Err())
			}
		}
	})
	if allocs != 0 {
		t.Fatalf("%.0f allocations per %d records, want 0", allocs, perRun)
	}
}
