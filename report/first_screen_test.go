package report

import (
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"ratebench/internal/numfmt"
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
// a column per rule, and per algorithm (the log's row first) the share
// of requests it decides otherwise than the log at each.
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
		want := numfmt.Rate(r.DisagreeRate)
		if r.Algorithm == "log" {
			want = "exact"
		}
		if r.Count == "accepted" && r.Mode == "independent" && !strings.Contains(svg, ">"+want+"<") {
			t.Errorf("%s at %s: the heat map lacks %s", r.Algorithm, r.Rule, want)
		}
	}
}

// The first screen, with one rule or many, reads: the verdict in a
// sentence, the picture, then the details: the policy with the flags
// that change it, each rule's verdict in full, the caveats. With several
// rules the sentence names every rule's choice.
func TestFirstScreenOrder(t *testing.T) {
	for _, c := range []struct {
		name     string
		s        *summary.Summary
		sentence []string
	}{
		{"one rule", verdictSummary(verdictBase...), []string{"**Rule 5/30s**, [count accepted](#how-to-read-this-report), [independent mode](#how-to-read-this-report): Choose "}},
		{"one rule, two counts", readSummary(t, "small.summary.json"), []string{"At 5/30s, in independent mode: choose **counter** under count accepted and count all."}},
		{"a sweep", readSummary(t, "sweep.summary.json"), nil},
		{"two rules", readSummary(t, "../../results/boundary-layered/summary.json"), []string{"Under count accepted, in independent mode: choose **the exact log** at 10/1m and 2/1s+10/1m."}},
	} {
		if c.name == "a sweep" {
			m := newModel(c.s, Options{})
			for _, v := range m.verdict.Rules {
				if v.Count == "accepted" && v.Mode == "independent" && !slices.Contains(c.sentence, v.Rule) {
					c.sentence = append(c.sentence, v.Rule)
				}
			}
		}
		fs := firstScreen(t, write(t, c.s, Options{NoPNG: true}))
		lines := strings.Split(strings.TrimSpace(fs), "\n")
		for _, want := range c.sentence {
			if !strings.Contains(lines[0], want) {
				t.Errorf("%s: the first sentence %q lacks %q", c.name, lines[0], want)
			}
		}
		pic, policy := strings.Index(fs, "(plots/answer.svg)"), strings.Index(fs, ", the choice is the cheapest algorithm")
		if !(len(lines) > 2 && strings.HasPrefix(lines[2], "![") && pic > 0 && pic < policy) {
			t.Errorf("%s: want the sentence, the picture, then the policy:\n%s", c.name, fs)
		}
		if cav := strings.Index(fs, "**Caveats.**"); cav >= 0 && cav < pic {
			t.Errorf("%s: the caveats come before the picture", c.name)
		}
		if strings.Count(fs, "**Rule ") > 1 && strings.Index(fs, "**Rule ") < pic {
			t.Errorf("%s: a rule's verdict in full comes before the picture", c.name)
		}
	}
}

// The heat map's colour is logarithmic: a share of 0.007% and one of
// 0.287% are coloured apart at a glance (a linear scale made them alike),
// and 0 has a colour of its own, neither white nor any share's.
func TestHeatMapLogColours(t *testing.T) {
	s := verdictSummary("log", 48, 0, 0, "counter", 24, 7, 0, "fixed", 16, 287, 0, "token", 16, 0, 0)
	for _, r := range slices.Clone(s.Runs) {
		r.Rule = "10/1m"
		s.Runs = append(s.Runs, r)
	}
	s.Config.Rules = []string{"5/30s", "10/1m"}
	svg := string(readFile(t, filepath.Join(write(t, s, Options{NoPNG: true}), PlotsDir, "answer.svg")))
	fill := func(text string) [3]int {
		t.Helper()
		i := strings.Index(svg, ">"+text+"<")
		if i < 0 {
			t.Fatalf("no cell prints %s", text)
		}
		fills := regexp.MustCompile(`<path [^>]*style="fill:#([0-9A-Fa-f]{6})"`).FindAllStringSubmatch(svg[:i], -1) // the cell's is the last before its text
		if len(fills) == 0 {
			t.Fatalf("the cell of %s has no fill", text)
		}
		m := fills[len(fills)-1]
		v, _ := strconv.ParseUint(m[1], 16, 32)
		return [3]int{int(v >> 16), int(v >> 8 & 0xff), int(v & 0xff)}
	}
	dist := func(a, b [3]int) float64 {
		return math.Sqrt(float64((a[0]-b[0])*(a[0]-b[0]) + (a[1]-b[1])*(a[1]-b[1]) + (a[2]-b[2])*(a[2]-b[2])))
	}
	small, large, zero := fill("0.0070%"), fill("0.287%"), fill("0%")
	if d := dist(small, large); d < 60 {
		t.Errorf("0.007%% is coloured %v, 0.287%% %v: %.0f apart, want 60 or more", small, large, d)
	}
	white := [3]int{255, 255, 255}
	if dist(zero, small) < 40 || dist(zero, large) < 40 || dist(zero, white) < 40 {
		t.Errorf("0 is coloured %v, like a share (%v, %v) or white", zero, small, large)
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
