package traces

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// readSkipping reads data with SkipBad and returns the requests, the skip
// count, the messages of the first skipped records and the error.
func readSkipping(t *testing.T, f Format, data []byte, opt Options) ([]Request, int64, []string, error) {
	t.Helper()
	opt.SkipBad = true
	r, err := newReader(f, data, "t", opt)
	if err != nil {
		return nil, 0, nil, err
	}
	defer r.Close()
	got, err := readAll(r)
	n, first := r.(SkipCounter).Skipped()
	var msgs []string
	for _, e := range first {
		msgs = append(msgs, e.Error())
	}
	return got, n, msgs, err
}

func TestSkipBad(t *testing.T) {
	tests := []struct {
		name string
		f    Format
		in   string
		opt  Options
		want []Request
		n    int64
		msgs []string
	}{
		{"csv", FormatCSV, "ts,key,cost\n1,a,1\nx,b,1\n2,b,2\n3,c,0\n\n\n4,\"d\n\",1\n5,\xff,1\n6,e,1,extra\n7,f\x00,1\n8,g,1\n\n", Options{},
			[]Request{{1, []byte("a"), 1}, {2, []byte("b"), 2}, {4, []byte("d\n"), 1}, {8, []byte("g"), 1}}, 7,
			[]string{`t:3: ts "x" is not a number, decimal seconds or RFC 3339 time`, `t:5: cost "0" is not positive`,
				"t:6: empty line", "t:7: empty line", "t:10: key is not valid UTF-8", "t:11: 4 fields, header has 3", "t:12: NUL byte"}},
		{"csv key column", FormatCSV, "user_id,ts\nu1,1\n,2\nu3,3\n", Options{Key: "user_id"},
			[]Request{{1, []byte("u1"), 1}, {3, []byte("u3"), 1}}, 1, []string{"t:3: empty key"}},
		{"jsonl", FormatJSONL, "{\"ts\":1,\"key\":\"a\"}\n{\"ts\":-1,\"key\":\"b\"}\n{\"ts\":2}\n\n{\"ts\":3,\"key\":\"c\",\"cost\":0}\nnot json\n{\"ts\":4,\"key\":\"d\"}\n", Options{},
			[]Request{{1, []byte("a"), 1}, {4, []byte("d"), 1}}, 5,
			[]string{"t:2: ts -1 is negative", `t:3: missing "key" (fields: "ts")`, "t:4: empty line", "t:5: cost 0 is not positive",
				"t:6: invalid JSON: expected '{', found 'n' at column 1"}},
		{"jsonl key field", FormatJSONL, "{\"ts\":1,\"user\":\"a\",\"key\":\"x\"}\n{\"ts\":2,\"key\":\"b\"}\n", Options{Key: "user"},
			[]Request{{1, []byte("a"), 1}}, 1, []string{`t:2: missing "user" (fields: "ts", "key")`}},
		{"access log", FormatAccessLog, logCommon + "\nbad\n" + logCommon + "\n\x00\x00\n", Options{Key: "user"},
			[]Request{{clf("10/Oct/2000:13:55:36 -0700"), []byte("frank"), 1}, {clf("10/Oct/2000:13:55:36 -0700"), []byte("frank"), 1}}, 2,
			[]string{"t:2: no [date] field", "t:4: NUL byte"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, n, msgs, err := readSkipping(t, tt.f, []byte(tt.in), tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			diffRequests(t, got, tt.want)
			if n != tt.n || strings.Join(msgs, "\n") != strings.Join(tt.msgs, "\n") {
				t.Fatalf("skipped %d:\n%s\nwant %d:\n%s", n, strings.Join(msgs, "\n"), tt.n, strings.Join(tt.msgs, "\n"))
			}
			// Without SkipBad the reader stops at the first bad record,
			// with the error SkipBad reports first.
			opt := tt.opt
			opt.SkipBad = false
			got2, err := read(tt.f, []byte(tt.in), "t", opt)
			if err == nil || strings.TrimSuffix(err.Error(), brokenLineHint) != tt.msgs[0] { // the hint is for a reader that does not skip
				t.Fatalf("without SkipBad: %v, want %s", err, tt.msgs[0])
			}
			if len(got2) > len(got) || !equalRequests(got2, got[:len(got2)]) {
				t.Fatal("without SkipBad: not a prefix")
			}
		})
	}
}

// TestSkipBadExamples checks that only the first MaxSkipExamples skipped
// records are kept, and all are counted.
func TestSkipBadExamples(t *testing.T) {
	var sb strings.Builder
	sb.WriteString("ts,key\n")
	for i := range 100 {
		if i%4 == 0 {
			fmt.Fprintf(&sb, "%d,k\n", i)
		} else {
			fmt.Fprintf(&sb, "-%d,k\n", i)
		}
	}
	got, n, msgs, err := readSkipping(t, FormatCSV, []byte(sb.String()), Options{})
	if err != nil || len(got) != 25 || n != 75 || len(msgs) != MaxSkipExamples {
		t.Fatalf("%d requests, %d skipped, %d examples, %v", len(got), n, len(msgs), err)
	}
	if msgs[0] != `t:3: ts "-1" is negative` || msgs[9] != `t:15: ts "-13" is negative` {
		t.Fatalf("examples %q", msgs)
	}
}

// TestSkipBadFatal checks the errors that stop a reader even with SkipBad.
func TestSkipBadFatal(t *testing.T) {
	tests := []struct {
		name string
		f    Format
		in   []byte
		want string
		n    int // requests read before
	}{
		{"csv header", FormatCSV, []byte("time,key\n1,a\n"), `t:1: header has no "ts" column (columns: "time", "key")`, 0},
		{"csv empty", FormatCSV, nil, "t: empty file, expected a header with ts,key[,cost]", 0},
		{"csv unclosed quote", FormatCSV, []byte("ts,key\n1,a\n2,\"b\n3,c\n"), "t:3: quoted field not closed before the end of the file", 1},
		{"parquet footer", FormatParquet, []byte("PAR1xxxxxxxxPAR1"), "t: not a valid Parquet file (truncated?): footer of 2021161080 bytes does not fit in a file of 16 bytes", 0},
	}
	for _, tt := range tests {
		got, _, _, err := readSkipping(t, tt.f, tt.in, Options{})
		if err == nil || err.Error() != tt.want || len(got) != tt.n {
			t.Errorf("%s: %d requests, %v\nwant %d, %s", tt.name, len(got), err, tt.n, tt.want)
		}
	}
}

type pqSkip struct {
	TS   *int64  `parquet:"ts,optional"`
	Key  *string `parquet:"key,optional"`
	Cost int64   `parquet:"cost"`
}

func TestSkipBadParquet(t *testing.T) {
	var rows []pqSkip
	var want []Request
	var bad []string
	for i := range 3000 {
		ts, key := ptr(int64(i)), ptr(fmt.Sprint("k", i%7))
		cost := int64(i%3 + 1)
		switch i % 500 {
		case 17:
			ts = nil
			bad = append(bad, fmt.Sprintf("t: row %d: ts is null", i+1))
		case 99:
			key = nil
			bad = append(bad, fmt.Sprintf("t: row %d: key is null", i+1))
		case 123:
			*ts = -1
			bad = append(bad, fmt.Sprintf("t: row %d: ts -1 is negative", i+1))
		case 321:
			cost = 0
			bad = append(bad, fmt.Sprintf("t: row %d: cost 0 is not positive", i+1))
		case 400:
			*key = "\xff"
			bad = append(bad, fmt.Sprintf("t: row %d: key is not valid UTF-8", i+1))
		default:
			want = append(want, Request{*ts, []byte(*key), cost})
		}
		rows = append(rows, pqSkip{ts, key, cost})
	}
	data := writeParquetRows(t, rows, parquet.MaxRowsPerRowGroup(700), parquet.PageBufferSize(512))
	got, n, msgs, err := readSkipping(t, FormatParquet, data, Options{})
	if err != nil {
		t.Fatal(err)
	}
	diffRequests(t, got, want)
	if n != int64(len(bad)) || strings.Join(msgs, "\n") != strings.Join(bad[:MaxSkipExamples], "\n") {
		t.Fatalf("skipped %d %q", n, msgs)
	}
	if _, err := read(FormatParquet, data, "t", Options{}); err == nil || err.Error() != bad[0] {
		t.Fatalf("without SkipBad: %v", err)
	}
}

// TestMaxLine checks the line limit of the text readers: at the default
// limit, over it (an error, or a skipped line), and that the memory a long
// line takes stays bounded.
func TestMaxLine(t *testing.T) {
	long := func(n int) string { return strings.Repeat("k", n) }
	big := Options{MaxKey: 1 << 30}
	lines := map[Format]func(key string) string{
		FormatCSV:   func(key string) string { return "1," + key + "\n" },
		FormatJSONL: func(key string) string { return `{"ts":1,"key":"` + key + `"}` + "\n" },
		FormatAccessLog: func(key string) string {
			return key + ` - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0" 200 1` + "\r\n"
		},
	}
	for f, line := range lines {
		head := ""
		if f == FormatCSV {
			head = "ts,key\n"
		}
		fixed := len(line("")) - 1
		if f == FormatAccessLog {
			fixed--
		}
		// A line of exactly DefaultMaxLine bytes is read.
		atLimit := line(long(DefaultMaxLine - fixed))
		got, err := read(f, []byte(head+atLimit), "t", big)
		if err != nil || len(got) != 1 || len(got[0].Key) != DefaultMaxLine-fixed {
			t.Fatalf("%v at the limit: %v", f, err)
		}
		// One more byte is an error, or skipped.
		over := head + line("a") + line(long(DefaultMaxLine-fixed+1)) + line("b")
		_, err = read(f, []byte(over), "t", big)
		lineNo := 2
		if f == FormatCSV {
			lineNo = 3
		}
		// (a line longer than the read buffer is refused without its end read)
		want := fmt.Sprintf("t:%d: line longer than the limit of %d bytes (-max-line)", lineNo, DefaultMaxLine)
		if err == nil || err.Error() != want {
			t.Fatalf("%v over the limit: %v\nwant %s", f, err, want)
		}
		got, n, msgs, err := readSkipping(t, f, []byte(over), big)
		if err != nil || len(got) != 2 || string(got[1].Key) != "b" || n != 1 || msgs[0] != want {
			t.Fatalf("%v over the limit, skipping: %d requests, %d skipped %q, %v", f, len(got), n, msgs, err)
		}
		// A 20 MiB line is skipped without being held.
		huge := head + line(long(20<<20)) + line("c")
		r, err := newReader(f, []byte(huge), "t", Options{SkipBad: true})
		if err != nil {
			t.Fatal(err)
		}
		if !r.Scan() || string(r.Request().Key) != "c" {
			t.Fatalf("%v: huge line: %v", f, r.Err())
		}
		var lr *lineReader
		switch r := r.(type) {
		case *CSVReader:
			lr = &r.lr
		case *JSONLReader:
			lr = &r.lr
		case *AccessLogReader:
			lr = &r.lr
		}
		if c := cap(lr.long); c > 2*DefaultMaxLine+readBufferSize {
			t.Fatalf("%v: a huge line grew the buffer to %d bytes", f, c)
		}
	}
}

// TestMaxLineCSVRecords checks the limit on CSV records that span lines:
// the whole record is skipped, and the quote state is followed through
// lines too long to keep.
func TestMaxLineCSVRecords(t *testing.T) {
	opt := Options{MaxLine: 100, MaxKey: 100}
	in := "ts,key\n" +
		"1,a\n" +
		"2,\"" + strings.Repeat("x", 60) + "\n" + strings.Repeat("y", 60) + "\n,\"\n" + // record of 3 lines over 100 bytes
		"3,b\n" +
		"4,\"" + strings.Repeat("z", 300) + "\n" + "still quoted, \"\"3\"\"\n" + "end\"\n" + // a first line over 100 bytes, quote open
		"5,c\n" +
		"6,\"" + strings.Repeat("z", 10) + "\n" + strings.Repeat("w\"\"", 100) + "\n" + "end\"\n" + // a middle line over 100 bytes
		"7,d\n"
	got, n, msgs, err := readSkipping(t, FormatCSV, []byte(in), opt)
	if err != nil {
		t.Fatal(err)
	}
	diffRequests(t, got, []Request{{1, []byte("a"), 1}, {3, []byte("b"), 1}, {5, []byte("c"), 1}, {7, []byte("d"), 1}})
	want := []string{
		"t:3: record spanning lines exceeds the limit of 100 bytes (-max-line)",
		"t:7: line of 303 bytes exceeds the limit of 100 (-max-line)",
		"t:11: record spanning lines exceeds the limit of 100 bytes (-max-line)",
	}
	if n != 3 || strings.Join(msgs, "\n") != strings.Join(want, "\n") {
		t.Fatalf("skipped %d:\n%s", n, strings.Join(msgs, "\n"))
	}
	// A quote left open in a line too long still runs to the end of the file.
	_, _, _, err = readSkipping(t, FormatCSV, []byte("ts,key\n1,\""+strings.Repeat("q", 200)+"\n2,a\n"), opt)
	if err == nil || err.Error() != "t:2: quoted field not closed before the end of the file" {
		t.Fatal(err)
	}
}

// TestSkipBadAllocs checks that skipping more than MaxSkipExamples bad
// records does not keep allocating examples.
func TestSkipBadAllocs(t *testing.T) {
	var buf bytes.Buffer
	buf.WriteString("ts,key\n")
	for range 20000 {
		buf.WriteString("1,a\n1,\n")
	}
	r, err := NewCSVReader(bytes.NewReader(buf.Bytes()), "t", Options{SkipBad: true})
	if err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(100, func() {
		for range 100 {
			if !r.Scan() {
				t.Fatal(r.Err())
			}
		}
	})
	if allocs != 0 {
		t.Fatalf("%.0f allocations per 100 records with a constant bad record in between", allocs)
	}
}
