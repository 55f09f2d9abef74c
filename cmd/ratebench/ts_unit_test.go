package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ratebench/summary"
)

// secondsTrace writes a CSV of Unix seconds: two keys, one request each
// 10 s for a day, the way a log of seconds is.
func secondsTrace(t *testing.T) string {
	var b strings.Builder
	b.WriteString("ts,key\n")
	for i := range 8640 {
		fmt.Fprintf(&b, "%d,k%d\n", 1431857112+10*i, i%2)
	}
	path := filepath.Join(t.TempDir(), "secs.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// A CSV of Unix seconds reads right without a flag; the summary, stderr
// and the report say the unit was auto-detected.
func TestCompareSecondsAuto(t *testing.T) {
	path := secondsTrace(t)
	dir := filepath.Join(t.TempDir(), "out")
	_, stderr, err := ratebench(t, "compare", "-trace", path, "-rule", "5/5m", "-alg", "counter", "-png=false", "-o", dir)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr, "timestamps in s (auto-detected from the first timestamp; -ts-unit to override)\n") || strings.Contains(stderr, "warning") {
		t.Errorf("stderr:\n%s", stderr)
	}
	s, err := summary.ReadSummaryFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Schema != summary.SchemaV1_6 || s.Trace.TSUnit != "s" || s.Trace.TSUnitFrom != "auto" ||
		s.Trace.StartNS != 1431857112e9 || s.Trace.EndNS != (1431857112+86390)*1e9 {
		t.Errorf("summary: %s %+v", s.Schema, s.Trace)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	if !strings.Contains(string(md), "Timestamps: s (auto-detected from the first timestamp)") || strings.Contains(string(md), "Warning") {
		t.Errorf("report.md:\n%s", md)
	}
}

// An explicit unit wins: the seconds read as nanoseconds span 86 µs of
// 1970, and compare says so on stderr and in the report, with what to try.
func TestCompareWrongUnitWarns(t *testing.T) {
	path := secondsTrace(t)
	dir := filepath.Join(t.TempDir(), "out")
	_, stderr, err := ratebench(t, "compare", "-trace", path, "-ts-unit", "ns", "-alg", "counter", "-png=false", "-o", dir)
	if err != nil {
		t.Fatal(err)
	}
	warnings := []string{
		"warning: times from 1970-01-01T00:00:01.431857112Z to 1970-01-01T00:00:01.431943502Z fall before 1990: read as ns (explicit); " +
			"as s they would be 2015-05-17T10:05:12Z to 2015-05-18T10:05:02Z: try -ts-unit s\n",
		"warning: the trace spans 86.39µs, less than the 30s window of rule 5/30s, which never fills: read as ns (explicit); " +
			"as s it would span 23h59m50s: try -ts-unit s\n",
	}
	for _, want := range append(warnings, "timestamps in ns (-ts-unit)\n") {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	md, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	for _, w := range warnings {
		want := "Warning: " + strings.TrimSuffix(strings.TrimPrefix(w, "warning: "), "\n")
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	// A generated trace never warns, whatever its span.
	_, stderr, err = ratebench(t, "compare", "-gen", "poisson:requests=20,keys=2", "-rule", "5/1h", "-alg", "counter", "-report=false", "-o", filepath.Join(t.TempDir(), "g"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(stderr, "warning") || strings.Contains(stderr, "timestamps in") {
		t.Errorf("a generated trace:\n%s", stderr)
	}
}

// inspect prints the unit it detected and the warnings, for -rule.
func TestInspectUnitAndWarnings(t *testing.T) {
	path := secondsTrace(t)
	out, _, err := ratebench(t, "inspect", "-trace", path, "-rule", "5/5m")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "ts unit    s (auto-detected from the first timestamp; -ts-unit to override)\n") || strings.Contains(out, "warning") {
		t.Errorf("inspect:\n%s", out)
	}
	out, _, err = ratebench(t, "inspect", "-trace", path, "-rule", "100/2d")
	if err == nil {
		t.Errorf("-rule 100/2d accepted:\n%s", out)
	}
	out, _, err = ratebench(t, "inspect", "-trace", path, "-rule", "100/48h", "-ts-unit", "s")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"ts unit    s (-ts-unit)\n",
		"warning    the trace spans 23h59m50s, less than the 48h window of rule 100/48h, which never fills: try a shorter window (-rule)\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("inspect lacks %q:\n%s", want, out)
		}
	}
	out, _, err = ratebench(t, "inspect", "-trace", path, "-ts-unit", "ms")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "warning    times from 1970-01-17T13:44:17.112Z to 1970-01-17T13:45:43.502Z fall before 1990: read as ms (explicit); "+
		"as s they would be 2015-05-17T10:05:12Z to 2015-05-18T10:05:02Z: try -ts-unit s\n") {
		t.Errorf("inspect -ts-unit ms:\n%s", out)
	}
}

// JSON lines written by JavaScript (float seconds, whole ones without a
// fraction) read right without flags.
func TestCompareJSONFloatSeconds(t *testing.T) {
	var b strings.Builder
	for i := range 2000 {
		if i%3 == 0 {
			fmt.Fprintf(&b, `{"ts":%d,"key":"k%d"}`+"\n", 1700000000+i, i%4)
		} else {
			fmt.Fprintf(&b, `{"ts":%d.%03d,"key":"k%d"}`+"\n", 1700000000+i, 250*(i%4), i%4)
		}
	}
	path := filepath.Join(t.TempDir(), "js.jsonl")
	os.WriteFile(path, []byte(`{"ts":1699999999.5,"key":"k0"}`+"\n"+b.String()), 0o644)
	dir := filepath.Join(t.TempDir(), "out")
	_, stderr, err := ratebench(t, "compare", "-trace", path, "-alg", "counter", "-report=false", "-o", dir)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := summary.ReadSummaryFile(filepath.Join(dir, "summary.json"))
	if s == nil || s.Trace.StartNS != 1699999999_500000000 || s.Trace.EndNS != 1700001999_750000000 || s.Trace.TSUnit != "s" || strings.Contains(stderr, "warning") {
		t.Errorf("summary %+v\n%s", s.Trace, stderr)
	}
}

// An Apache log out of order by under a minute: the error says when, by
// how much and the -reorder that fixes it, which then does, and inspect
// reports the same.
func TestAccessLogOutOfOrderSaysHowToFix(t *testing.T) {
	line := func(host, at string) string {
		return host + ` - - [17/May/2015:` + at + ` +0000] "GET /x HTTP/1.1" 200 12` + "\n"
	}
	path := filepath.Join(t.TempDir(), "access.log")
	os.WriteFile(path, []byte(line("1.2.3.4", "10:05:40")+line("5.6.7.8", "10:06:10")+line("1.2.3.4", "10:05:35")), 0o644)
	dir := filepath.Join(t.TempDir(), "out")
	_, _, err := ratebench(t, "compare", "-trace", path, "-report=false", "-o", dir)
	want := path + `:3: key "1.2.3.4": time goes backwards by 5s, to 2015-05-17T10:05:35Z after 2015-05-17T10:05:40Z; ` +
		`use -reorder 35s, the most a request of the trace comes after a later one (as ratebench inspect reports it): ratebench compare -trace ` + path + ` -reorder 35s -o ` + dir + ` -report=false`
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
	_, _, err = ratebench(t, "compare", "-trace", path, "-reorder", "20s", "-report=false", "-o", dir)
	want = path + `:3: key "1.2.3.4": time goes backwards by 5s, to 2015-05-17T10:05:35Z after 2015-05-17T10:05:40Z; ` +
		`-reorder 20s is too small by 15s: use -reorder 35s, the most a request of the trace comes after a later one (as ratebench inspect reports it): ratebench compare -trace ` + path + ` -reorder 35s -o ` + dir + ` -report=false`
	if err == nil || err.Error() != want {
		t.Fatalf("-reorder 20s: err = %v\nwant %s", err, want)
	}
	if _, _, err := ratebench(t, "compare", "-trace", path, "-reorder", "35s", "-report=false", "-o", dir); err != nil {
		t.Fatalf("-reorder 35s: %v", err)
	}
	out, _, err := ratebench(t, "inspect", "-trace", path)
	if err != nil || !strings.Contains(out, "compare needs -reorder 35s") || strings.Contains(out, "ts unit") {
		t.Errorf("inspect: %v\n%s", err, out)
	}
}
