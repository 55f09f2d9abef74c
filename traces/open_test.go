package traces

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

var (
	zstdTestEncoder, _ = zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
	gzipTestWriters    = sync.Pool{New: func() any { return gzip.NewWriter(nil) }}
)

// compress returns data compressed with kind.
func compress(t testing.TB, kind compression, data []byte) []byte {
	t.Helper()
	switch kind {
	case compressZstd: // a shared encoder: making one costs megabytes
		return zstdTestEncoder.EncodeAll(data, nil)
	case compressGzip:
		var buf bytes.Buffer
		w := gzipTestWriters.Get().(*gzip.Writer)
		defer gzipTestWriters.Put(w)
		w.Reset(&buf)
		if _, err := w.Write(data); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	var buf bytes.Buffer
	w, err := newCompressor(kind, &buf)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// sampleAccessLog is a combined log with several zones and fractional
// seconds.
const sampleAccessLog = `10.0.0.1 - alice [10/Oct/2000:13:55:36 -0700] "GET /index.html HTTP/1.1" 200 2326 "-" "curl/8.0"
10.0.0.2 - - [10/Oct/2000:22:55:36.5 +0200] "POST /api/v1/items?id=7 HTTP/1.1" 201 17 "https://example.com/" "Mozilla/5.0 (\"quoted\")"
2001:db8::1 - bob [11/Oct/2000:02:25:36.123456789 +0530] "GET /img/a.png HTTP/2.0" 304 - "-" "-"
10.0.0.1 - alice [10/Oct/2000:20:55:37.001 +0000] "GET /index.html?x=1 HTTP/1.1" 200 2326 "-" "curl/8.0"
10.0.0.3 - - [10/Oct/2000:10:55:38 -1000] "GET / HTTP/1.0" 200 5 "-" "-"
`

// sampleRequests is sampleAccessLog's requests keyed by ip.
func sampleRequests() []Request {
	return []Request{
		{clf("10/Oct/2000:13:55:36 -0700"), []byte("10.0.0.1"), 1},
		{clf("10/Oct/2000:22:55:36.5 +0200"), []byte("10.0.0.2"), 1},
		{clf("11/Oct/2000:02:25:36.123456789 +0530"), []byte("2001:db8::1"), 1},
		{clf("10/Oct/2000:20:55:37.001 +0000"), []byte("10.0.0.1"), 1},
		{clf("10/Oct/2000:10:55:38 -1000"), []byte("10.0.0.3"), 1},
	}
}

// sampleTraces returns the same requests in every format.
func sampleTraces(t testing.TB) map[Format][]byte {
	want := sampleRequests()
	return map[Format][]byte{
		FormatCSV:       write(t, FormatCSV, want),
		FormatJSONL:     write(t, FormatJSONL, want),
		FormatParquet:   write(t, FormatParquet, want),
		FormatAccessLog: []byte(sampleAccessLog),
	}
}

func writeFile(t testing.TB, dir, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func openAll(t *testing.T, path string, f Format, opt Options) []Request {
	t.Helper()
	r, err := Open(path, f, opt)
	if err != nil {
		t.Fatal(err)
	}
	got, err := readAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	return got
}

// TestOpenSniff opens every format under names that say nothing of it (no
// extension, an unknown one, a compression extension alone), plain and
// compressed: the format comes from the content.
func TestOpenSniff(t *testing.T) {
	dir := t.TempDir()
	want := sampleRequests()
	for f, data := range sampleTraces(t) {
		for _, kind := range []compression{compressNone, compressGzip, compressZstd} {
			if f == FormatParquet && kind != compressNone {
				continue
			}
			in := data
			if kind != compressNone {
				in = compress(t, kind, data)
			}
			for _, name := range []string{"trace", "trace.1", "trace.txt", "trace.gz", "trace.zst"} {
				path := writeFile(t, dir, f.String()+"-"+kind.String()+"-"+name, in)
				t.Run(filepath.Base(path), func(t *testing.T) {
					diffRequests(t, openAll(t, path, FormatAuto, Options{}), want)
				})
			}
		}
	}
}

// TestOpenCompressedByExtension opens compressed files whose names say the
// format, and compressed files with a misleading name: the magic bytes
// decide the compression.
func TestOpenCompressedByExtension(t *testing.T) {
	dir := t.TempDir()
	want := sampleRequests()
	ext := map[Format]string{FormatCSV: ".csv", FormatJSONL: ".jsonl", FormatAccessLog: ".log"}
	for f, data := range sampleTraces(t) {
		if f == FormatParquet {
			continue
		}
		for _, kind := range []compression{compressGzip, compressZstd} {
			z := compress(t, kind, data)
			for _, name := range []string{"t" + ext[f] + ".gz", "t" + ext[f] + ".zst", "t" + ext[f] + ".zstd", "t" + ext[f]} {
				path := writeFile(t, dir, kind.String()+"-"+name, z)
				diffRequests(t, openAll(t, path, FormatAuto, Options{}), want)
				diffRequests(t, openAll(t, path, f, Options{}), want) // explicit format
			}
		}
		// An uncompressed file named .gz is read as it is.
		path := writeFile(t, dir, "plain"+ext[f]+".gz", data)
		diffRequests(t, openAll(t, path, FormatAuto, Options{}), want)
	}
}

// TestOpenStream reads every format through an io.Pipe, as from standard
// input.
func TestOpenStream(t *testing.T) {
	want := sampleRequests()
	for f, data := range sampleTraces(t) {
		for _, kind := range []compression{compressNone, compressGzip, compressZstd} {
			in := data
			if kind != compressNone {
				in = compress(t, kind, data)
			}
			for _, given := range []Format{FormatAuto, f} {
				pr, pw := io.Pipe()
				go func() {
					// Dribble the input to check that sniffing does not need it all at once.
					for i := 0; i < len(in); i += 7 {
						if _, err := pw.Write(in[i:min(i+7, len(in))]); err != nil {
							return
						}
					}
					pw.Close()
				}()
				r, err := openStream(pr, "stdin", given, Options{})
				if f == FormatParquet {
					want := "stdin: Parquet cannot be read from standard input: it needs random access; save it to a file first"
					if kind != compressNone {
						want = "stdin: a " + kind.String() + "-compressed stream cannot be read as Parquet: Parquet needs random access; decompress it to a file first"
					}
					if err == nil || err.Error() != want {
						t.Errorf("%v %v %v: %v, want %s", f, kind, given, err, want)
					}
					pr.Close()
					continue
				}
				if err != nil {
					t.Fatalf("%v %v %v: %v", f, kind, given, err)
				}
				got, err := readAll(r)
				if err != nil {
					t.Fatalf("%v %v %v: %v", f, kind, given, err)
				}
				r.Close()
				diffRequests(t, got, want)
			}
		}
	}
}

// TestOpenStdin reads "-" from a replaced os.Stdin.
func TestOpenStdin(t *testing.T) {
	path := writeFile(t, t.TempDir(), "in", compress(t, compressGzip, []byte(sampleAccessLog)))
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	old := os.Stdin
	os.Stdin = f
	defer func() { os.Stdin = old }()
	diffRequests(t, openAll(t, "-", FormatAuto, Options{}), sampleRequests())
	// A bad line is named after stdin.
	f.Seek(0, io.SeekStart)
	r, err := Open("-", FormatJSONL, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := readAll(r); err == nil || !strings.HasPrefix(err.Error(), "stdin:1: invalid JSON") {
		t.Errorf("got %v", err)
	}
}

func TestOpenSniffErrors(t *testing.T) {
	dir := t.TempDir()
	valid := write(t, FormatParquet, sampleRequests())
	tests := []struct {
		name string
		data []byte
		f    Format
		want string
	}{
		{"empty", nil, FormatAuto, "empty: empty file, cannot tell the trace format (give the format)"},
		{"blank.txt", []byte("\n\n  \n"), FormatAuto, "blank.txt: empty file, cannot tell the trace format (give the format)"},
		{"empty.gz", compress(t, compressGzip, nil), FormatAuto, "empty.gz: empty file, cannot tell the trace format (give the format)"},
		{"prose", []byte("hello world\nthis is not a trace\n"), FormatAuto,
			"prose: cannot tell the trace format: no file extension, and the content is not CSV with ts and key columns, JSON lines, Parquet, or an NCSA access, ALB, CloudFront, W3C or HAProxy log; give the format"},
		{"prose.txt", []byte("a,b\n1,2\n"), FormatAuto,
			`prose.txt: cannot tell the trace format: the extension ".txt" is unknown, and the content is not CSV with ts and key columns, JSON lines, Parquet, or an NCSA access, ALB, CloudFront, W3C or HAProxy log; give the format`},
		{"t.parquet.gz", compress(t, compressGzip, valid), FormatAuto,
			"t.parquet.gz: a gzip-compressed stream cannot be read as Parquet: Parquet needs random access; decompress it to a file first"},
		{"pq.zst", compress(t, compressZstd, valid), FormatAuto,
			"pq.zst: a zstd-compressed stream cannot be read as Parquet: Parquet needs random access; decompress it to a file first"},
		{"named.csv", compress(t, compressZstd, valid), FormatParquet,
			"named.csv: a zstd-compressed stream cannot be read as Parquet: Parquet needs random access; decompress it to a file first"},
		{"gzip-header.csv.gz", compress(t, compressGzip, []byte("ts,key\n"))[:5], FormatAuto,
			"gzip-header.csv.gz: gzip stream is truncated (unexpected end of the compressed data)"},
		{"ts-no-key", []byte("ts,user\n1,a\n"), FormatAuto, `ts-no-key:1: header has no "key" column (columns: "ts", "user")`},
	}
	for _, tt := range tests {
		path := writeFile(t, dir, tt.name, tt.data)
		_, err := Open(path, tt.f, Options{})
		if err == nil || strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), "") != tt.want {
			t.Errorf("%s: %v\nwant %s", tt.name, err, tt.want)
		}
	}
	// A stream that is not a file is sniffed without looking at its name.
	_, err := openStream(strings.NewReader("what?\n"), "stdin", FormatAuto, Options{Key: "user_id"})
	if want := "stdin: cannot tell the trace format from the content (not CSV with ts and user_id columns, JSON lines, Parquet, or an NCSA access, ALB, CloudFront, W3C or HAProxy log); give the format"; err == nil || err.Error() != want {
		t.Errorf("stream: %v", err)
	}
}

// TestOpenSniffKeyColumn sniffs a CSV trace whose key column is named by
// Options.Key.
func TestOpenSniffKeyColumn(t *testing.T) {
	in := "ts,user_id,region\n5,u1,eu\n6,u2,us\n"
	r, err := openStream(strings.NewReader(in), "stdin", FormatAuto, Options{Key: "user_id"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := readAll(r)
	if err != nil {
		t.Fatal(err)
	}
	diffRequests(t, got, []Request{{5, []byte("u1"), 1}, {6, []byte("u2"), 1}})
}

// TestOpenSniffAccessLogLater recognizes an access log whose first line is
// bad, from the lines after it.
func TestOpenSniffAccessLogLater(t *testing.T) {
	in := "garbage line\n" + sampleAccessLog
	r, err := openStream(strings.NewReader(in), "stdin", FormatAuto, Options{SkipBad: true})
	if err != nil {
		t.Fatal(err)
	}
	got, err := readAll(r)
	if err != nil {
		t.Fatal(err)
	}
	diffRequests(t, got, sampleRequests())
	if n, first := r.(SkipCounter).Skipped(); n != 1 || first[0].Error() != "stdin:1: no [date] field" {
		t.Errorf("skipped %d: %v", n, first)
	}
}

// TestTruncatedStreams cuts compressed traces at every length: reading ends
// in an error naming the file (and the line reached), never a panic, and
// everything read before is right.
func TestTruncatedStreams(t *testing.T) {
	reqs := awkwardRequests(400)
	for _, f := range []Format{FormatCSV, FormatJSONL} {
		data := write(t, f, reqs)
		for _, kind := range []compression{compressGzip, compressZstd} {
			z := compress(t, kind, data)
			step := max(1, len(z)/300)
			for n := 4; n < len(z); n += step { // shorter is not recognized as compressed
				r, err := openStream(bytes.NewReader(z[:n]), "t.gz", f, Options{})
				if err == nil {
					var got []Request
					got, err = readAll(r)
					if len(got) > len(reqs) || !equalRequests(got, reqs[:len(got)]) {
						t.Fatalf("%v %v cut at %d: wrong requests before the error", f, kind, n)
					}
				}
				if err == nil {
					t.Fatalf("%v %v cut at %d of %d: no error", f, kind, n, len(z))
				}
				msg := err.Error()
				if !strings.HasPrefix(msg, "t.gz") || !strings.Contains(msg, kind.String()+" stream") {
					t.Fatalf("%v %v cut at %d: %v", f, kind, n, err)
				}
				var se *streamError
				if n >= 10 && !errors.As(err, &se) {
					t.Fatalf("%v %v cut at %d: %T %v", f, kind, n, err, err)
				}
			}
		}
	}
	// The line reached is named.
	data := []byte(strings.Repeat(logCommon+"\n", 5000))
	z := compress(t, compressGzip, data)
	_, err := read2(openStream(bytes.NewReader(z[:len(z)/2]), "access.log.gz", FormatAuto, Options{}))
	if err == nil || !strings.HasPrefix(err.Error(), "access.log.gz:") ||
		!strings.HasSuffix(err.Error(), ": gzip stream is truncated (unexpected end of the compressed data)") {
		t.Fatalf("got %v", err)
	}
}

// read2 reads a reader just opened.
func read2(r Reader, err error) ([]Request, error) {
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return readAll(r)
}

// TestCreateCompressed writes compressed traces by file name and reads them
// back.
func TestCreateCompressed(t *testing.T) {
	dir := t.TempDir()
	want := awkwardRequests(200)
	for _, name := range []string{"t.csv.gz", "t.jsonl.zst", "t.ndjson.zstd", "t.CSV.GZ"} {
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
		raw, _ := os.ReadFile(path)
		if sniffCompression(raw) != compressionOfPath(name) {
			t.Errorf("%s: not compressed as its name says", name)
		}
		diffRequests(t, openAll(t, path, FormatAuto, Options{}), want)
	}
	for _, name := range []string{"t.parquet.gz", "t.log", "x.gz"} {
		if _, err := Create(filepath.Join(dir, name), FormatAuto); err == nil {
			t.Errorf("Create(%s) succeeded", name)
		}
	}
	if _, err := NewWriter(io.Discard, FormatAccessLog); err == nil {
		t.Error("NewWriter(FormatAccessLog) succeeded")
	}
}

// TestOpenReadersSkipCounters checks that every reader Open returns is a
// SkipCounter.
func TestOpenReadersSkipCounters(t *testing.T) {
	dir := t.TempDir()
	for f, data := range sampleTraces(t) {
		path := writeFile(t, dir, "t-"+f.String(), data)
		r, err := Open(path, FormatAuto, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := r.(SkipCounter); !ok {
			t.Errorf("%v: %T is not a SkipCounter", f, r)
		}
		r.Close()
	}
}

// A zstd frame that asks for a window above the decoder's bound is refused,
// naming the file; the bound is Options.zstdMaxWindow (128 MiB when zero).
func TestZstdWindowBound(t *testing.T) {
	data := []byte("ts,key\n1,a\n2,b\n")
	// A frame by hand: no checksum, no content size, window descriptor
	// 0x70 (2^(10+14) = 16 MiB), then the data as one raw last block.
	frame := append(bytes.Clone(zstdMagic), 0x00, 0x70)
	bh := uint32(len(data))<<3 | 1
	frame = append(frame, byte(bh), byte(bh>>8), byte(bh>>16))
	frame = append(frame, data...)
	read := func(opt Options) ([]Request, error) {
		r, err := openStream(bytes.NewReader(frame), "t.csv.zst", FormatCSV, opt)
		if err != nil {
			return nil, err
		}
		defer r.Close()
		return readAll(r)
	}
	if got, err := read(Options{}); err != nil || len(got) != 2 {
		t.Fatalf("a 16 MiB window under the default bound: %d requests, %v", len(got), err)
	}
	_, err := read(Options{zstdMaxWindow: 8 << 20})
	if err == nil || !strings.HasPrefix(err.Error(), "t.csv.zst") {
		t.Fatalf("a 16 MiB window over an 8 MiB bound: %v", err)
	}
}
