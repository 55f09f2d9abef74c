package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// compare -shard i/n on every shard, then merge, writes the summary.json
// of the whole replay byte for byte; -workers does not change it either.
func TestShardsMergeToTheWholeSummary(t *testing.T) {
	dir := t.TempDir()
	args := []string{"compare", "-trace", "testdata/small.csv", "-rule", "5/30s", "-count", "accepted,all", "-report=false"}
	whole := filepath.Join(dir, "whole")
	if _, _, err := ratebench(t, append(args, "-o", whole, "-workers", "1")...); err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(filepath.Join(whole, "summary.json"))
	par := filepath.Join(dir, "par")
	if _, _, err := ratebench(t, append(args, "-o", par, "-workers", "3")...); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(par, "summary.json")); !bytes.Equal(got, want) {
		t.Error("-workers 3 wrote another summary than -workers 1")
	}
	const n = 3
	var shards []string
	for i := range n {
		d := filepath.Join(dir, fmt.Sprint("shard", i))
		if _, _, err := ratebench(t, append(args, "-o", d, "-shard", fmt.Sprintf("%d/%d", i, n))...); err != nil {
			t.Fatal(err)
		}
		shards = append(shards, d)
	}
	merged := filepath.Join(dir, "merged")
	stdout, _, err := ratebench(t, append([]string{"merge", "-o", merged, "-report=false"}, shards...)...)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout, "merged 3 summaries") {
		t.Errorf("merge output:\n%s", stdout)
	}
	if got, _ := os.ReadFile(filepath.Join(merged, "summary.json")); !bytes.Equal(got, want) {
		t.Error("the merged shards differ from the whole replay")
	}
	if _, _, err := ratebench(t, "merge", "-o", filepath.Join(dir, "bad"), shards[0], shards[1]); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("merging 2 of 3 shards: %v, want a missing shard", err)
	}
	if _, _, err := ratebench(t, "compare", "-trace", "testdata/small.csv", "-shard", "3/3", "-o", filepath.Join(dir, "x")); err == nil {
		t.Error("-shard 3/3 accepted")
	}
}
