package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// internalRef matches what only the project's own notes know: a seed's
// number, a section of the specification, the test vectors, an issue.
var internalRef = regexp.MustCompile(`(?i)seed ?0\d\d|seed002|seeds'|the seed predicts|spec ?§|spec \d|\(\d\.\d+\)|vectors|issue \d`)

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
	for _, cmd := range [][]string{{"-h"}, {"compare", "-h"}, {"redis", "-h"}, {"live", "nginx", "-h"}, {"cloudflare", "-h"}, {"explain", "-h"}} {
		o, e, _ := ratebench(t, cmd...)
		texts[strings.Join(cmd, " ")] = o + e
	}
	for name, text := range texts {
		if m := internalRef.FindString(text); m != "" {
			t.Errorf("%s says %q", name, m)
		}
	}
	if !strings.Contains(stdout, "bytes/key (mean)") || !strings.Contains(stdout, "the report ranks by the peak") {
		t.Errorf("the terminal table does not say its bytes per key are the mean:\n%s", stdout)
	}
	if md := texts["report.md"]; !strings.Contains(md, "| per key: peak | per key: mean of peaks | all keys: peak total |") || !strings.Contains(md, "bytes/key (peak)") {
		t.Error("the report's tables do not say which memory figure is the peak and which the mean")
	}
	if !strings.Contains(texts["summary.json"], `"token_bound": {`) {
		t.Error("summary.json has no token_bound")
	}
}
