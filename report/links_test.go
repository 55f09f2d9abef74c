package report

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"ratebench/summary"
)

// Every link of a report to a section of itself lands on one: the terms
// a newcomer meets (count, mode, twin) link to where they are defined, in
// the HTML page and, by GitHub's anchor of the heading, in the Markdown.
func TestTermsLinkToTheirDefinitions(t *testing.T) {
	s, err := summary.ReadSummaryFile("../results/products/summary.json")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := Write(dir, s, Options{NoPNG: true}); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(dir, HTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	hrefs := regexp.MustCompile(`<a href="#([^"]+)">([^<]+)</a>`).FindAllStringSubmatch(string(page), -1)
	terms := map[string]bool{}
	for _, h := range hrefs {
		if !strings.Contains(string(page), `id="`+h[1]+`"`) {
			t.Errorf("link %q to #%s lands nowhere", h[2], h[1])
		}
		terms[h[2]] = true
	}
	for _, want := range []string{"count accepted", "independent mode", "twin"} {
		if !terms[want] {
			t.Errorf("%q links to no definition (links: %v)", want, terms)
		}
	}
	if !strings.Contains(string(md), "[twin](#how-to-read-this-report)") || !strings.Contains(string(md), "\n## How to read this report\n") {
		t.Error("the Markdown's links do not land on the heading GitHub anchors as how-to-read-this-report")
	}
	for _, def := range []string{"<strong>twin</strong>", "Burst ÷ L (burst/L)", "<strong>Independent</strong> mode", "Count <strong>accepted</strong>"} {
		if !strings.Contains(string(page), def) {
			t.Errorf("the definitions lack %q", def)
		}
	}
}
