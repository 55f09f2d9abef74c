package traces

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// endless is an input that never ends: prefix, then chunk over and over (a
// stream without newlines, as /dev/zero is). It counts the bytes read, and
// fails once it has given limit of them, so that a reader that would read
// on forever fails the test instead of hanging it.
type endless struct {
	prefix, chunk []byte
	off           int
	n, limit      int64
}

var errReadTooMuch = errors.New("read the whole test limit of an endless input")

func (e *endless) Read(p []byte) (int, error) {
	if e.n >= e.limit {
		return 0, errReadTooMuch
	}
	var k int
	for k < len(p) {
		if len(e.prefix) > 0 {
			c := copy(p[k:], e.prefix)
			e.prefix = e.prefix[c:]
			k += c
			continue
		}
		c := copy(p[k:], e.chunk[e.off:])
		e.off = (e.off + c) % len(e.chunk)
		k += c
	}
	e.n += int64(k)
	return k, nil
}

// A line that never ends fails as soon as it passes -max-line, having read
// about that many bytes, whatever the text format, and names its line.
func TestEndlessLine(t *testing.T) {
	const max = 200_000
	good := map[Format]string{
		FormatCSV:       "ts,key\n1,a\n",
		FormatJSONL:     `{"ts":1,"key":"a"}` + "\n",
		FormatAccessLog: logCommon + "\n",
	}
	for f, first := range logFirstLines {
		good[f] = first
	}
	for f, prefix := range good {
		for _, fill := range []string{"x", "\x00", "ab\r"} {
			in := &endless{prefix: []byte(prefix), chunk: []byte(fill), limit: 64 << 20}
			r, err := newStreamReader(f, in, "t", Options{MaxLine: max})
			if err != nil {
				t.Fatal(err)
			}
			if !r.Scan() {
				t.Fatalf("%v: the good line: %v", f, r.Err())
			}
			line := strings.Count(prefix, "\n") + 1
			want := fmt.Sprintf("t:%d: line longer than the limit of %d bytes (-max-line)", line, max)
			if r.Scan() || r.Err() == nil || r.Err().Error() != want {
				t.Fatalf("%v, %q forever: %v\nwant %s", f, fill, r.Err(), want)
			}
			if in.n > max+2*readBufferSize {
				t.Errorf("%v: read %d bytes for a limit of %d", f, in.n, max)
			}
		}
	}

	// A CSV record with a quoted field that never closes.
	in := &endless{prefix: []byte("ts,key\n1,\"a\n"), chunk: []byte("x\n"), limit: 64 << 20}
	r, err := newStreamReader(FormatCSV, in, "t", Options{MaxLine: max})
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("t:2: record spanning lines exceeds the limit of %d bytes (-max-line)", max)
	if r.Scan() || r.Err() == nil || r.Err().Error() != want {
		t.Fatalf("endless quoted field: %v\nwant %s", r.Err(), want)
	}
	if in.n > max+2*readBufferSize {
		t.Errorf("endless quoted field: read %d bytes for a limit of %d", in.n, max)
	}

	// A CSV header that never ends.
	in = &endless{chunk: []byte("ts,"), limit: 64 << 20}
	if _, err := NewCSVReader(in, "t", Options{MaxLine: max}); err == nil ||
		err.Error() != fmt.Sprintf("t:1: line longer than the limit of %d bytes (-max-line)", max) {
		t.Fatalf("endless header: %v", err)
	}
}

// A compressed stream of zeros that never ends (gzip members or zstd
// frames, one after the other) fails as a plain one does.
func TestEndlessCompressed(t *testing.T) {
	zeros := make([]byte, 1<<20)
	for _, kind := range []compression{compressGzip, compressZstd} {
		for _, f := range []Format{FormatCSV, FormatJSONL, FormatAccessLog} {
			in := &endless{chunk: compress(t, kind, zeros), limit: 64 << 10}
			r, err := openStream(in, "stdin", f, Options{})
			if err == nil {
				r.Scan()
				err = r.Err()
			}
			want := fmt.Sprintf("stdin:1: line longer than the limit of %d bytes (-max-line)", DefaultMaxLine)
			if err == nil || err.Error() != want {
				t.Errorf("%v %v: %v\nwant %s", kind, f, err, want)
			}
		}
	}
}

// A line too long to hold, then good ones: with SkipBad the reader skips
// the rest of the long line, a CSV reader the rest of its record too.
func TestLongLineSkipped(t *testing.T) {
	const max = 70_000
	long := strings.Repeat("k", 3*readBufferSize)
	tests := []struct {
		f    Format
		in   string
		line int
	}{
		{FormatCSV, "ts,key\n1," + long + "\n2,b\n", 2},
		{FormatCSV, "ts,key\n1,\"" + long + "\nstill quoted\n\"\n2,b\n", 2},
		{FormatCSV, "ts,key\n1,\"a\n" + long + "\n\",x\n2,b\n", 2},
		{FormatJSONL, `{"ts":1,"key":"` + long + "\"}\r\n" + `{"ts":2,"key":"b"}` + "\n", 1},
		{FormatAccessLog, long + logCommon[9:] + "\n" + "b" + logCommon[9:] + "\n", 1},
	}
	for i, tt := range tests {
		got, n, msgs, err := readSkipping(t, tt.f, []byte(tt.in), Options{MaxLine: max})
		want := fmt.Sprintf("t:%d: line longer than the limit of %d bytes (-max-line)", tt.line, max)
		if tt.f == FormatCSV && strings.Contains(tt.in, "\"a\n") {
			want = fmt.Sprintf("t:%d: record spanning lines exceeds the limit of %d bytes (-max-line)", tt.line, max)
		}
		if err != nil || len(got) != 1 || string(got[0].Key) != "b" || n != 1 || msgs[0] != want {
			t.Errorf("%d %v: %d requests, %d skipped %q, %v", i, tt.f, len(got), n, msgs, err)
		}
	}
}
