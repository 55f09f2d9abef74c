package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"ratebench/summary"
)

const linesDir = "../../traces/testdata/lines"

// The line formats that only -format regex -pattern, -ts-format and a -sep
// of several characters read give the same figures as the same requests
// in a plain ts,key CSV.
func TestLineFormatsCompareAsPlainCSV(t *testing.T) {
	for _, tt := range []struct {
		sample, plain string
		flags         []string
		rules         string
	}{
		{"ampm.txt", "ampm.csv", []string{"-sep", " | ", "-ts", "time", "-key", "client", "-ts-format", "%d.%m.%Y %I:%M %p"}, "5/1m,20/10m"},
		{"ampm.txt", "ampm.csv", []string{"-sep", " | ", "-ts", "time", "-key", "client", "-ts-format", "02.01.2006 03:04 PM"}, "5/1m,20/10m"},
		{"ctime.txt", "ctime.csv", []string{"-format", "regex", "-pattern", `^(?P<key>\S+): (?P<ts>\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4}) \((?P<path>[^)]*)\):`,
			"-ts-format", "%a %b %e %H:%M:%S %Y"}, "3/10s,10/1m"},
	} {
		t.Run(tt.sample, func(t *testing.T) {
			dir := t.TempDir()
			args := append([]string{"compare", "-trace", filepath.Join(samplesDir, tt.sample), "-rule", tt.rules, "-report=false", "-o", filepath.Join(dir, "sample")}, tt.flags...)
			if _, stderr, err := ratebench(t, args...); err != nil {
				t.Fatalf("%v: %v\n%s", args, err, stderr)
			}
			if _, stderr, err := ratebench(t, "compare", "-trace", filepath.Join(linesDir, tt.plain), "-rule", tt.rules, "-report=false", "-o", filepath.Join(dir, "plain")); err != nil {
				t.Fatalf("plain: %v\n%s", err, stderr)
			}
			got, err := summary.ReadSummaryFile(filepath.Join(dir, "sample", "summary.json"))
			if err != nil {
				t.Fatal(err)
			}
			want, err := summary.ReadSummaryFile(filepath.Join(dir, "plain", "summary.json"))
			if err != nil {
				t.Fatal(err)
			}
			if got.Trace.Requests != 600 || got.Trace.Requests != want.Trace.Requests || got.Trace.Keys != want.Trace.Keys ||
				got.Trace.StartNS != want.Trace.StartNS || got.Trace.EndNS != want.Trace.EndNS || got.Trace.Skipped != 0 {
				t.Fatalf("trace %+v\nplain %+v", got.Trace, want.Trace)
			}
			// The summary records how the sample was read, so that a
			// command it suggests reads it alike.
			again := got.Trace.Command(summary.Program, "inspect")[1:]
			out, stderr, err := ratebench(t, again...)
			if err != nil || !strings.Contains(out, "requests   600 ") {
				t.Fatalf("the summary's own command %q: %v\n%s%s", again, err, out, stderr)
			}
			if len(got.Runs) == 0 || !reflect.DeepEqual(got.Runs, want.Runs) {
				t.Fatalf("the runs differ from the plain CSV's:\n%+v\n%+v", got.Runs, want.Runs)
			}
			refused := int64(0)
			for _, r := range want.Runs {
				if r.Algorithm == "log" {
					refused += r.Rejected
				}
			}
			if refused == 0 {
				t.Errorf("the rules %s refuse nothing: the comparison shows little", tt.rules)
			}
		})
	}
}

// A wrapped line of an access log stops the reader with a word on
// -skip-bad, which inspect takes and counts.
func TestWrappedAccessLogLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "access.log")
	good := `10.0.0.1 - - [10/Oct/2000:13:55:36 -0700] "GET /a HTTP/1.0" 200 2326` + "\n"
	wrapped := `10.0.0.2 - - [10/Oct/2000:13:55:37 -0700] "GET /b?q=` + "\n" + `x HTTP/1.0" 200 17` + "\n"
	if err := os.WriteFile(path, []byte(good+wrapped+good), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := ratebench(t, "inspect", path)
	if err == nil || err.Error() != path+`:2: "request" field not closed; if the log has wrapped or broken lines, -skip-bad skips them and counts them` {
		t.Fatalf("err = %v", err)
	}
	out, _, err := ratebench(t, "inspect", "-skip-bad", path)
	if err != nil || !strings.Contains(out, "skipped    2 bad records (-skip-bad)") || !strings.Contains(out, `line 2: "request" field not closed`) || !strings.Contains(out, "line 3: no [date] field") {
		t.Fatalf("-skip-bad: %v\n%s", err, out)
	}
}

// A pattern without its groups is refused naming them; a line it does not
// match stops the reading at its file and line, or is skipped and counted.
func TestPatternErrorsThroughCompare(t *testing.T) {
	dir := t.TempDir()
	sample := filepath.Join(samplesDir, "ctime.txt")
	_, _, err := ratebench(t, "inspect", "-format", "regex", "-pattern", `^(?P<ts>\S+)`, sample)
	if err == nil || err.Error() != `traces: -pattern "^(?P<ts>\\S+)" has no group (?P<key>...) (the key, -key)` {
		t.Errorf("no key group: %v", err)
	}
	path := filepath.Join(dir, "app.txt")
	if err := os.WriteFile(path, []byte("1700000000 a\n-- restarted --\n1700000001 b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pattern := `^(?P<ts>\d+) (?P<key>\w+)$`
	_, _, err = ratebench(t, "compare", "-pattern", pattern, "-report=false", "-o", filepath.Join(dir, "out"), path)
	if err == nil || err.Error() != path+":2: line does not match -pattern (-skip-bad skips such lines and counts them)" {
		t.Errorf("line not matched: %v", err)
	}
	out, _, err := ratebench(t, "compare", "-pattern", pattern, "-skip-bad", "-report=false", "-force", "-o", filepath.Join(dir, "out"), path)
	if err != nil || !strings.Contains(out, "skipped 1 bad records") {
		t.Fatalf("-skip-bad: %v\n%s", err, out)
	}
	s, err := summary.ReadSummaryFile(filepath.Join(dir, "out", "summary.json"))
	if err != nil || s.Trace.Format != "regex" || s.Trace.Requests != 2 || s.Trace.Skipped != 1 || s.Trace.TSUnit != "s" {
		t.Errorf("trace %+v, %v", s.Trace, err)
	}
}
