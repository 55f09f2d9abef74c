package traces

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// The corpus of bad inputs in testdata/bad: one small file per failure
// case, and testdata/bad/expected.txt saying, for each, what reading it
// must give, without and with SkipBad. go test -run TestBadCorpus
// -update-bad rewrites the files (not expected.txt) from badCorpus.

var updateBad = flag.Bool("update-bad", false, "rewrite the files of testdata/bad from badCorpus")

const badDir = "testdata/bad"

// badCorpus returns the files of testdata/bad.
func badCorpus(t testing.TB) map[string][]byte {
	lines := func(ls ...string) []byte { return []byte(strings.Join(ls, "\n") + "\n") }
	logLine := func(host, user, date, req string) string {
		return fmt.Sprintf(`%s - %s [%s] "%s" 200 512 "-" "Mozilla/5.0"`, host, user, date, req)
	}
	good := logLine("10.0.0.1", "alice", "10/Oct/2000:13:55:36 -0700", "GET /index.html HTTP/1.1")
	many := func(f Format, n int) []byte {
		reqs := make([]Request, n)
		for i := range reqs {
			reqs[i] = Request{T: int64(1_700_000_000_000_000_000 + i*1000), Key: fmt.Appendf(nil, "client-%d", i%50), Cost: 1}
		}
		return write(t, f, reqs)
	}
	var manyLog bytes.Buffer
	for i := range 3000 {
		fmt.Fprintln(&manyLog, logLine(fmt.Sprintf("10.0.%d.%d", i%7, i*7919%251), "-",
			fmt.Sprintf("10/Oct/2000:13:%02d:%02d -0700", i/60%60, i%60), fmt.Sprintf("GET /p/%d HTTP/1.1", i*104729%100003)))
	}
	albWith := func(old, new string) string { return strings.Replace(logALB, old, new, 1) }
	cut := func(b []byte, frac float64) []byte { return b[:int(float64(len(b))*frac)] }
	flip := func(b []byte, at int) []byte {
		b = bytes.Clone(b)
		b[at] ^= 0x5a
		return b
	}
	validPQ := write(t, FormatParquet, []Request{{1, []byte("a"), 1}, {2, []byte("b"), 2}, {3, []byte("c"), 3}})
	costs := []pqCost{{1, "a", 1}, {2, "b", 0}, {3, "c", 1}}
	return map[string][]byte{
		// CSV
		"empty.csv":              nil,
		"header_only.csv":        lines("ts,key,cost"),
		"missing_column.csv":     lines("ts,user,cost", "1,a,1"),
		"missing_key_column.csv": lines("ts,user,cost", "1,a,1"),
		"nonnumeric_ts.csv":      lines("ts,key,cost", "1,a,1", "abc,b,1", "3,c,1"),
		"negative_ts.csv":        lines("ts,key,cost", "1,a,1", "-5,b,1", "3,c,1"),
		"overflow_ts.csv":        lines("ts,key,cost", "99999999999999999999,a,1", "2,b,1"),
		"overflow_cost.csv":      lines("ts,key,cost", "1,a,1", "2,b,9223372036854775808", "3,c,2147483648", "4,d,2147483647"),
		"cost0.csv":              lines("ts,key,cost", "1,a,1", "2,b,0", "3,c,1"),
		"nul.csv":                lines("ts,key,cost", "1,a,1", "2,b\x00,1", "\x00\x00\x00\x00", "5,e,1"),
		"nul_header.csv":         lines("ts,key\x00", "1,a"),
		"escapes_header.csv":     lines("ts,\x1b[2J\xff,cost", "1,a,1"),
		"invalid_utf8.csv":       lines("ts,key,cost", "1,a,1", "2,caf\xe9,1", "3,c,1"),
		"long_key.csv":           lines("ts,key,cost", "1,"+strings.Repeat("k", 4097)+",1", "2,b,1"),
		"long_line.csv":          lines("ts,key,cost", "1,a,1", "2,"+strings.Repeat("x", 100)+",1", "3,c,1"),
		"fields.csv":             lines("ts,key,cost", "1,a", "2,b,1,x", "3,c,1"),
		"blank_line.csv":         lines("ts,key,cost", "1,a,1", "", "", "3,c,1", "", ""),
		"unclosed_quote.csv":     lines("ts,key,cost", "1,a,1", `2,"b,1`, "3,c,1"),
		"bad_quote.csv":          lines("ts,key,cost", "1,a,1", `2,b"b,1`, `3,"c"c,1`, "4,d,1"),
		// Tab-separated, columns named or given
		"missing_time_column.tsv": lines("host\tlogname\ttimestamp", "a\t-\t1"),
		"bad_time.tsv":            lines("host\tlogname\ttime", "a\t-\t1", "b\t-\tnoon", "c\t-\t3"),
		"headerless_fields.tsv":   lines("1\ta", "2\tb\tx", "3\tc"),
		"headerless_bad.txt":      lines("1;a", "2;", "3;c"),
		// JSON lines
		"empty.jsonl":             nil,
		"missing_field.jsonl":     lines(`{"ts":1,"key":"a"}`, `{"ts":2}`, `{"key":"c"}`, `{"ts":4,"key":"d"}`),
		"missing_key_field.jsonl": lines(`{"ts":1,"user":"a"}`, `{"ts":2,"key":"b"}`),
		"nonnumeric_ts.jsonl":     lines(`{"ts":1,"key":"a"}`, `{"ts":"abc","key":"b"}`, `{"ts":true,"key":"c"}`, `{"ts":4,"key":"d"}`),
		"negative_ts.jsonl":       lines(`{"ts":-1,"key":"a"}`, `{"ts":"1969-12-31T23:59:59Z","key":"b"}`, `{"ts":3,"key":"c"}`),
		"overflow_ts.jsonl":       lines(`{"ts":1,"key":"a"}`, `{"ts":9223372036854775808,"key":"b"}`, `{"ts":1e3,"key":"c"}`),
		"cost0.jsonl":             lines(`{"ts":1,"key":"a","cost":0}`, `{"ts":2,"key":"b","cost":-1}`, `{"ts":3,"key":"c","cost":1}`),
		"nul_key.jsonl":           lines(`{"ts":1,"key":"a"}`, `{"ts":2,"key":"b\u0000"}`, `{"ts":3,"key":"c"}`),
		"nul.jsonl":               lines(`{"ts":1,"key":"a"}`, "{\"ts\":2,\"key\":\"b\x00\"}", "\x00\x00\x00", `{"ts":4,"key":"d"}`),
		"invalid_utf8.jsonl":      lines(`{"ts":1,"key":"a"}`, "{\"ts\":2,\"key\":\"\xff\xfe\"}", `{"ts":3,"key":"\ud800"}`),
		"long_key.jsonl":          lines(`{"ts":1,"key":"abcdefgh"}`, `{"ts":2,"key":"abcdefghi"}`, `{"ts":3,"key":"\u00e9\u00e9\u00e9\u00e9\u00e9"}`),
		"long_line.jsonl":         lines(`{"ts":1,"key":"a"}`, `{"ts":2,"key":"b","pad":"`+strings.Repeat("p", 100)+`"}`, `{"ts":3,"key":"c"}`),
		"nested_missing.jsonl": lines(`{"ts":1,"request":{"remote_ip":"a","uri":"/"}}`, `{"ts":2,"request":{"remote_addr":"b","uri":"/"}}`,
			`{"ts":3,"request":"c"}`, `{"ts":4,"request":{"remote_ip":"d"}}`),
		"nested_not_string.jsonl": lines(`{"ts":1,"request":{"remote_ip":"a"}}`, `{"ts":2,"request":{"remote_ip":["b"]}}`),
		"bad_json.jsonl":          lines(`{"ts":1,"key":"a"}`, `{"ts":2,"key":"b"`, `["ts",3]`, `{"ts":4,"key":"d"} trailing`, `{"ts":5,"key":"e"}`),
		// Access logs
		"empty.log":            nil,
		"no_date.log":          lines(good, good, `10.0.0.3 - - "GET / HTTP/1.1" 200 1`, good),
		"bad_date.log":         lines(good, good, good, good, good, good, logLine("10.0.0.7", "-", "32/Oct/2000:13:55:36 -0700", "GET / HTTP/1.1"), good),
		"negative_ts.log":      lines(logLine("10.0.0.1", "-", "31/Dec/1969:23:59:59 +0000", "GET / HTTP/1.1"), good),
		"overflow_ts.log":      lines(logLine("10.0.0.1", "-", "12/Apr/2262:00:00:00 +0000", "GET / HTTP/1.1"), good),
		"dash_user.log":        lines(good, logLine("10.0.0.2", "-", "10/Oct/2000:13:55:37 -0700", "GET / HTTP/1.1"), good),
		"nul.log":              lines(good, strings.Repeat("\x00", 300), good),
		"invalid_utf8.log":     lines(good, logLine("10.0.0.2", "-", "10/Oct/2000:13:55:37 -0700", "GET /caf\xe9 HTTP/1.1"), good),
		"long_line.log":        lines(good, logLine("10.0.0.2", "-", "10/Oct/2000:13:55:37 -0700", "GET /"+strings.Repeat("a", 200)+" HTTP/1.1"), good),
		"unclosed_request.log": lines(good, `10.0.0.2 - - [10/Oct/2000:13:55:37 -0700] "GET / HTTP/1.1\" 200 1`, good),
		"no_path.log":          lines(good, logLine("10.0.0.2", "-", "10/Oct/2000:13:55:37 -0700", "-"), good),
		"bad_status.log":       lines(good, `10.0.0.2 - - [10/Oct/2000:13:55:37 -0700] "GET / HTTP/1.1" OK 1`, good),
		// Load balancer, CDN and proxy logs
		"alb_bad_time.log":                lines(logALB, logALB, albWith("2018-07-02T22:23:00.186641Z", "2018-07-02T25:23:00Z"), logALB),
		"alb_no_port.log":                 lines(logALB, albWith("192.168.131.39:2817", "192.168.131.39"), logALB),
		"alb_short.log":                   lines(logALB, logALB[:100], logALB),
		"truncated_alb.log.gz":            cut(compress(t, compressGzip, bytes.Repeat([]byte(logALB+"\n"), 2000)), 0.6),
		"cloudfront_bad_date.a1b2c3d4.gz": compress(t, compressGzip, []byte(cfHeader+logCloudFront+"\n"+strings.Replace(logCloudFront, "2019-12-04", "2019-13-04", 1)+"\n"+logCloudFront+"\n")),
		"cloudfront_no_fields.log":        lines("#Version: 1.0", logCloudFront, logCloudFront),
		"cloudfront_spaces.log":           []byte(cfHeader + strings.ReplaceAll(logCloudFront, "\t", " ") + "\n" + logCloudFront + "\n"),
		"iis_short.log":                   []byte(iisHeader + logIIS + "\n2024-02-09 00:00:02 10.0.0.5 GET\n" + logIIS + "\n"),
		"iis_fields_without_c_ip.log":     []byte(iisHeader + logIIS + "\n2024-02-09 00:00:02 junk\n#Fields: date time s-ip\n2024-02-09 00:00:03 10.0.0.5\n"),
		"iis_dash_user.log":               []byte(iisHeader + strings.Replace(logIIS, `CONTOSO\alice`, "-", 1) + "\n" + logIIS + "\n"),
		"haproxy_bad_date.log":            lines(logHAProxySys, strings.Replace(logHAProxySys, "09/Feb/2024", "09/Fev/2024", 1), logHAProxySys),
		"haproxy_events.log":              lines(logHAProxySys, "Feb  9 10:22:34 lb1 haproxy[1234]: Server static/srv1 is DOWN.", logHAProxySys),
		"haproxy_no_request.log":          lines(logHAProxySys, logHAProxySys[:strings.Index(logHAProxySys, ` "GET`)], logHAProxySys),
		// Compressed streams
		"truncated.csv.gz":        cut(compress(t, compressGzip, many(FormatCSV, 3000)), 0.5),
		"truncated_header.csv.gz": compress(t, compressGzip, many(FormatCSV, 10))[:5],
		"corrupt.csv.gz":          flip(compress(t, compressGzip, many(FormatCSV, 3000)), 200),
		"truncated.jsonl.zst":     cut(compress(t, compressZstd, many(FormatJSONL, 20000)), 0.5),
		"truncated.log.gz":        cut(compress(t, compressGzip, manyLog.Bytes()), 0.6),
		"truncated.log.zst":       cut(compress(t, compressZstd, manyLog.Bytes()), 0.6),
		"bad_record.jsonl.zst":    compress(t, compressZstd, lines(`{"ts":1,"key":"a"}`, `{"ts":-2,"key":"b"}`, `{"ts":3,"key":"c"}`)),
		"compressed.parquet.gz":   compress(t, compressGzip, validPQ),
		// Format sniffing
		"empty":         nil,
		"unknown":       lines("this is not", "a trace"),
		"sniffed_bad":   lines(good, "garbage", good),
		"ts_no_key.txt": lines("ts,user", "1,a"),
		// Parquet
		"empty.parquet":          nil,
		"header_only.parquet":    write(t, FormatParquet, nil),
		"truncated.parquet":      validPQ[:len(validPQ)-20],
		"corrupt_footer.parquet": append(append(bytes.Clone(validPQ[:len(validPQ)-8]), 0xff, 0xff, 0xff, 0x7f), "PAR1"...),
		"corrupt_page.parquet":   flip(write(t, FormatParquet, awkwardRequests(50)), 100),
		"cost0.parquet":          writeParquetRows(t, costs),
		"negative_ts.parquet":    writeParquetRows(t, []pqPlain{{1, "a"}, {-5, "b"}, {3, "c"}}),
		"overflow_ts.parquet":    writeParquetRows(t, []pqMillis{{1, "a", 1}, {1 << 62, "b", 1}}),
		"null_key.parquet":       writeParquetRows(t, []pqOptional{{ptr[int64](1), ptr("a")}, {ptr[int64](2), nil}, {nil, ptr("c")}}),
		"invalid_utf8.parquet":   writeParquetRows(t, []pqPlain{{1, "a"}, {2, "\xff"}, {3, "c"}}),
		"nul_key.parquet":        writeParquetRows(t, []pqPlain{{1, "a"}, {2, "b\x00"}, {3, "c"}}),
		"unsigned_ts.parquet":    writeParquetRows(t, []pqUnsignedTS{{1, "a"}, {1 << 63, "b"}, {3, "c"}}),
		"long_key.parquet":       writeParquetRows(t, []pqPlain{{1, "abcd"}, {2, "abcde"}, {3, "c"}}),
		"missing_column.parquet": writeParquetRows(t, []pqNoTS{{1, "a"}}),
	}
}

// badCase is one file's expectations from expected.txt.
type badCase struct {
	file string
	opt  Options
	// Without SkipBad: requests read and the error ("" for none).
	read int
	err  string
	// With SkipBad.
	skipRead    int
	skipped     int64
	skipErr     string
	fileLineNum int
}

// parseExpected reads expected.txt:
//
//	FILE
//		options: key=K max-key=N max-line=N   (optional)
//		read N, error: MESSAGE                 (MESSAGE "none" for no error)
//		skipbad: read N, skipped M, error: MESSAGE
func parseExpected(t *testing.T) []badCase {
	f, err := os.Open(filepath.Join(badDir, "expected.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []badCase
	sc := bufio.NewScanner(f)
	n := 0
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("expected.txt:%d: %s", n, fmt.Sprintf(format, args...))
	}
	for sc.Scan() {
		n++
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if !strings.HasPrefix(line, "\t") {
			cases = append(cases, badCase{file: line, fileLineNum: n})
			continue
		}
		if len(cases) == 0 {
			fail("no file before %q", line)
		}
		c := &cases[len(cases)-1]
		line = strings.TrimPrefix(line, "\t")
		msg := func(s string) string {
			if s == "none" {
				return ""
			}
			return s
		}
		switch {
		case strings.HasPrefix(line, "options: "):
			for _, kv := range strings.Fields(strings.TrimPrefix(line, "options: ")) {
				k, v, _ := strings.Cut(kv, "=")
				switch k {
				case "key":
					c.opt.Key = v
				case "ts":
					c.opt.TS = v
				case "cost":
					c.opt.Cost = v
				case "sep":
					c.opt.Sep, err = ParseSep(v)
				case "columns":
					c.opt.Columns = ParseColumns(v)
				case "max-key":
					c.opt.MaxKey, err = strconv.Atoi(v)
				case "max-line":
					c.opt.MaxLine, err = strconv.Atoi(v)
				default:
					fail("unknown option %q", k)
				}
				if err != nil {
					fail("%v", err)
				}
			}
		case strings.HasPrefix(line, "read "):
			var rest string
			if _, err := fmt.Sscanf(line, "read %d,", &c.read); err != nil {
				fail("%v", err)
			}
			_, rest, _ = strings.Cut(line, ", error: ")
			c.err = msg(rest)
		case strings.HasPrefix(line, "skipbad: "):
			if _, err := fmt.Sscanf(line, "skipbad: read %d, skipped %d,", &c.skipRead, &c.skipped); err != nil {
				fail("%v", err)
			}
			_, rest, _ := strings.Cut(line, ", error: ")
			c.skipErr = msg(rest)
		default:
			fail("cannot parse %q", line)
		}
	}
	return cases
}

// openBad reads a corpus file with Open, returning the requests read, the
// error (without the directory in it) and what was skipped.
func openBad(path string, opt Options) (n int, err error, skipped int64, first []*ParseError) {
	r, err := Open(path, FormatAuto, opt)
	if err == nil {
		for r.Scan() {
			n++
		}
		err = r.Err()
		skipped, first = r.(SkipCounter).Skipped()
		r.Close()
	}
	if err != nil {
		err = errors.New(strings.ReplaceAll(err.Error(), badDir+"/", ""))
	}
	return n, err, skipped, first
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestBadCorpus(t *testing.T) {
	corpus := badCorpus(t)
	if *updateBad {
		for name, data := range corpus {
			if err := os.WriteFile(filepath.Join(badDir, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	cases := parseExpected(t)
	seen := map[string]bool{}
	for _, c := range cases {
		if seen[c.file] {
			t.Errorf("expected.txt:%d: %s twice", c.fileLineNum, c.file)
		}
		seen[c.file] = true
	}
	entries, err := os.ReadDir(badDir)
	if err != nil {
		t.Fatal(err)
	}
	var missing []string
	for _, e := range entries {
		if e.Name() != "expected.txt" && !seen[e.Name()] {
			missing = append(missing, e.Name())
		}
	}
	for name := range corpus {
		if !seen[name] {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		t.Errorf("files without expectations in expected.txt: %s", strings.Join(missing, ", "))
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			path := filepath.Join(badDir, c.file)
			if _, ok := corpus[c.file]; !ok {
				t.Fatalf("%s is not made by badCorpus", c.file)
			}
			n, err, _, _ := openBad(path, c.opt)
			if n != c.read || errString(err) != c.err {
				t.Errorf("without SkipBad: read %d, error: %v\n                       want %d, error: %s", n, err, c.read, c.err)
			}
			opt := c.opt
			opt.SkipBad = true
			sn, serr, skipped, first := openBad(path, opt)
			if sn != c.skipRead || skipped != c.skipped || errString(serr) != c.skipErr {
				t.Errorf("with SkipBad: read %d, skipped %d, error: %v\n             want %d, skipped %d, error: %s", sn, skipped, serr, c.skipRead, c.skipped, c.skipErr)
			}
			// The first record skipped is the one that stops the reader
			// without SkipBad.
			if skipped > 0 && (len(first) == 0 || strings.ReplaceAll(first[0].Error(), badDir+"/", "") != strings.TrimSuffix(c.err, brokenLineHint)) { // the hint is for a reader that does not skip
				t.Errorf("first skipped %v, want %s", first, c.err)
			}
			if int64(len(first)) != min(skipped, MaxSkipExamples) {
				t.Errorf("%d examples of %d skipped", len(first), skipped)
			}
		})
	}
}
