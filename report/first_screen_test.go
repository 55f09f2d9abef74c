package report

import (
	"path/filepath"
	"strings"
	"testing"

	"ratebench/summary"
)

// firstScreen is the report's Markdown up to its second level-2 heading:
// the verdict and what follows it before the detail.
func firstScreen(t *testing.T, dir string) string {
	t.Helper()
	md := string(readFile(t, filepath.Join(dir, MarkdownFile)))
	start := strings.Index(md, "## Verdict")
	if start < 0 {
		t.Fatalf("no verdict:\n%s", md)
	}
	rest := md[start+len("## Verdict"):]
	if end := strings.Index(rest, "\n## "); end >= 0 {
		rest = rest[:end]
	}
	return rest
}

// With one rule, the first screen holds the verdict and the chart in the
// log's own terms, which prints, per candidate, the share of the log's
// refusals it lets through, of its admissions it refuses and its memory
// per key, as the summary holds them.
func TestFirstScreenAnswersForOneRule(t *testing.T) {
	s := readSummary(t, "small.summary.json")
	dir := write(t, s, Options{})
	if fs := firstScreen(t, dir); !strings.Contains(fs, "plots/answer.svg") {
		t.Fatalf("the first screen has no answer chart:\n%s", fs)
	}
	svg := string(readFile(t, filepath.Join(dir, PlotsDir, "answer.svg")))
	for _, r := range s.Runs {
		if r.Rule != "5/30s" || r.Count != "accepted" || r.Mode != "independent" || r.Algorithm == "log" {
			continue
		}
		for _, want := range []string{">" + r.Algorithm + "<", ">" + shareText(r.OverOfRefused) + "<", ">" + shareText(r.UnderOfAdmitted) + "<", ">" + bytesPerKey(r.Memory.PeakPerKey) + "<"} {
			if !strings.Contains(svg, want) {
				t.Errorf("%s: the answer chart lacks %q", r.Algorithm, want)
			}
		}
	}
}

// With several rules (a sweep), the first screen's chart is a heat map:
// a column per rule, and per algorithm its shares at each.
func TestFirstScreenHeatMapForSeveralRules(t *testing.T) {
	s := readSummary(t, "sweep.summary.json")
	dir := write(t, s, Options{})
	if fs := firstScreen(t, dir); !strings.Contains(fs, "plots/answer.svg") || !strings.Contains(fs, "rule (a column)") {
		t.Fatalf("the first screen has no heat map:\n%s", fs)
	}
	svg := string(readFile(t, filepath.Join(dir, PlotsDir, "answer.svg")))
	for _, rule := range s.Config.Rules {
		if !strings.Contains(svg, ">"+rule+"<") {
			t.Errorf("the heat map has no column %s", rule)
		}
	}
	for _, r := range s.Runs {
		if r.Algorithm != "log" && r.Count == "accepted" && r.Mode == "independent" && r.OverOfRefused != nil &&
			!strings.Contains(svg, ">"+shareText(r.OverOfRefused)+"<") {
			t.Errorf("%s at %s: the heat map lacks %s", r.Algorithm, r.Rule, shareText(r.OverOfRefused))
		}
	}
}

// The caveats name a rule that hardly binds, lines skipped and a trace
// put in order, in the first screen.
func TestFirstScreenCaveats(t *testing.T) {
	s := readSummary(t, "small.summary.json")
	s.Trace.Skipped = 3
	s.Trace.Input = append(s.Trace.Input, summary.InputArg{Flag: "reorder", Value: "59s"})
	s.Bindings = []summary.Binding{{Rule: "5/30s", Count: "accepted", Requests: s.Runs[0].Requests, PeakUse: 1, UseBins: []summary.UseBin{{Use: 1, Requests: s.Runs[0].Requests}}}}
	fs := firstScreen(t, write(t, s, Options{}))
	for _, want := range []string{"Caveats.", "3 of the trace's records were skipped", "time order within 59s", "At 5/30s the exact log refuses fewer than 0.1%"} {
		if !strings.Contains(fs, want) {
			t.Errorf("the first screen lacks %q:\n%s", want, fs)
		}
	}
}
