package main

import (
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ratebench/summary"
)

const badDir = "../../traces/testdata/bad"

// A bad record stops compare with file:line and what is wrong; under
// -skip-bad it is skipped, counted in summary.json and listed there.
func TestBadInputThroughCompare(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(badDir, "nonnumeric_ts.csv")
	_, _, err := ratebench(t, "compare", "-trace", path, "-report=false", "-o", dir)
	want := path + `:3: ts "abc" is not a number, decimal seconds or RFC 3339 time`
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
	out, _, err := ratebench(t, "compare", "-trace", path, "-skip-bad", "-report=false", "-o", dir)
	if err != nil || !strings.Contains(out, "skipped 1 bad records") {
		t.Fatalf("-skip-bad: %v\n%s", err, out)
	}
	s, err := summary.ReadSummaryFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Trace.Requests != 2 || s.Trace.Skipped != 1 || len(s.Trace.SkippedExamples) != 1 ||
		s.Trace.SkippedExamples[0] != (summary.SkipExample{Line: 3, Reason: `ts "abc" is not a number, decimal seconds or RFC 3339 time`}) {
		t.Errorf("trace %+v", s.Trace)
	}
	// An access log keyed on the path, with one key that is not UTF-8.
	path = filepath.Join(badDir, "invalid_utf8.log")
	if _, _, err := ratebench(t, "compare", "-trace", path, "-key", "path", "-report=false", "-force", "-o", dir); err == nil ||
		err.Error() != path+":2: key is not valid UTF-8" {
		t.Errorf("invalid UTF-8 key: %v", err)
	}
}

// A gzip-compressed combined access log, named without its format, is read
// by content: keys by ip by default, by path with -key.
func TestAccessLogGzip(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "access")
	f, _ := os.Create(path)
	zw := gzip.NewWriter(f)
	start := time.Date(1995, 7, 1, 0, 0, 1, 0, time.FixedZone("", -4*3600))
	for i := range 300 {
		ts := start.Add(time.Duration(i) * 700 * time.Millisecond).Format("02/Jan/2006:15:04:05 -0700")
		fmt.Fprintf(zw, "10.0.0.%d - - [%s] \"GET /p%d?q=1 HTTP/1.0\" 200 %d \"-\" \"agent\"\n", i%7, ts, i%3, 100+i)
	}
	zw.Close()
	f.Close()
	out, _, err := ratebench(t, "compare", "-trace", path, "-rule", "3/10s", "-alg", "counter,fixed", "-report=false", "-o", filepath.Join(dir, "ip"))
	if err != nil {
		t.Fatal(err)
	}
	s, _ := summary.ReadSummaryFile(filepath.Join(dir, "ip", "summary.json"))
	if s == nil || s.Trace.Format != "accesslog" || s.Trace.Requests != 300 || s.Trace.Keys != 7 || s.Trace.StartNS != start.UnixNano() {
		t.Fatalf("trace %+v\n%s", s, out)
	}
	if _, _, err := ratebench(t, "compare", "-trace", path, "-key", "path", "-report=false", "-o", filepath.Join(dir, "path")); err != nil {
		t.Fatal(err)
	}
	s, _ = summary.ReadSummaryFile(filepath.Join(dir, "path", "summary.json"))
	if s == nil || s.Trace.Keys != 3 {
		t.Errorf("keyed by path: %+v", s)
	}
}

// -reorder sorts requests that arrive out of order within the window; it
// asks no more than a replay without it (time order within a key), and a
// key going back by more than the window is the replay's error, with its
// line.
func TestReorder(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.csv")
	os.WriteFile(path, []byte("ts,key\n1000,a\n3000,a\n2000,a\n9000,b\n4000,a\n"), 0o644)
	if _, _, err := ratebench(t, "compare", "-trace", path, "-report=false", "-o", dir); err == nil || !strings.Contains(err.Error(), "t.csv:4: key \"a\": time goes backwards") {
		t.Fatalf("without -reorder: %v", err)
	}
	if _, _, err := ratebench(t, "compare", "-trace", path, "-reorder", "1500ns", "-report=false", "-o", dir); err != nil {
		t.Fatalf("-reorder 1500ns: %v", err)
	}
	// Out of order across keys, by more than the window: what passes
	// without -reorder passes with it.
	late := filepath.Join(dir, "late.csv")
	os.WriteFile(late, []byte("ts,key\n1000,a\n5000,b\n9000,c\n2000,a\n"), 0o644)
	for _, flags := range [][]string{nil, {"-reorder", "1500ns"}} {
		args := append([]string{"compare", "-trace", late, "-report=false", "-force", "-o", dir}, flags...)
		if _, _, err := ratebench(t, args...); err != nil {
			t.Fatalf("late.csv %v: %v", flags, err)
		}
		if s, _ := summary.ReadSummaryFile(filepath.Join(dir, "summary.json")); s == nil || s.Trace.Requests != 4 || s.Trace.Skipped != 0 {
			t.Fatalf("late.csv %v: %+v", flags, s)
		}
	}
	back := filepath.Join(dir, "back.csv")
	os.WriteFile(back, []byte("ts,key\n1000,a\n5000,a\n9000,c\n2000,a\n"), 0o644)
	_, _, err := ratebench(t, "compare", "-trace", back, "-reorder", "1500ns", "-report=false", "-force", "-o", dir)
	if err == nil || !strings.HasSuffix(err.Error(), `back.csv:5: key "a": time goes backwards by 3µs, to 1970-01-01T00:00:00.000002Z after 1970-01-01T00:00:00.000005Z; `+
		`-reorder 1.5us is too small by 5.5us: use -reorder 7us, the most a request of the trace comes after a later one (as ratebench inspect reports it): `+
		`ratebench compare -trace `+back+` -reorder 7us -force=true -o `+dir+` -report=false`) {
		t.Fatalf("-reorder 1500ns on back.csv: %v", err)
	}
}
