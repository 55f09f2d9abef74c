package report

import (
	"path/filepath"
	"strings"
	"testing"
)

// A summary of a trace that held no requests gets no verdict: neither the
// report nor the terminal's verdict chooses an algorithm, and both say the
// trace held none.
func TestEmptyTraceChoosesNothing(t *testing.T) {
	s := readSummary(t, "small.summary.json")
	s.Trace.Requests, s.Trace.Keys = 0, 0
	for i := range s.Runs {
		r := &s.Runs[i]
		r.Requests, r.Admitted, r.Keys = 0, 0, 0
		r.Over, r.Under, r.Disagree, r.KeysOver, r.KeysUnder, r.KeysDisagree = 0, 0, 0, 0, 0, 0
		r.OverRate, r.UnderRate, r.DisagreeRate = 0, 0, 0
		r.TopKeys = nil
	}
	verdict := Verdict(s, Options{})
	md := string(readFile(t, filepath.Join(write(t, s, Options{NoPNG: true}), MarkdownFile)))
	for name, text := range map[string]string{"the verdict": verdict, "report.md": md} {
		for _, chosen := range []string{"Choose ", "Cheapest", "Frontier", "within 0.1% of the log's decisions:"} {
			if strings.Contains(text, chosen) {
				t.Errorf("%s of an empty trace holds %q:\n%s", name, chosen, text)
			}
		}
		if !strings.Contains(text, "The trace held no requests") {
			t.Errorf("%s does not say the trace held no requests:\n%s", name, text)
		}
	}
}
