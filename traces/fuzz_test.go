package traces

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// checkFuzzRead reads data and checks what every reader promises: no
// panic, requests with T >= 0, Cost >= 1 and a key, and errors that are
// *ParseError or name the file. It returns what was read before any error.
func checkFuzzRead(t *testing.T, f Format, data []byte, opt Options) ([]Request, error) {
	const name = "fuzz.in"
	got, err := read(f, data, name, opt)
	checkRequests(t, got)
	if err != nil {
		var pe *ParseError
		if errors.As(err, &pe) {
			if pe.Pos.File != name {
				t.Fatalf("ParseError for file %q", pe.Pos.File)
			}
		} else if !strings.Contains(err.Error(), name) {
			t.Fatalf("error does not name the file: %v", err)
		}
	}
	return got, err
}

// fuzzUnits are the TSUnits a fuzzer picks from.
var fuzzUnits = []time.Duration{0, time.Microsecond, time.Millisecond, time.Second}

// rewrite writes reqs in format f and reads them back: whatever a reader
// accepts, the writer must write so that it reads back the same.
func rewrite(t *testing.T, f Format, reqs []Request) {
	if len(reqs) == 0 {
		return
	}
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, f)
	for _, r := range reqs {
		if err := w.Write(r); err != nil {
			t.Fatalf("Write(%+v): %v", r, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := read(f, buf.Bytes(), "again", Options{})
	if err != nil {
		t.Fatalf("reading back what was written: %v\n%q", err, buf.Bytes())
	}
	if !equalRequests(again, reqs) {
		t.Fatalf("round trip changed the requests:\n got %v\nwant %v", again, reqs)
	}
}

func FuzzCSVReader(f *testing.F) {
	for _, s := range []string{
		"ts,key,cost\n1,a,1\n2,b,2\n",
		"\xEF\xBB\xBFcost,key,x,ts\r\n3,\"a,\"\"b\"\"\nc\",,1.5\r\n",
		"ts,key\n2024-01-02T03:04:05.123+01:00,k\n1700000000.123456789,j\n",
		"ts,key\n1,a\n\n",
		"ts,key\n1,\"unterminated\n",
		"ts,key,cost\n99999999999999999999,a,0\n",
	} {
		f.Add([]byte(s), uint8(0))
	}
	f.Fuzz(func(t *testing.T, data []byte, unit uint8) {
		opt := Options{TSUnit: fuzzUnits[int(unit)%len(fuzzUnits)]}
		got, _ := checkFuzzRead(t, FormatCSV, data, opt)
		rewrite(t, FormatCSV, got)
	})
}

func FuzzJSONLReader(f *testing.F) {
	for _, s := range []string{
		`{"ts":1,"key":"a","cost":2}` + "\n" + `{"ts":2,"key":"b"}`,
		`{"x":[{"y":null},true,-1.5e3],"ts":"2024-01-02T03:04:05Z","key":"\ud83d\ude80\n","cost":null}`,
		`{"ts":1.000000001,"key":"q\"\\\/\b\f\r\t\u0000"}` + "\r\n\r\n",
		`{"ts":1e9,"key":"a"}`,
		`{"ts":1,"key":"a"` + "\n",
	} {
		f.Add([]byte(s), uint8(0))
	}
	f.Fuzz(func(t *testing.T, data []byte, unit uint8) {
		opt := Options{TSUnit: fuzzUnits[int(unit)%len(fuzzUnits)]}
		got, _ := checkFuzzRead(t, FormatJSONL, data, opt)
		valid := got[:0:0]
		for _, r := range got {
			if utf8.Valid(r.Key) { // the writer replaces invalid UTF-8
				valid = append(valid, r)
			}
		}
		rewrite(t, FormatJSONL, valid)
	})
}

func FuzzParquetReader(f *testing.F) {
	f.Add(write(f, FormatParquet, awkwardRequests(5)), uint8(0))
	f.Add(writeParquetRows(f, []pqMillis{{1700000000123, "a", 3}, {1, "b", 0}}), uint8(0))
	f.Add(writeParquetRows(f, []pqMicros{{2, []byte("a"), ptr[int64](4)}, {3, []byte("b"), nil}}), uint8(1))
	f.Add(writeParquetRows(f, []pqPlain{{5, "a"}, {-6, "b"}}), uint8(3))
	f.Add([]byte("PAR1PAR1"), uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, unit uint8) {
		opt := Options{TSUnit: fuzzUnits[int(unit)%len(fuzzUnits)]}
		got, _ := checkFuzzRead(t, FormatParquet, data, opt)
		rewrite(t, FormatParquet, got)
	})
}
