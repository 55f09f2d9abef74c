package traces

import (
	"errors"
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

func TestRoundTripInvalidUTF8(t *testing.T) {
	reqs := []Request{{1, []byte("ok\xffkey"), 1}}
	for _, f := range allFormats {
		got, err := read(f, write(t, f, reqs), "x", Options{})
		if err != nil {
			t.Fatal(err)
		}
		want := reqs[0].Key
		if f == FormatJSONL { // documented: JSON cannot hold invalid UTF-8
			want = []byte("ok\uFFFDkey")
		}
		if string(got[0].Key) != string(want) {
			t.Errorf("%v: key %q, want %q", f, got[0].Key, want)
		}
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("a,b\n1,2\n"), 0o644)
	if _, err := Open(bad, FormatAuto, Options{}); err == nil || err.Error() != bad+`:1: header has no "ts" column` {
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
	} {
		if got, err := ParseFormat(in); err != nil || got != want {
			t.Errorf("ParseFormat(%q) = %v, %v", in, got, err)
		}
	}
	if _, err := ParseFormat("xml"); err == nil || err.Error() != `unknown trace format "xml" (want csv, parquet, jsonl or auto)` {
		t.Errorf("ParseFormat(xml) = %v", err)
	}
	for in, want := range map[string]Format{
		"a/t.csv": FormatCSV, "t.Parquet": FormatParquet, "t.pq": FormatParquet,
		"t.jsonl": FormatJSONL, "t.ndjson": FormatJSONL, "t.json": FormatJSONL,
	} {
		if got, err := FormatFromPath(in); err != nil || got != want {
			t.Errorf("FormatFromPath(%q) = %v, %v", in, got, err)
		}
	}
	_, err := FormatFromPath("dir/trace.txt")
	if want := `dir/trace.txt: cannot tell the trace format from the extension ".txt" (want .csv, .parquet, .pq, .jsonl, .ndjson or .json, or give the format)`; err == nil || err.Error() != want {
		t.Errorf("FormatFromPath(trace.txt) = %v", err)
	}
	for _, f := range []Format{FormatAuto, FormatCSV, FormatParquet, FormatJSONL} {
		if got, _ := ParseFormat(f.String()); got != f {
			t.Errorf("ParseFormat(%v.String()) = %v", f, got)
		}
	}
}

func TestParseTSUnit(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"": time.Nanosecond, "ns": time.Nanosecond, "us": time.Microsecond, "µs": time.Microsecond,
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
