package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ratebench/summary"
)

// The committed log samples go through compare as they are, their format
// told from the content, with the requests, keys and times they hold.
func TestLogSamplesThroughCompare(t *testing.T) {
	for _, tt := range []struct {
		file, format string
		flags        []string
		keys         int64
		start, end   string
	}{
		{"alb.log", "alb", nil, 16, "2024-02-09T10:00:02.425404Z", "2024-02-09T10:05:24.371922Z"},
		{"cloudfront.log", "cloudfront", nil, 18, "2024-02-09T10:00:02Z", "2024-02-09T10:03:34Z"},
		{"cloudfront.log", "cloudfront", []string{"-key", "cs(User-Agent)"}, 5, "2024-02-09T10:00:02Z", "2024-02-09T10:03:34Z"},
		{"iis.log", "w3c", nil, 19, "2024-02-09T10:00:02Z", "2024-02-09T10:04:33Z"},
		{"iis.log", "w3c", []string{"-format", "iis", "-key", "path"}, 14, "2024-02-09T10:00:02Z", "2024-02-09T10:04:33Z"},
		{"haproxy.log", "haproxy", nil, 16, "2024-02-09T10:00:00.783Z", "2024-02-09T10:04:42.687Z"},
		{"haproxy.log", "haproxy", []string{"-key", "capture.req.hdr(1)"}, 5, "2024-02-09T10:00:00.783Z", "2024-02-09T10:04:42.687Z"},
	} {
		dir := t.TempDir()
		args := append([]string{"compare", "-trace", filepath.Join("../../traces/samples", tt.file), "-rule", "10/1m", "-o", dir}, tt.flags...)
		if tt.file != "alb.log" {
			args = append(args, "-report=false")
		}
		out, _, err := ratebench(t, args...)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		s, err := summary.ReadSummaryFile(filepath.Join(dir, "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		start, _ := time.Parse(time.RFC3339Nano, tt.start)
		end, _ := time.Parse(time.RFC3339Nano, tt.end)
		if s.Trace.Format != tt.format || s.Trace.Requests != 300 || s.Trace.Keys != tt.keys || s.Trace.Skipped != 0 ||
			s.Trace.StartNS != start.UnixNano() || s.Trace.EndNS != end.UnixNano() {
			t.Errorf("%v: trace %+v", args, s.Trace)
		}
		if !strings.Contains(out, "300 requests") {
			t.Errorf("%v: %s", args, out)
		}
		if tt.file == "alb.log" { // the rule bites: the busiest client is refused
			checked := 0
			for _, r := range s.Runs {
				if r.Algorithm == "log" && r.Mode == "independent" {
					checked++
					if r.Admitted != 182 || r.Rejected != 118 {
						t.Errorf("alb.log: log admitted %d, rejected %d", r.Admitted, r.Rejected)
					}
				}
			}
			if checked != 1 {
				t.Errorf("alb.log: %d runs of the log, independent", checked)
			}
			if _, err := os.Stat(filepath.Join(dir, "report.html")); err != nil {
				t.Error(err)
			}
		}
	}
	// An unknown -format lists the formats.
	_, _, err := ratebench(t, "compare", "-trace", "../../traces/samples/alb.log", "-format", "elb", "-o", t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "alb, cloudfront, w3c, haproxy") {
		t.Errorf("-format elb: %v", err)
	}
}
