package report

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"ratebench/summary"
)

// TestNoExponentTickLabels: no text in the plots of the reports of the
// committed test summaries and products results is written in exponent
// notation (1e+03, 5e-05).
func TestNoExponentTickLabels(t *testing.T) {
	texts := regexp.MustCompile(`<text[^>]*>([^<]*)</text>`)
	exp := regexp.MustCompile(`[0-9]e[+-][0-9]`)
	paths, _ := filepath.Glob(filepath.Join("testdata", "*.summary.json"))
	paths = append(paths, filepath.Join("..", "results", "products", "summary.json"))
	for _, path := range paths {
		s, err := summary.ReadSummaryFile(path)
		if err != nil {
			t.Fatal(err)
		}
		dir := write(t, s, Options{})
		svgs, _ := filepath.Glob(filepath.Join(dir, PlotsDir, "*.svg"))
		if len(svgs) == 0 {
			t.Fatalf("%s: no plots written", path)
		}
		for _, svg := range svgs {
			b, err := os.ReadFile(svg)
			if err != nil {
				t.Fatal(err)
			}
			ms := texts.FindAllSubmatch(b, -1)
			if len(ms) == 0 {
				t.Fatalf("%s: no text found in %s", path, filepath.Base(svg))
			}
			for _, m := range ms {
				if exp.Match(m[1]) {
					t.Errorf("%s, %s: label %q in exponent notation", path, filepath.Base(svg), m[1])
				}
			}
		}
	}
}
