package traces

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var allFormats = []Format{FormatCSV, FormatJSONL, FormatParquet}

// TestRoundTrip writes awkward requests in each format, reads them back,
// writes what was read in every format and reads that back: every
// writer×reader pair must preserve the requests exactly.
func TestRoundTrip(t *testing.T) {
	want := awkwardRequests(3000)
	for _, src := range allFormats {
		got, err := read(src, write(t, src, want), "src", Options{})
		if err != nil {
			t.Fatalf("%v: %v", src, err)
		}
		diffRequests(t, got, want)
		for _, dst := range allFormats {
			t.Run(src.String()+"→"+dst.String(), func(t *testing.T) {
				again, err := read(dst, write(t, dst, got), "dst", Options{})
				if err != nil {
					t.Fatal(err)
				}
				diffRequests(t, again, want)
			})
		}
	}
}

// TestRoundTripFiles goes through Create and Open with FormatAuto.
func TestRoundTripFiles(t *testing.T) {
	want := awkwardRequests(100)
	dir := t.TempDir()
	for _, name := range []string{"t.csv", "t.jsonl", "t.ndjson", "t.json", "t.parquet", "t.pq", "T.CSV"} {
		path := filepath.Join(dir, name)
		w, err := Create(path, FormatAuto)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range want {
			if err := w.Write(r); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		r, err := Open(path, FormatAuto, Options{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := readAll(r)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
		diffRequests(t, got, want)
	}
}

// TestInvalidUTF8 checks that no writer writes a key that is not valid
// UTF-8, and that every reader rejects one.
func TestInvalidUTF8(t *testing.T) {
	bad := Request{1, []byte("ok\xffkey"), 1}
	for _, f := range allFormats {
		w, _ := NewWriter(new(bytes.Buffer), f)
		if err := w.Write(bad); err == nil || err.Error() != "traces: cannot write request with a key that is not valid UTF-8" {
			t.Errorf("%v: Write = %v", f, err)
		}
	}
	in := map[Format][]byte{
		FormatCSV:       []byte("ts,key\n1,ok\xffkey\n"),
		FormatJSONL:     []byte("{\"ts\":1,\"key\":\"ok\xffkey\"}\n"),
		FormatParquet:   writeParquetRows(t, []pqPlain{{1, "ok\xffkey"}}),
		FormatAccessLog: []byte("ok\xffkey - - [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.0\" 200 1\n"),
	}
	for f, data := range in {
		_, err := read(f, data, "x", Options{})
		want := "x:1: key is not valid UTF-8"
		switch f {
		case FormatCSV:
			want = "x:2: key is not valid UTF-8"
		case FormatParquet:
			want = "x: row 1: key is not valid UTF-8"
		}
		if err == nil || err.Error() != want {
			t.Errorf("%v: %v, want %s", f, err, want)
		}
	}
}

// TestNULKey checks that a key holding a NUL byte is refused by every
// reader, however the format writes it (raw in CSV, \u0000 in JSON lines,
// a byte of a Parquet BYTE_ARRAY), and by every writer.
func TestNULKey(t *testing.T) {
	for _, f := range allFormats {
		w, _ := NewWriter(new(bytes.Buffer), f)
		if err := w.Write(Request{1, []byte("a\x00b"), 1}); err == nil || err.Error() != "traces: cannot write request with a key holding a NUL byte" {
			t.Errorf("%v: Write = %v", f, err)
		}
	}
	for f, c := range map[Format]struct {
		data []byte
		want string
	}{
		FormatCSV:       {[]byte("ts,key\n1,a\x00b\n"), "x:2: NUL byte"},
		FormatJSONL:     {[]byte(`{"ts":1,"key":"a\u0000b"}` + "\n"), "x:1: key holds a NUL byte"},
		FormatParquet:   {writeParquetRows(t, []pqPlain{{1, "a\x00b"}}), "x: row 1: key holds a NUL byte"},
		FormatAccessLog: {[]byte("a\x00b - - [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.0\" 200 1\n"), "x:1: NUL byte"},
	} {
		if _, err := read(f, c.data, "x", Options{}); err == nil || err.Error() != c.want {
			t.Errorf("%v: %v, want %s", f, err, c.want)
		}
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("a,b\n1,2\n"), 0o644)
	if _, err := Open(bad, FormatAuto, Options{}); err == nil || err.Error() != bad+`:1: header has no "ts" column (columns: "a", "b")` {
		t.Errorf("Open(bad.csv) = %v", err)
	}
	if _, err := Open(filepath.Join(dir, "missing.csv"), FormatAuto, Options{}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Open(missing) = %v", err)
	}
	if _, err := Open(filepath.Join(dir, "x.txt"), FormatAuto, Options{}); err == nil || !strings.Contains(err.Error(), "x.txt") {
		t.Errorf("Open(x.txt) = %v", err)
	}
	if _, err := Open(bad, FormatCSV, Options{TSUnit: -time.Second}); err == nil {
		t.Error("negative TSUnit accepted")
	}
	// An explicit format overrides the extension.
	data := filepath.Join(dir, "data.txt")
	os.WriteFile(data, []byte(`{"ts":1,"key":"a"}`), 0o644)
	r, err := Open(data, FormatJSONL, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := readAll(r)
	r.Close()
	if err != nil || len(got) != 1 {
		t.Fatal(got, err)
	}
	if _, err := Create(filepath.Join(dir, "out"), FormatAuto); err == nil {
		t.Error("Create without extension succeeded")
	}
}

func TestParseFormat(t *testing.T) {
	for in, want := range map[string]Format{
		"": FormatAuto, "auto": FormatAuto, "csv": FormatCSV, "CSV": FormatCSV, "parquet": FormatParquet,
		"jsonl": FormatJSONL, "ndjson": FormatJSONL, "json": FormatJSONL,
		"accesslog": FormatAccessLog, "clf": FormatAccessLog, "Combined": FormatAccessLog, "common": FormatAccessLog,
	} {
		if got, err := ParseFormat(in); err != nil || got != want {
			t.Errorf("ParseFormat(%q) = %v, %v", in, got, err)
		}
	}
	if _, err := ParseFormat("xml"); err == nil || err.Error() != `unknown trace format "xml" (want csv, parquet, jsonl, accesslog, alb, cloudfront, w3c, haproxy, regex, dataset or auto)` {
		t.Errorf("ParseFormat(xml) = %v", err)
	}
	for in, want := range map[string]Format{
		"a/t.csv": FormatCSV, "t.Parquet": FormatParquet, "t.pq": FormatParquet,
		"t.jsonl": FormatJSONL, "t.ndjson": FormatJSONL, "t.json": FormatJSONL,
		"access.log": FormatAccessLog, "access.log.gz": FormatAccessLog, "t.csv.ZST": FormatCSV,
		"t.jsonl.zstd": FormatJSONL, "t.parquet.gz": FormatParquet,
	} {
		if got, err := FormatFromPath(in); err != nil || got != want {
			t.Errorf("FormatFromPath(%q) = %v, %v", in, got, err)
		}
	}
	_, err := FormatFromPath("dir/trace.txt")
	if want := `dir/trace.txt: cannot tell the trace format from the extension ".txt" (want .csv, .tsv, .parquet, .pq, .jsonl, .ndjson, .json or .log, or give the format)`; err == nil || err.Error() != want {
		t.Errorf("FormatFromPath(trace.txt) = %v", err)
	}
	for _, f := range []Format{FormatAuto, FormatCSV, FormatParquet, FormatJSONL, FormatAccessLog} {
		if got, _ := ParseFormat(f.String()); got != f {
			t.Errorf("ParseFormat(%v.String()) = %v", f, got)
		}
	}
}

func TestParseTSUnit(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"": 0, "auto": 0, "ns": time.Nanosecond, "us": time.Microsecond, "µs": time.Microsecond,
		"ms": time.Millisecond, "s": time.Second,
	} {
		if got, err := ParseTSUnit(in); err != nil || got != want {
			t.Errorf("ParseTSUnit(%q) = %v, %v", in, got, err)
		}
	}
	if _, err := ParseTSUnit("h"); err == nil {
		t.Error("ParseTSUnit(h) succeeded")
	}
}

func TestPositionString(t *testing.T) {
	for _, tt := range []struct {
		p    Position
		want string
	}{
		{Position{File: "a.csv", Line: 3}, "a.csv:3"},
		{Position{File: "a.parquet", Row: 12}, "a.parquet: row 12"},
		{Position{File: "a.csv"}, "a.csv"},
	} {
		if got := tt.p.String(); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.p, got, tt.want)
		}
	}
}

func TestWriterCloseTwice(t *testing.T) {
	for _, f := range allFormats {
		w, _ := NewWriter(new(strings.Builder), f)
		if err := w.Write(Request{1, []byte("a"), 1}); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Errorf("%v: second Close: %v", f, err)
		}
		if err := w.Write(Request{1, []byte("a"), 1}); err == nil {
			t.Errorf("%v: Write after Close succeeded", f)
		}
	}
}

// TestRoundTripAccessLog converts a combined access log (several zones,
// some fractional seconds) to Parquet, the Parquet to CSV, through files,
// and checks that the CSV holds the requests of the log, as the time
// package reads its dates.
func TestRoundTripAccessLog(t *testing.T) {
	zones := []string{"-0700", "+0000", "+0530", "-1000", "+1400", "+0100"}
	var log strings.Builder
	var want [][3]string // date, ip, path
	for i := range 2000 {
		date := fmt.Sprintf("%02d/%s/20%02d:%02d:%02d:%02d", 1+i%28, monthNames[i%12], 10+i%15, i%24, (i*7)%60, (i*13)%60)
		switch i % 5 {
		case 1:
			date += fmt.Sprintf(".%03d", i%1000)
		case 3:
			date += fmt.Sprintf(".%09d", i*7919%1000000000)
		}
		date += " " + zones[i%len(zones)]
		ip := fmt.Sprintf("10.%d.%d.%d", i%3, i%5, i%7)
		path := fmt.Sprintf("/p/%d", i%11)
		fmt.Fprintf(&log, "%s - - [%s] \"GET %s?q=%d HTTP/1.1\" 200 %d \"https://ref/\" \"agent \\\"x\\\" %d\"\n", ip, date, path, i, i, i)
		want = append(want, [3]string{date, ip, path})
	}
	dir := t.TempDir()
	src := writeFile(t, dir, "access.log.gz", compress(t, compressGzip, []byte(log.String())))
	for _, key := range []string{"ip", "path", "ip+path"} {
		convert := func(from, to string, opt Options) {
			r, err := Open(from, FormatAuto, opt)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			w, err := Create(to, FormatAuto)
			if err != nil {
				t.Fatal(err)
			}
			for r.Scan() {
				if err := w.Write(r.Request()); err != nil {
					t.Fatal(err)
				}
			}
			if err := r.Err(); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
		}
		pq, csv := filepath.Join(dir, key+".parquet"), filepath.Join(dir, key+".csv")
		convert(src, pq, Options{Key: key})
		convert(pq, csv, Options{})
		got := openAll(t, csv, FormatAuto, Options{})
		var exp []Request
		for _, w := range want {
			k := map[string]string{"ip": w[1], "path": w[2], "ip+path": w[1] + " " + w[2]}[key]
			exp = append(exp, Request{clf(w[0]), []byte(k), 1})
		}
		diffRequests(t, got, exp)
		// And the log read directly is the same.
		diffRequests(t, openAll(t, src, FormatAuto, Options{Key: key}), exp)
	}
}
