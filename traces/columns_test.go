package traces

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// reqsOf makes the requests of a table of ts, key, cost, ts, key, cost...
// (ts an int, or a float64 constant such as 1e9 that is whole).
func reqsOf(fields ...any) []Request {
	num := func(v any) int64 {
		if f, ok := v.(float64); ok {
			return int64(f)
		}
		return int64(v.(int))
	}
	var out []Request
	for i := 0; i < len(fields); i += 3 {
		out = append(out, Request{T: num(fields[i]), Key: []byte(fields[i+1].(string)), Cost: num(fields[i+2])})
	}
	return out
}

// Any separator among comma, tab, semicolon and pipe is told from the
// header, the one that splits it into the columns wanted; quoted fields
// may hold it.
func TestCSVSeparators(t *testing.T) {
	want := reqsOf(1, "a", 1, 2, "b;c|d,e\tf", 3, 3, "g", 1)
	for _, sep := range []string{",", "\t", ";", "|"} {
		rows := []string{"ts,key,cost", `1,a,`, `2,"b;c|d,e` + "\t" + `f",3`, "3,g,1"}
		in := strings.ReplaceAll(strings.Join(rows, "\n"), ",", sep) + "\n"
		in = strings.Replace(in, "b;c|d"+sep+"e", "b;c|d,e", 1) // the key keeps its own commas
		for _, given := range []byte{0, sep[0]} {
			got, err := read(FormatCSV, []byte(in), "t.csv", Options{Sep: given})
			if err != nil {
				t.Fatalf("sep %q, given %q: %v", sep, given, err)
			}
			diffRequests(t, got, want)
		}
	}
	// A header that splits several ways: the one with the wanted columns.
	got, err := read(FormatCSV, []byte("a,b;ts;key\n1,2;5;k\n"), "t.csv", Options{})
	if err != nil {
		t.Fatal(err)
	}
	diffRequests(t, got, reqsOf(5, "k", 1))
	// Comma comes first when several do.
	got, err = read(FormatCSV, []byte("ts,key,x;ts;key\n5,k,a;6;j\n"), "t.csv", Options{})
	if err != nil {
		t.Fatal(err)
	}
	diffRequests(t, got, reqsOf(5, "k", 1))
}

// -ts, -key and -cost name the columns; the defaults' names are then plain
// columns like any other.
func TestCSVNamedColumns(t *testing.T) {
	in := "host\tts\ttime\tweight\tcost\nh1\tx\t1700000000\t2\t9\nh2\ty\t1700000001\t\t9\n"
	opt := Options{Key: "host", TS: "time", Cost: "weight", TSUnit: time.Second}
	got, err := read(FormatCSV, []byte(in), "t.tsv", opt)
	if err != nil {
		t.Fatal(err)
	}
	diffRequests(t, got, reqsOf(1700000000e9, "h1", 2, 1700000001e9, "h2", 1))
	// The key column may be called ts once the timestamp's is another.
	got, err = read(FormatCSV, []byte("time,ts\n5,k\n"), "t.csv", Options{Key: "ts", TS: "time"})
	if err != nil {
		t.Fatal(err)
	}
	diffRequests(t, got, reqsOf(5, "k", 1))
}

// A missing named column is an error naming the file and line and listing
// the columns found; one column found hints at the separator.
func TestCSVMissingNamedColumn(t *testing.T) {
	tests := []struct {
		in   string
		opt  Options
		want string
	}{
		{"host\ttime\n", Options{Key: "host"}, `t.csv:1: header has no "ts" column (columns: "host", "time")`},
		{"host\ttime\n", Options{Key: "ip", TS: "time"}, `t.csv:1: header has no "ip" column (columns: "host", "time")`},
		{"host time\n", Options{Key: "host", TS: "time"}, `t.csv:1: header has no "time" column (columns: "host time"; give the separator with -sep)`},
		{"host\ttime\n", Options{Key: "host", TS: "time", Sep: ','}, `t.csv:1: header has no "time" column (columns: "host\ttime"; give the separator with -sep)`},
		{"ts,key,time\n", Options{TS: "time", Key: "ts", Cost: "key"}, ""},
		{"", Options{Key: "host", TS: "time"}, `t.csv: empty file, expected a header with time,host[,cost]`},
		{"ts;key;ts\n", Options{}, `t.csv:1: header has two "ts" columns`},
		{"ts,key\n", Options{Cost: "weight"}, `t.csv:1: header has no "weight" column (columns: "ts", "key")`},
		{"ts,key\n", Options{Cost: "cost"}, `t.csv:1: header has no "cost" column (columns: "ts", "key")`},
		{"ts;key;n\n", Options{Cost: "n"}, ""},
	}
	for _, tt := range tests {
		_, err := read(FormatCSV, []byte(tt.in), "t.csv", tt.opt)
		if errString(err) != tt.want && !(tt.want == "" && err == nil) {
			t.Errorf("%q %+v:\n got %v\nwant %s", tt.in, tt.opt, err, tt.want)
		}
	}
}

// A file without a header reads with the columns given: "_" and "" skip
// one; the separator is the given one or the one that splits the first
// line into as many fields; the field count is checked against them.
func TestCSVHeaderless(t *testing.T) {
	tests := []struct {
		in   string
		opt  Options
		want []Request
		err  string
	}{
		{"1,a\n2,b\n", Options{Columns: []string{"ts", "key"}}, reqsOf(1, "a", 1, 2, "b", 1), ""},
		{"\xEF\xBB\xBF1\tx\ta\t3\n2\ty\tb\t\n", Options{Columns: []string{"ts", "_", "key", "cost"}}, reqsOf(1, "a", 3, 2, "b", 1), ""},
		{"a|1|q\n", Options{Columns: []string{"host", "time", ""}, Key: "host", TS: "time"}, reqsOf(1, "a", 1), ""},
		{"a;1;q\n", Options{Columns: []string{"host", "time", ""}, Key: "host", TS: "time", Sep: ';'}, reqsOf(1, "a", 1), ""},
		{"", Options{Columns: []string{"ts", "key"}}, nil, ""},
		{"ts,key\n1,a\n", Options{Columns: []string{"ts", "key"}}, nil, `t.csv:1: ts "ts" is not a number, decimal seconds or RFC 3339 time`},
		{"1,a\n2,b,c\n", Options{Columns: []string{"ts", "key"}}, reqsOf(1, "a", 1), `t.csv:2: 3 fields, -columns names 2`},
		{"\n1,a\n", Options{Columns: []string{"ts", "key"}}, nil, `t.csv:1: empty line`},
		{"1,a\n", Options{Columns: []string{"ts", "k"}}, nil, `traces: -columns ts,k has no "key" column (the key column, -key)`},
		{"1,a\n", Options{Columns: []string{"key", "key"}}, nil, `traces: -columns key,key names "key" twice`},
		{"1,a\n", Options{Columns: []string{"ts", "key"}, Cost: "n"}, nil, `traces: -columns ts,key has no "n" column (the cost column, -cost)`},
		{"1,a\n", Options{Columns: []string{"_", "_", "ts", "key", "cost", "cost"}}, nil, `traces: -columns _,_,ts,key,cost,cost names "cost" twice`},
	}
	for _, tt := range tests {
		got, err := read(FormatCSV, []byte(tt.in), "t.csv", tt.opt)
		if errString(err) != tt.err && !(tt.err == "" && err == nil) {
			t.Errorf("%q %+v:\n got %v\nwant %s", tt.in, tt.opt, err, tt.err)
			continue
		}
		diffRequests(t, got, tt.want)
	}
}

// Options that do not fit are refused, by every reader they do not apply
// to.
func TestColumnOptionErrors(t *testing.T) {
	csvIn, jsonIn := []byte("ts,key\n1,a\n"), []byte(`{"ts":1,"key":"a"}`)
	pqIn := write(t, FormatParquet, reqsOf(1, "a", 1))
	tests := []struct {
		f    Format
		in   []byte
		opt  Options
		want string
	}{
		{FormatCSV, csvIn, Options{TS: "key"}, `traces: the timestamp and key columns cannot both be "key" (-ts, -key)`},
		{FormatCSV, csvIn, Options{Key: "ts"}, `traces: the timestamp and key columns cannot both be "ts" (-ts, -key)`},
		{FormatJSONL, jsonIn, Options{Key: "cost"}, `traces: the key and cost columns cannot both be "cost" (-key, -cost)`},
		{FormatCSV, csvIn, Options{Sep: '"'}, `traces: invalid separator '"' (-sep): the quote quotes fields`},
		{FormatCSV, csvIn, Options{Sep: '\n'}, `traces: invalid separator '\n' (-sep): want a printable ASCII character or tab`},
		{FormatJSONL, jsonIn, Options{Sep: '\t'}, `traces: -sep does not apply to JSON lines`},
		{FormatJSONL, jsonIn, Options{Columns: []string{"ts", "key"}}, `traces: -columns does not apply to JSON lines`},
		{FormatParquet, pqIn, Options{Sep: ';'}, `traces: -sep does not apply to Parquet`},
		{FormatAccessLog, []byte(logCommon), Options{TS: "time"}, `traces: -ts does not apply to an access log`},
		{FormatAccessLog, []byte(logCommon), Options{Cost: "bytes"}, `traces: -cost does not apply to an access log`},
		{FormatAccessLog, []byte(logCommon), Options{Columns: []string{"ts", "key"}}, `traces: -columns does not apply to an access log`},
	}
	for _, tt := range tests {
		if _, err := read(tt.f, tt.in, "t", tt.opt); errString(err) != tt.want {
			t.Errorf("%v %+v:\n got %v\nwant %s", tt.f, tt.opt, err, tt.want)
		}
	}
}

func TestParseSepAndColumns(t *testing.T) {
	for in, want := range map[string]byte{"": 0, ",": ',', "tab": '\t', `\t`: '\t', "\t": '\t', "TAB": '\t', ";": ';',
		"semicolon": ';', "|": '|', "pipe": '|', "comma": ',', "space": ' ', " ": ' ', ":": ':'} {
		if got, err := ParseSep(in); err != nil || got != want {
			t.Errorf("ParseSep(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for in, want := range map[string]string{
		"x":  `invalid separator "x": letters, digits and . - + are part of values`,
		`"`:  `invalid separator "\"": the quote quotes fields`,
		",,": `invalid separator ",,": want one character such as , ; | or tab`,
		"é":  `invalid separator "é": want one character such as , ; | or tab`,
	} {
		if _, err := ParseSep(in); errString(err) != want {
			t.Errorf("ParseSep(%q): %v, want %s", in, err, want)
		}
	}
	for in, want := range map[string][]string{"": nil, " ": nil, "ts,key": {"ts", "key"}, " ts , ,_, key ": {"ts", "", "_", "key"}} {
		if got := ParseColumns(in); !equalStrings(got, want) {
			t.Errorf("ParseColumns(%q) = %q, want %q", in, got, want)
		}
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) || (a == nil) != (b == nil) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Dotted names look into nested objects, as Caddy, Envoy and Traefik
// write them; a field named with the dots matches too; values on the way
// that are not objects are skipped like any other, checked all the same.
func TestJSONLNestedFields(t *testing.T) {
	caddy := `{"level":"info","ts":1700000000.5,"logger":"http.log.access","msg":"handled request",` +
		`"request":{"remote_ip":"1.2.3.4","remote_port":"5555","method":"GET","uri":"/","headers":{"User-Agent":["x\"y"]},` +
		`"time":"2024-01-02T03:04:05Z","weight":4},"status":200}`
	tests := []struct {
		name, in string
		opt      Options
		want     []Request
		err      string
	}{
		{"caddy", caddy, Options{Key: "request.remote_ip"}, reqsOf(1700000000_500000000, "1.2.3.4", 1), ""},
		{"ts and cost inside", caddy, Options{Key: "request.remote_ip", TS: "request.time", Cost: "request.weight"},
			reqsOf(int(rfc("2024-01-02T03:04:05Z")), "1.2.3.4", 4), ""},
		{"key at the top", caddy, Options{Key: "logger", TS: "request.time"}, reqsOf(int(rfc("2024-01-02T03:04:05Z")), "http.log.access", 1), ""},
		{"deeper", `{"a":{"b":{"c":"k","ts":3},"ts":2},"ts":1}`, Options{Key: "a.b.c", TS: "a.b.ts"}, reqsOf(3, "k", 1), ""},
		{"flat dotted name", `{"ts":1,"request.remote_ip":"k"}`, Options{Key: "request.remote_ip"}, reqsOf(1, "k", 1), ""},
		{"dotted name inside", `{"ts":1,"a":{"b.c":"k"}}`, Options{Key: "a.b.c"}, reqsOf(1, "k", 1), ""},
		{"other fields repeat", `{"ts":1,"a":{"j":1},"a":{"k":"x"},"a":{"j":2},"j":3,"j":4}`, Options{Key: "a.k"}, reqsOf(1, "x", 1), ""},
		{"twice nested", `{"ts":1,"a":{"k":"x"},"a":{"k":"y"}}`, Options{Key: "a.k"}, nil, `t.jsonl:1: key is given twice (which one counts would be a guess)`},
		{"twice flat and nested", `{"ts":1,"a":{"k":"x"},"a.k":"z"}`, Options{Key: "a.k"}, nil, `t.jsonl:1: key is given twice (which one counts would be a guess)`},
		{"twice inside", `{"ts":1,"a":{"k":"x","k":"y"}}`, Options{Key: "a.k"}, nil, `t.jsonl:1: key is given twice (which one counts would be a guess)`},
		{"ts twice inside", `{"ts":1,"r":{"t":1,"k":"x","t":2}}`, Options{Key: "r.k", TS: "r.t"}, nil, `t.jsonl:1: ts is given twice (which one counts would be a guess)`},
		{"cost twice renamed", `{"ts":1,"key":"x","n":1,"n":2}`, Options{Cost: "n"}, nil, `t.jsonl:1: cost is given twice (which one counts would be a guess)`},
		{"renamed flat", `{"time":7,"ip":"k","n":2,"ts":"x","key":5,"cost":0}`, Options{Key: "ip", TS: "time", Cost: "n"}, reqsOf(7, "k", 2), ""},
		{"missing inside", caddy, Options{Key: "request.client_ip"},
			nil, `t.jsonl:1: missing "request.client_ip" (fields of request: "remote_ip", "remote_port", "method", "uri", "headers", "time", "weight")`},
		{"missing deeper", `{"ts":1,"a":{"b":{}}}`, Options{Key: "a.b.c"}, nil, `t.jsonl:1: missing "a.b.c" (fields of a.b: none)`},
		{"not an object on the way", `{"ts":1,"a":"b"}`, Options{Key: "a.b"}, nil, `t.jsonl:1: missing "a.b" (fields: "ts", "a")`},
		{"missing ts", `{"request":{"remote_ip":"k"}}`, Options{Key: "request.remote_ip", TS: "request.time"},
			nil, `t.jsonl:1: missing "request.time" (fields of request: "remote_ip")`},
		{"key not a string", `{"ts":1,"a":{"b":{"c":1}}}`, Options{Key: "a.b"}, nil, `t.jsonl:1: key is not a string`},
		{"bad JSON skipped inside", `{"ts":1,"a":{"b":"k","x":[1,}]}}`, Options{Key: "a.b"}, nil, `t.jsonl:1: invalid JSON: expected a value, found '}' at column 29`},
		{"bad JSON after", `{"ts":1,"a":{"b":"k"} x}`, Options{Key: "a.b"}, nil, `t.jsonl:1: invalid JSON: expected ',' or '}', found 'x' at column 23`},
		{"bad JSON inside", `{"ts":1,"a":{"b":"k",}}`, Options{Key: "a.b"}, nil, `t.jsonl:1: invalid JSON: expected a field name, found '}' at column 22`},
	}
	for _, tt := range tests {
		got, err := read(FormatJSONL, []byte(tt.in+"\n"), "t.jsonl", tt.opt)
		if errString(err) != tt.err && !(tt.err == "" && err == nil) {
			t.Errorf("%s:\n got %v\nwant %s", tt.name, err, tt.err)
			continue
		}
		diffRequests(t, got, tt.want)
	}
}

// Reading with names given goes another way through the scanner than the
// plain {"ts","key","cost"} case; renamed alike, both read every line
// alike, errors and their columns included.
func TestJSONLNamedMatchesPlain(t *testing.T) {
	lines := []string{
		`{"ts":1,"key":"a","cost":2}`, `{"cost":null,"x":{"y":[1,{"z":"w"}]},"key":"b\u00e9","ts":"1.5"}`,
		`{"ts":1,"key":"a","cost":0}`, `{"ts":1,"key":"a","cost":"2"}`, `{"ts":1,"key":"a","cost":{"a":1}}`,
		`{"ts":1,"key":"a","cost":[1,}`, `{"ts":1,"key":"a"} {}`, `{}`, `{"key":"a"}`, `{"ts":1}`, `{"ts":1e3,"key":"a"}`,
		`{"ts":1,"key":"a","cost":2,"cost":3}`, `{"ts":1,"key":{"a":"b"}}`, `{"ts":1 "key":"a"}`, `{"ts":1,"key":"\ud800"}`,
		`{"ts":1,"key":"a","cost":1`, ` { "ts" : 2 , "key" : "k" } `, `{"ts":1,"key":"a","cost":-1}`, `[1]`, `{"ts":-1,"key":"a"}`,
	}
	data := []byte(strings.Join(lines, "\n") + "\n")
	plain := readOutcome(t, FormatJSONL, data, Options{SkipBad: true})
	renamed := bytes.ReplaceAll(data, []byte(`"cost"`), []byte(`"COST"`))
	named := readOutcome(t, FormatJSONL, renamed, Options{SkipBad: true, Cost: "COST"})
	if d := diffOutcomes(named, plain); d != "" {
		t.Fatal(d)
	}
	if plain.skipped < 10 {
		t.Fatalf("only %d lines skipped", plain.skipped)
	}
}

// readOutcome reads data in format f as csvOutcomeOf tells it.
func readOutcome(t *testing.T, f Format, data []byte, opt Options) csvOutcome {
	t.Helper()
	r, err := newReader(f, data, "t", opt)
	if err != nil {
		return csvOutcome{err: "open: " + err.Error()}
	}
	defer r.Close()
	return csvOutcomeOf(r)
}

// Parquet takes the names of its ts and cost columns too.
func TestParquetNamedColumns(t *testing.T) {
	type row struct {
		Time   int64  `parquet:"time"`
		Host   string `parquet:"host"`
		Weight int32  `parquet:"weight"`
		TS     string `parquet:"ts"`
	}
	data := writeParquetRows(t, []row{{1, "a", 2, "x"}, {2, "b", 3, "y"}})
	got, err := read(FormatParquet, data, "t.parquet", Options{Key: "host", TS: "time", Cost: "weight", TSUnit: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	diffRequests(t, got, reqsOf(1e6, "a", 2, 2e6, "b", 3))
	_, err = read(FormatParquet, data, "t.parquet", Options{Key: "host", TS: "when"})
	if want := `t.parquet: no "when" column (columns: "time", "host", "weight", "ts")`; errString(err) != want {
		t.Errorf("got %v, want %s", err, want)
	}
	_, err = read(FormatParquet, data, "t.parquet", Options{Key: "host", TS: "time", Cost: "n"})
	if want := `t.parquet: no "n" column (columns: "time", "host", "weight", "ts")`; errString(err) != want {
		t.Errorf("got %v, want %s", err, want)
	}
	_, err = read(FormatParquet, data, "t.parquet", Options{Key: "host", TS: "time", Cost: "ts"})
	if want := `t.parquet: column "ts" is BYTE_ARRAY, want INT32 or INT64`; errString(err) != want {
		t.Errorf("got %v, want %s", err, want)
	}
}

// Open reads .tsv as tab-separated, tells a CSV trace from its header
// whatever its separator and column names, and a file without a header
// when its columns are given; Create writes .tsv with tabs, which reads
// back as written.
func TestOpenDelimited(t *testing.T) {
	dir := t.TempDir()
	put := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		path string
		opt  Options
		want string
	}{
		{put("a.tsv", "time\thost\n5\th,1\n"), Options{Key: "host", TS: "time"}, "5 h,1 1"},
		{put("b.tsv.gz", string(compress(t, compressGzip, []byte("ts\tkey\n5\tk\n")))), Options{}, "5 k 1"},
		{put("c.tsv", "ts,key\n5,k\n"), Options{Sep: ','}, "5 k 1"},
		{put("d.txt", "time;host\n5;k\n"), Options{Key: "host", TS: "time"}, "5 k 1"},
		{put("e", "5|k\n"), Options{Columns: []string{"ts", "key"}}, "5 k 1"},
		{put("f", "5\tx\tk\n"), Options{Columns: []string{"ts", "_", "key"}}, "5 k 1"},
		{put("g.tsv", "5\tx\tk\n"), Options{Columns: []string{"ts", "_", "key"}}, "5 k 1"},
	}
	for _, tt := range tests {
		r, err := Open(tt.path, FormatAuto, tt.opt)
		if err != nil {
			t.Errorf("%s: %v", tt.path, err)
			continue
		}
		got, err := readAll(r)
		r.Close()
		if err != nil || len(got) != 1 || strings.Join([]string{strconv.FormatInt(got[0].T, 10), string(got[0].Key), strconv.FormatInt(got[0].Cost, 10)}, " ") != tt.want {
			t.Errorf("%s: %v, %v; want %s", tt.path, got, err, tt.want)
		}
	}
	// A .tsv of commas names the columns it found.
	_, err := Open(put("h.tsv", "ts,key\n5,k\n"), FormatAuto, Options{})
	if want := `h.tsv:1: header has no "ts" column (columns: "ts,key"; give the separator with -sep)`; err == nil || !strings.HasSuffix(err.Error(), want) {
		t.Errorf("got %v, want ...%s", err, want)
	}
	// The sniffer names the columns it looked for.
	_, err = Open(put("i.txt", "when,who\n5,k\n"), FormatAuto, Options{Key: "who", TS: "time"})
	if want := `not CSV with time and who columns`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v, want ...%s...", err, want)
	}
	reqs := awkwardRequests(200)
	for _, name := range []string{"out.tsv", "out.tsv.zst"} {
		p := filepath.Join(dir, name)
		w, err := Create(p, FormatAuto)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range reqs {
			if err := w.Write(q); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		r, err := Open(p, FormatAuto, Options{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := readAll(r)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		diffRequests(t, got, reqs)
		// and with the separator told from the header, as from a stream
		raw, _ := os.ReadFile(p)
		r, err = openStream(bytes.NewReader(raw), "stdin", FormatAuto, Options{})
		if err != nil {
			t.Fatal(err)
		}
		got, err = readAll(r)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		diffRequests(t, got, reqs)
	}
	head, _ := os.ReadFile(filepath.Join(dir, "out.tsv"))
	if !bytes.HasPrefix(head, []byte("ts\tkey\tcost\n0\t")) {
		t.Errorf("a .tsv starts %q", head[:min(len(head), 20)])
	}
}

// The committed sample of a NASA-HTTP-shaped log, tab-separated with host
// and Unix-second time columns among others, reads with -key host -ts time
// to what an independent reading of the file (encoding/csv) gives, one
// record at a time and in parallel.
func TestSampleNASA(t *testing.T) {
	const path = "samples/nasa.tsv"
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cr := csv.NewReader(bytes.NewReader(raw))
	cr.Comma = '\t'
	rows, err := cr.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(rows[0], ",") != "host,logname,time,method,url,response,bytes" {
		t.Fatalf("header %q", rows[0])
	}
	var want []Request
	for _, row := range rows[1:] {
		s, err := strconv.ParseInt(row[2], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, Request{T: s * 1e9, Key: []byte(row[0]), Cost: 1})
	}
	if len(want) < 300 {
		t.Fatalf("%d records", len(want))
	}
	// Until the unit is told from the values, give it.
	opt := Options{Key: "host", TS: "time", TSUnit: time.Second}
	for _, tune := range []Options{{csvWorkers: 1}, {csvWorkers: 2, csvAfter: -1, csvChunk: 700, csvRead: 333}} {
		r, err := Open(path, FormatAuto, withTuning(opt, tune))
		if err != nil {
			t.Fatal(err)
		}
		if FormatOf(r) != FormatCSV {
			t.Errorf("format %v", FormatOf(r))
		}
		got, err := readAll(r)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		diffRequests(t, got, want)
	}
	if want[0].T != 804571209e9 || string(want[0].Key) != "192.0.2.54" || want[len(want)-1].T != 804572425e9 {
		t.Errorf("the sample changed: first %v, last %v", want[0], want[len(want)-1])
	}
}

// The committed sample of a Caddy-shaped JSON access log reads with -key
// request.remote_ip to what encoding/json makes of it, the decimal seconds
// of ts exact.
func TestSampleCaddy(t *testing.T) {
	const path = "samples/caddy.jsonl"
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var want []Request
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var rec struct {
			TS      json.Number `json:"ts"`
			Request struct {
				RemoteIP string `json:"remote_ip"`
			} `json:"request"`
		}
		d := json.NewDecoder(strings.NewReader(line))
		d.UseNumber()
		if err := d.Decode(&rec); err != nil {
			t.Fatal(err)
		}
		ns, ok := new(big.Rat).SetString(string(rec.TS))
		if !ok {
			t.Fatalf("ts %s", rec.TS)
		}
		ns.Mul(ns, big.NewRat(1e9, 1))
		if !ns.IsInt() {
			t.Fatalf("ts %s is not whole nanoseconds", rec.TS)
		}
		want = append(want, Request{T: ns.Num().Int64(), Key: []byte(rec.Request.RemoteIP), Cost: 1})
	}
	r, err := Open(path, FormatAuto, Options{Key: "request.remote_ip"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := readAll(r)
	r.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(want) < 200 {
		t.Fatalf("%d records", len(want))
	}
	diffRequests(t, got, want)
	keys := map[string]bool{}
	for _, q := range got {
		keys[string(q.Key)] = true
	}
	if len(keys) != 11 || got[0].T != 1700000000_160047000 {
		t.Errorf("the sample changed: %d keys, first %v", len(keys), got[0])
	}
}

// Reading nested fields allocates nothing per line either.
func TestJSONLNestedAllocs(t *testing.T) {
	line := `{"level":"info","ts":1700000000.5,"request":{"remote_ip":"1.2.3.4","headers":{"User-Agent":["a\"b"]},"tls":{"resumed":false}},"size":5}` + "\n"
	data := bytes.Repeat([]byte(line), 3000)
	r, err := NewJSONLReader(bytes.NewReader(data), "t", Options{Key: "request.remote_ip"})
	if err != nil {
		t.Fatal(err)
	}
	r.Scan()
	allocs := testing.AllocsPerRun(100, func() {
		for range 10 {
			if !r.Scan() {
				t.Fatal(r.Err())
			}
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per 10 lines", allocs)
	}
}
