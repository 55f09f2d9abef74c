package report

import (
	"path/filepath"
	"testing"

	"ratebench/report/plotkit"
	"ratebench/summary"
)

// reportSummaries is every committed summary a report is built from: the
// test inputs and the committed results.
func reportSummaries(t *testing.T) []string {
	t.Helper()
	var paths []string
	for _, g := range []string{filepath.Join("testdata", "*.summary.json"), filepath.Join("..", "results", "*", "summary.json")} {
		ps, err := filepath.Glob(g)
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, ps...)
	}
	if len(paths) == 0 {
		t.Fatal("no summaries found")
	}
	return paths
}

// TestDistinctMarkersPerAlgorithm: in every committed report, no two
// algorithms drawn are given the same colour and marker shape, so no two
// series of one plot look alike.
func TestDistinctMarkersPerAlgorithm(t *testing.T) {
	for _, path := range reportSummaries(t) {
		s, err := summary.ReadSummaryFile(path)
		if err != nil {
			t.Fatal(err)
		}
		m := newModel(s, Options{})
		for _, g := range m.groups {
			var names []string
			seen := map[string]bool{}
			for _, r := range g.runs {
				if !seen[r.Algorithm] {
					seen[r.Algorithm] = true
					names = append(names, r.Algorithm)
				}
			}
			for i, a := range names {
				for _, b := range names[:i] {
					if plotkit.SamePair(m.style(a), m.style(b)) {
						t.Errorf("%s, %s: %s and %s have the same colour and marker", path, g.title(), a, b)
					}
				}
			}
		}
	}
}
