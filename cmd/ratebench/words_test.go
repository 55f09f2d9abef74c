package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// internalRef matches what only the project's own notes know: a source
// document's number ("seed 000"), the specification ("SPEC", "SPEC 3.2",
// "§3"), the test vectors, an issue.
var internalRef = regexp.MustCompile(`(?i)seed ?\d{3}|seeds'|seed documents?|the seeds? (predicts|recommends|says)|spec ?§|spec \d|spec\.md|\(\d\.\d+\)|vectors|issue \d|(?-i:\bSPEC\b)`)

// What a user reads (the terminal, the report, the summary's field names,
// the help texts) names no internal reference, and says which memory
// figure is the mean per key and which the peak.
func TestUserTextNamesNoInternalReference(t *testing.T) {
	dir := t.TempDir()
	stdout, stderr, err := ratebench(t, "compare", "-trace", "testdata/small.csv", "-rule", "5/30s", "-o", dir)
	if err != nil {
		t.Fatal(err)
	}
	texts := map[string]string{"stdout": stdout, "stderr": stderr}
	for _, f := range []string{"summary.json", "report.md", "report.html"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		texts[f] = string(b)
	}
	pdir := t.TempDir() // the products, their analysis against their twins, a refusal cache
	pout, perr, err := ratebench(t, "compare", "-trace", "testdata/small.csv", "-rule", "10/1m", "-alg", "log,nginx,upstash,juju,counter:block", "-o", pdir)
	if err != nil {
		t.Fatal(err)
	}
	texts["products stdout"], texts["products stderr"] = pout, perr
	for _, f := range []string{"summary.json", "report.md"} {
		b, err := os.ReadFile(filepath.Join(pdir, f))
		if err != nil {
			t.Fatal(err)
		}
		texts["products "+f] = string(b)
	}
	if !strings.Contains(texts["products report.md"], "Products against their textbook twins") {
		t.Error("the products' report has no section against their twins")
	}
	for _, cmd := range [][]string{{"-h"}, {"compare", "-h"}, {"live", "-h"}, {"live", "redis:log", "-h"}, {"live", "nginx", "-h"}, {"cloudflare", "-h"}, {"explain", "-h"}} {
		o, e, _ := ratebench(t, cmd...)
		texts[strings.Join(cmd, " ")] = o + e
	}
	for name, text := range texts {
		if m := internalRef.FindString(text); m != "" {
			t.Errorf("%s says %q", name, m)
		}
	}
	if !strings.Contains(stdout, "bytes/key (peak)  bytes/key (mean)") || !strings.Contains(stdout, "the most one key held (peak), which the verdict ranks by") {
		t.Errorf("the terminal table does not give the peak bytes per key the verdict quotes beside the mean:\n%s", stdout)
	}
	if md := texts["report.md"]; !strings.Contains(md, "| per key: peak | per key: mean of peaks | all keys: peak total |") || !strings.Contains(md, "bytes/key (peak)") {
		t.Error("the report's tables do not say which memory figure is the peak and which the mean")
	}
	if !strings.Contains(texts["summary.json"], `"token_bound": {`) {
		t.Error("summary.json has no token_bound")
	}
}

// internalRef catches the internal references in any wording, and not the
// words users are shown on purpose (a generator's seed, an algorithm spec).
func TestInternalRefPattern(t *testing.T) {
	for _, s := range []string{"SPEC 3.2", "see SPEC", "spec §4", "Spec 5", "SPEC.md", "seed 000", "seed 002's bound", "Seed 001", "seed002", "the seeds' examples", "the seed documents", "the seed predicts", "seed-vectors.json", "test vectors", "(3.9)", "issue 24"} {
		if !internalRef.MatchString(s) {
			t.Errorf("%q is not caught", s)
		}
	}
	for _, s := range []string{"-seed 1", "random seed", "seed=42", "the algorithm spec", "-gen SCENARIO", "specs: log,counter", "inspect", "0.1%"} {
		if m := internalRef.FindString(s); m != "" {
			t.Errorf("%q is caught (%q)", s, m)
		}
	}
}
