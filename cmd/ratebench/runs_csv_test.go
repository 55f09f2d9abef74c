package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// compare writes runs.csv beside summary.json, and report rewrites it from
// the summary alone.
func TestRunsCSVBesideSummary(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := ratebench(t, "compare", "-trace", "testdata/small.csv", "-rule", "5/30s", "-alg", "log,counter", "-mode", "independent", "-report=true", "-o", dir); err != nil {
		t.Fatal(err)
	}
	csv, err := os.ReadFile(filepath.Join(dir, "runs.csv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(csv), "\n"), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "rule,count,mode,algorithm,requests,") ||
		!strings.HasPrefix(lines[1], "5/30s,accepted,independent,log,") || !strings.HasPrefix(lines[2], "5/30s,accepted,independent,counter,") {
		t.Fatalf("runs.csv:\n%s", csv)
	}
	os.Remove(filepath.Join(dir, "runs.csv"))
	if _, _, err := reportCmd(t, "-png=false", dir); err != nil {
		t.Fatal(err)
	}
	again, err := os.ReadFile(filepath.Join(dir, "runs.csv"))
	if err != nil || !bytes.Equal(again, csv) {
		t.Errorf("report wrote runs.csv %q (%v), want the same bytes as compare", again, err)
	}
}
