package main

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"ratebench/report"
	"ratebench/summary"
)

// The README's screenshots show the report of the summary kept beside
// them as the report code writes it today: the digest of report.html and
// its SVG plots (scripts/screenshots) is that of the report written again
// from docs/screenshots/default.summary.json. When the report changes,
// this fails until make screenshots makes them again.
func TestREADMEScreenshotsAreCurrent(t *testing.T) {
	const shots = "../../docs/screenshots"
	s, err := summary.ReadSummaryFile(filepath.Join(shots, "default.summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := report.Write(dir, s, report.Options{NoPNG: true}); err != nil {
		t.Fatal(err)
	}
	svgs, err := filepath.Glob(filepath.Join(dir, "plots", "*.svg"))
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(svgs)
	h := sha256.New()
	for _, f := range append([]string{filepath.Join(dir, "report.html")}, svgs...) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		h.Write(data)
	}
	want, err := os.ReadFile(filepath.Join(shots, "report.sha256"))
	if err != nil {
		t.Fatal(err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != strings.TrimSpace(string(want)) {
		t.Errorf("the README's screenshots show another report than today's (digest %s, theirs %s): run make screenshots", got, strings.TrimSpace(string(want)))
	}
	for _, png := range []string{"report-1400.png", "report-800.png"} {
		if st, err := os.Stat(filepath.Join(shots, png)); err != nil || st.Size() < 10_000 {
			t.Errorf("%s: %v", png, err)
		}
	}
}
