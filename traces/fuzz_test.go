package traces

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
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

// fuzzUnits are the TSUnits a fuzzer picks from (0: auto).
var fuzzUnits = []time.Duration{0, time.Microsecond, time.Millisecond, time.Second}

// fuzzOptions makes the Options of a fuzz input from its mode byte: the
// low bits pick the TSUnit, bit 7 sets SkipBad and bit 6 small limits.
func fuzzOptions(mode uint8) Options {
	opt := Options{TSUnit: fuzzUnits[int(mode&0x3f)%len(fuzzUnits)], SkipBad: mode&0x80 != 0}
	if mode&0x40 != 0 {
		opt.MaxKey, opt.MaxLine = 16, 200
	}
	return opt
}

// fuzzColumns sets the options on columns of a fuzz input of format f
// from bits 2 to 5 of its mode byte. For CSV, bits 2-3 pick the separator
// (0: told from the header) and bits 4-5 the columns: a header naming ts,
// key and cost; no header, the columns given (ts,key or ts,_,key,cost); a
// header naming time, host and n. For JSON lines, bits 2-3 pick the names:
// the defaults, a key in an object, all three in objects, a dotted key.
func fuzzColumns(opt Options, f Format, mode uint8) Options {
	switch f {
	case FormatCSV:
		opt.Sep = [4]byte{0, '\t', ';', '|'}[mode>>2&3]
		switch mode >> 4 & 3 {
		case 1:
			opt.Columns = []string{"ts", "key"}
		case 2:
			opt.Columns = []string{"ts", "_", "key", "cost"}
		case 3:
			opt.TS, opt.Key, opt.Cost = "time", "host", "n"
		}
	case FormatJSONL:
		switch mode >> 2 & 3 {
		case 1:
			opt.Key = "request.remote_ip"
		case 2:
			opt.TS, opt.Key, opt.Cost = "a.ts", "a.b.key", "a.cost"
		case 3:
			opt.Key = "k.k"
		}
	}
	return opt
}

// checkSkipping reads data again with SkipBad unless opt has it, and checks
// that what is read without it is a prefix of what is read with it, and
// that the skipped records are counted.
func checkSkipping(t *testing.T, f Format, data []byte, opt Options, got []Request, err error) {
	if opt.SkipBad {
		return
	}
	opt.SkipBad = true
	r, serr := newReader(f, data, "fuzz.in", opt)
	if serr != nil {
		if err == nil || serr.Error() != err.Error() {
			t.Fatalf("opening with SkipBad: %v, without: %v", serr, err)
		}
		return
	}
	all, serr := readAll(r)
	n, first := r.(SkipCounter).Skipped()
	if len(got) > len(all) || !equalRequests(got, all[:len(got)]) {
		t.Fatalf("without SkipBad, %d requests are not a prefix of the %d with SkipBad", len(got), len(all))
	}
	if int64(len(first)) != min(n, MaxSkipExamples) {
		t.Fatalf("%d examples of %d skipped", len(first), n)
	}
	if err == nil && (n != 0 || serr != nil || len(all) != len(got)) {
		t.Fatalf("no error without SkipBad, but %d skipped, %d requests, %v with it", n, len(all), serr)
	}
	if err != nil && n > 0 && first[0].Error() != err.Error() {
		t.Fatalf("first skipped %v, but the error without SkipBad is %v", first[0], err)
	}
}

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
	again, err := read(f, buf.Bytes(), "again", Options{TSUnit: time.Nanosecond}) // what the writers write
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
	f.Add([]byte("time\thost\tn\n1\t\"a\tb\"\t2\n2\tc\n"), uint8(3<<4|1<<2))
	f.Add([]byte("host|x|time\n\"a\n\"|1|2\n"), uint8(3<<4))
	f.Add([]byte("1;a\n2;\"b;\"\"c\"\n\n"), uint8(1<<4|2<<2))
	f.Add([]byte("1\tx\ta\t2\n2\ty\tb\n"), uint8(2<<4))
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		opt := fuzzColumns(fuzzOptions(mode), FormatCSV, mode)
		got, err := checkFuzzRead(t, FormatCSV, data, opt)
		checkSkipping(t, FormatCSV, data, opt, got, err)
		rewrite(t, FormatCSV, got)
		// Read in parallel, with chunks and reads cut everywhere, it reads
		// exactly as one record at a time.
		whole := func(d []byte) io.Reader { return bytes.NewReader(d) }
		want := readCSVOutcome(data, sequential(opt), whole)
		tune := Options{csvWorkers: 2, csvChunk: 1 + len(data)%5, csvRead: 1 + int(mode)%7, csvAfter: -1}
		if par := readCSVOutcome(data, withTuning(opt, tune), whole); diffOutcomes(par, want) != "" {
			t.Fatalf("in parallel (%+v): %s", tune, diffOutcomes(par, want))
		}
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
	f.Add([]byte(`{"level":"info","ts":1700000000.123,"request":{"remote_ip":"1.2.3.4","headers":{"A":["b"]}},"status":200}`), uint8(1<<2))
	f.Add([]byte(`{"a":{"ts":1,"b":{"key":"k"},"cost":2},"a":{"b":[]}}`+"\n"+`{"a":{"b":{"key":"k"}},"a.ts":3}`), uint8(2<<2))
	f.Add([]byte(`{"ts":1,"k.k":"a"}`+"\n"+`{"ts":2,"k":{"k":"b"}}`+"\n"+`{"ts":3,"k":{"k":1}}`), uint8(3<<2))
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		opt := fuzzColumns(fuzzOptions(mode), FormatJSONL, mode)
		got, err := checkFuzzRead(t, FormatJSONL, data, opt)
		if opt.SkipBad && err != nil {
			t.Fatalf("JSON lines stopped with SkipBad: %v", err)
		}
		checkSkipping(t, FormatJSONL, data, opt, got, err)
		rewrite(t, FormatJSONL, got)
		// The names given go another way through the scanner than the
		// plain names: renamed alike, both read alike (but for the case of
		// the letters of the name where they are quoted).
		if mode>>2&3 == 0 && !bytes.Contains(data, []byte("COST")) {
			renamed := bytes.ReplaceAll(data, []byte(`"cost"`), []byte(`"COST"`))
			named := opt
			named.Cost = "COST"
			r, _ := NewJSONLReader(bytes.NewReader(data), "t", opt)
			rn, _ := NewJSONLReader(bytes.NewReader(renamed), "t", named)
			lower := func(o csvOutcome) string {
				return strings.ToLower(fmt.Sprint(o.recs, o.err, o.skipped, o.examples, o.end))
			}
			if a, b := lower(csvOutcomeOf(rn)), lower(csvOutcomeOf(r)); a != b {
				t.Fatalf("with the cost named COST:\n%s\nwant %s", a, b)
			}
		}
	})
}

func FuzzParquetReader(f *testing.F) {
	f.Add(write(f, FormatParquet, awkwardRequests(5)), uint8(0))
	f.Add(writeParquetRows(f, []pqMillis{{1700000000123, "a", 3}, {1, "b", 0}}), uint8(0))
	f.Add(writeParquetRows(f, []pqMicros{{2, []byte("a"), ptr[int64](4)}, {3, []byte("b"), nil}}), uint8(1))
	f.Add(writeParquetRows(f, []pqPlain{{5, "a"}, {-6, "b"}}), uint8(3))
	f.Add([]byte("PAR1PAR1"), uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		opt := fuzzOptions(mode)
		got, err := checkFuzzRead(t, FormatParquet, data, opt)
		checkSkipping(t, FormatParquet, data, opt, got, err)
		rewrite(t, FormatParquet, got)
	})
}

// fuzzAccessKeys are the access log keys a fuzzer picks from.
var fuzzAccessKeys = []string{"", "user", "path", "ip+path"}

// countLines returns the number of lines of data and how many of them are
// blank lines at the end, as the line readers count them.
func countLines(data []byte) (lines, trailingBlank int) {
	for i := 0; len(data) > 0; i++ {
		line := data
		if j := bytes.IndexByte(data, '\n'); j >= 0 {
			line, data = data[:j+1], data[j+1:]
		} else {
			data = nil
		}
		if i == 0 {
			line = trimBOM(line)
		}
		lines++
		if isJSONBlank(trimEOL(line)) {
			trailingBlank++
		} else {
			trailingBlank = 0
		}
	}
	return lines, trailingBlank
}

func FuzzAccessLogReader(f *testing.F) {
	for _, s := range []string{
		logCommon + "\n" + logCombined + "\n",
		sampleAccessLog,
		"h - - [10/Oct/2000:13:55:36.123456789 +1400] \"GET /a\\\"b?c HTTP/1.1\" 200 - \"-\" \"-\"\r\n\r\n",
		"h - - [32/Oct/2000:13:55:36 -0700] \"-\" 400 0\nh - - [10/Oct/2000:13:55:36 -0700]\n\x00\x00\n",
		"\xEF\xBB\xBFh - - [01/Jan/1970:00:00:00 +0000] \"GET / HTTP/1.0\" 200 0",
	} {
		f.Add([]byte(s), uint8(0))
	}
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		opt := Options{Key: fuzzAccessKeys[mode%4], SkipBad: mode&4 != 0}
		if mode&8 != 0 {
			opt.MaxLine = 100
		}
		if mode&16 != 0 {
			opt.MaxKey = 8
		}
		got, err := checkFuzzRead(t, FormatAccessLog, data, opt)
		maxKey, _, _ := opt.limits()
		for _, r := range got {
			if r.Cost != 1 || len(r.Key) > maxKey {
				t.Fatalf("bad request %+v", r)
			}
		}
		checkSkipping(t, FormatAccessLog, data, opt, got, err)
		if opt.SkipBad {
			if err != nil {
				t.Fatalf("stopped with SkipBad: %v", err)
			}
			// Every line is a request, a skipped record or a blank line at
			// the end.
			r, _ := NewAccessLogReader(bytes.NewReader(data), "fuzz.in", opt)
			all, _ := readAll(r)
			n, _ := r.Skipped()
			lines, blank := countLines(data)
			if int64(len(all))+n+int64(blank) != int64(lines) {
				t.Fatalf("%d requests + %d skipped + %d trailing blank lines != %d lines", len(all), n, blank, lines)
			}
		}
		rewrite(t, FormatCSV, got)
	})
}

// FuzzCompressedReader reads traces through gzip and zstd: compressed
// whole, cut short, or as fuzzed compressed bytes. Reading must never panic
// or hang; a whole stream must read exactly as the data uncompressed, and
// a cut one as a prefix of it, ending in an error.
func FuzzCompressedReader(f *testing.F) {
	for _, s := range []string{
		"ts,key,cost\n1,a,1\n2,b,2\n",
		`{"ts":1,"key":"a"}` + "\n" + `{"ts":-1,"key":"b"}` + "\n",
		sampleAccessLog,
		"",
		"\x1f\x8b",
	} {
		f.Add([]byte(s), uint8(0), uint16(0))
		f.Add([]byte(s), uint8(1), uint16(3))
	}
	f.Add(compress(f, compressGzip, []byte(sampleAccessLog)), uint8(2), uint16(0))
	f.Add(compress(f, compressZstd, []byte(sampleAccessLog)), uint8(3), uint16(0))
	formats := []Format{FormatAuto, FormatCSV, FormatJSONL, FormatAccessLog}
	f.Fuzz(func(t *testing.T, data []byte, mode uint8, cut uint16) {
		kind := compressGzip
		if mode&1 != 0 {
			kind = compressZstd
		}
		raw := mode&2 != 0 // data is the compressed stream
		format := formats[mode>>2%4]
		// Fuzzed frame headers must not make each input allocate 128 MiB.
		opt := Options{SkipBad: mode&16 != 0, zstdMaxWindow: 8 << 20}
		var z []byte
		if raw {
			magic := gzipMagic
			if kind == compressZstd {
				magic = zstdMagic
			}
			z = append(bytes.Clone(magic), data...)
		} else {
			z = compress(t, kind, data)
		}
		whole := cut == 0 || len(z) == 0
		if !whole {
			z = z[:len(z)-1-int(cut)%len(z)]
		}
		const name = "fuzz.gz"
		r, err := openStream(bytes.NewReader(z), name, format, opt)
		var got []Request
		if err == nil {
			got, err = readAll(r)
			r.Close()
		}
		checkRequests(t, got)
		if err != nil && !strings.HasPrefix(err.Error(), name) && !strings.HasPrefix(err.Error(), "traces:") {
			t.Fatalf("error does not name the file: %v", err)
		}
		if raw || sniffCompression(data) != compressNone { // one layer is decompressed, not two
			return
		}
		// The same data, uncompressed.
		r, perr := openStream(bytes.NewReader(data), name, format, opt)
		var plain []Request
		if perr == nil {
			plain, perr = readAll(r)
			r.Close()
		}
		if whole {
			if !equalRequests(got, plain) || errString(err) != errString(perr) {
				t.Fatalf("compressed: %d requests, %v\nplain: %d requests, %v", len(got), err, len(plain), perr)
			}
			return
		}
		if format != FormatAuto && len(z) >= len(zstdMagic) { // shorter is not recognized as compressed
			if len(got) > len(plain) || !equalRequests(got, plain[:len(got)]) {
				t.Fatalf("cut short: %d requests, not a prefix of the %d of the whole", len(got), len(plain))
			}
			if err == nil {
				t.Fatalf("cut short, no error; %d requests", len(got))
			}
		}
	})
}

// fuzzLayouts are the -ts-format layouts FuzzRegexReader picks from ("":
// the default forms).
var fuzzLayouts = []string{"", "%a %b %d %H:%M:%S %Y", "02.01.2006 03:04 PM", "%Y-%m-%dT%H:%M:%S.%f%z"}

func FuzzRegexReader(f *testing.F) {
	f.Add([]byte("in24.inetnebr.com: Tue Aug 22 00:00:01 1995 (/a): 200\nx: Tue Aug 22 00:00:01 1995 (/): 1\n"), ctimePattern, uint8(1))
	f.Add([]byte("15.02.2015 05:11 PM | 10.0.0.1 | 3\nbad\n"), `^(?P<ts>[^|]+) \| (?P<key>\S+) \| (?P<cost>\d+)$`, uint8(2|0x80))
	f.Add([]byte("1700000000.5 a\n17 b\n\n2 c\n"), `(?P<ts>\S+) (?P<key>\S*)`, uint8(0))
	f.Add([]byte("2024-02-09T10:00:00.123+0100 k 0\n"), `(?P<ts>\S+) (?P<key>\S+) ?(?P<cost>\S*)`, uint8(3|0x40))
	f.Add([]byte("a b\n"), `(?P<ts>x)?(?P<key>)`, uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, pattern string, mode uint8) {
		opt := fuzzOptions(mode)
		opt.Pattern = pattern
		if opt.TSFormat = fuzzLayouts[int(mode>>2&0xf)%len(fuzzLayouts)]; opt.TSFormat != "" {
			opt.TSUnit = 0
		}
		if _, err := NewRegexReader(bytes.NewReader(nil), "fuzz.in", opt); err != nil {
			// A pattern refused: a usage error, naming the flag, not a file.
			if !strings.HasPrefix(err.Error(), "traces: -pattern ") && !strings.HasPrefix(err.Error(), "traces: -format regex needs -pattern") {
				t.Fatalf("pattern %q refused: %v", pattern, err)
			}
			return
		}
		got, err := checkFuzzRead(t, FormatRegex, data, opt)
		checkSkipping(t, FormatRegex, data, opt, got, err)
		// What a pattern reads, CSV holds exactly.
		rewrite(t, FormatCSV, got)
	})
}
