package main

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ratebench/compare/resultsdir/resultsdirtest"
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

// merge refuses inputs that overlap: the same whole summary twice (every
// count would double), a whole summary with a shard of it, the same shard
// twice, the same folder by two paths.
func TestMergeRefusesOverlappingInputs(t *testing.T) {
	dir := t.TempDir()
	args := []string{"compare", "-trace", "testdata/small.csv", "-rule", "5/30s", "-alg", "log,counter", "-report=false"}
	whole := filepath.Join(dir, "whole")
	if _, _, err := ratebench(t, append(args, "-o", whole)...); err != nil {
		t.Fatal(err)
	}
	var shards []string
	for i := range 2 {
		d := filepath.Join(dir, fmt.Sprint("shard", i))
		if _, _, err := ratebench(t, append(args, "-o", d, "-shard", fmt.Sprintf("%d/2", i))...); err != nil {
			t.Fatal(err)
		}
		shards = append(shards, d)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(shards[0], link); err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	rel, err := filepath.Rel(wd, whole) // whole is absolute
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		in   []string
		want string
	}{
		{[]string{whole, whole}, "the summary " + filepath.Join(whole, "summary.json") + " is given twice"},
		{[]string{whole, rel}, "are the same summary, given twice"},
		{[]string{whole, filepath.Join(whole, "summary.json")}, " is given twice"},
		{[]string{shards[0], link, shards[1]}, "are the same summary, given twice"},
		{[]string{whole, shards[0]}, "holds that shard's keys already"},
		{[]string{shards[0], whole}, "whose keys the whole holds already"},
	} {
		out := filepath.Join(dir, "merged")
		_, _, err := ratebench(t, append([]string{"merge", "-o", out, "-report=false"}, tc.in...)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("merge %q: %v, want an error saying %q", tc.in, err, tc.want)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("merge %q left %s: %v", tc.in, out, err)
		}
	}
	// Two whole summaries of the same trace, even in two folders, are two
	// replays of every key, not shards.
	other := filepath.Join(dir, "other")
	if _, _, err := ratebench(t, append(args, "-o", other)...); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ratebench(t, "merge", "-o", filepath.Join(dir, "m2"), "-report=false", whole, other); err == nil || !strings.Contains(err.Error(), "not a shard") {
		t.Errorf("merging two whole replays: %v", err)
	}
	// One whole summary alone merges to itself.
	one := filepath.Join(dir, "one")
	if _, _, err := ratebench(t, "merge", "-o", one, "-report=false", whole); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(filepath.Join(whole, "summary.json"))
	b, _ := os.ReadFile(filepath.Join(one, "summary.json"))
	if !bytes.Equal(a, b) {
		t.Error("a whole summary merged alone changed")
	}
}

// Two hand-edited shards each claiming 2^63-1 admissions do not merge
// into a wrapped count: the first is refused when read, naming its file
// and the field, and nothing is written.
func TestMergeRefusesHandEditedShards(t *testing.T) {
	dir := t.TempDir()
	var shards []string
	for i := range 2 {
		shards = append(shards, handEdited(t, dir, fmt.Sprint("shard", i),
			`"schema": "ratebench.summary/v1.6",`, fmt.Sprintf(`"schema": "ratebench.summary/v1.6", "shard": {"index": %d, "count": 2},`, i),
			`"admitted": 1168,`, `"admitted": 9223372036854775807,`))
	}
	out := filepath.Join(dir, "merged")
	_, _, err := ratebench(t, "merge", "-o", out, "-report=false", shards[0], shards[1])
	if want := filepath.Join(shards[0], "summary.json") + ": runs[0].admitted + rejected: the sum overflows"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("merge: %v, want %q", err, want)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("merge left %s: %v", out, err)
	}
}

// twoShards replays testdata/small.csv in two shards into dir/shard0 and
// dir/shard1, without reports, and returns their folders.
func twoShards(t *testing.T, dir string) []string {
	t.Helper()
	var shards []string
	for i := range 2 {
		d := filepath.Join(dir, fmt.Sprint("shard", i))
		if _, _, err := ratebench(t, "compare", "-trace", "testdata/small.csv", "-rule", "5/30s", "-alg", "log,counter",
			"-report=false", "-o", d, "-shard", fmt.Sprintf("%d/2", i)); err != nil {
			t.Fatal(err)
		}
		shards = append(shards, d)
	}
	return shards
}

// merge reads each summary file it is given, whatever its name, not the
// summary.json beside it.
func TestMergeReadsTheFilesNamed(t *testing.T) {
	dir := t.TempDir()
	shards := twoShards(t, dir)
	parts := filepath.Join(dir, "parts")
	os.MkdirAll(parts, 0o755)
	var files []string
	for i, s := range shards {
		data, err := os.ReadFile(filepath.Join(s, "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		f := filepath.Join(parts, fmt.Sprint(i, ".json"))
		os.WriteFile(f, data, 0o644)
		files = append(files, f)
	}
	byFolder, byFile := filepath.Join(dir, "by-folder"), filepath.Join(dir, "by-file")
	if _, _, err := ratebench(t, append([]string{"merge", "-o", byFolder, "-report=false"}, shards...)...); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ratebench(t, append([]string{"merge", "-o", byFile, "-report=false"}, files...)...); err != nil {
		t.Fatalf("merge %q: %v", files, err)
	}
	a, _ := os.ReadFile(filepath.Join(byFolder, "summary.json"))
	b, _ := os.ReadFile(filepath.Join(byFile, "summary.json"))
	if !bytes.Equal(a, b) {
		t.Error("the shards merged from their files differ from those merged from their folders")
	}
}

// merge never writes over one of its inputs, by whatever path the merged
// folder is named, even with -force: a usage error, the inputs untouched.
func TestMergeNeverWritesOverItsInputs(t *testing.T) {
	dir := t.TempDir()
	shards := twoShards(t, dir)
	link := filepath.Join(dir, "link")
	if err := os.Symlink(shards[0], link); err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	rel, err := filepath.Rel(wd, shards[0])
	if err != nil {
		t.Fatal(err)
	}
	inputs := func() map[string]string {
		m := map[string]string{}
		for i, s := range shards {
			for name, b := range resultsdirtest.Files(t, s) {
				m[fmt.Sprint(i, "/", name)] = b
			}
		}
		return m
	}
	before := inputs()
	for _, tc := range []struct {
		out  string
		args []string
	}{
		{shards[0], shards},
		{shards[0] + "/", shards},
		{"./" + rel, shards},
		{link, shards},
		{shards[1], []string{shards[0], filepath.Join(shards[1], "summary.json")}},
		{shards[0], append([]string{"-force"}, shards...)},
	} {
		_, _, err := ratebench(t, append([]string{"merge", "-o", tc.out}, tc.args...)...)
		if st := exitStatus(err); st != 2 || !strings.Contains(err.Error(), "one of the inputs") {
			t.Errorf("merge -o %s %q: status %d, %v; want a usage error", tc.out, tc.args, st, err)
		}
	}
	if got := inputs(); !maps.Equal(got, before) {
		t.Error("a merge into one of its inputs changed the inputs")
	}
}

// merge writes over the results of another trace (its summary, report,
// plots and runs.csv) only with -force, as compare does, and over an
// earlier merge of the same shards freely.
func TestMergeRefusesAnotherTracesResults(t *testing.T) {
	dir := t.TempDir()
	shards := twoShards(t, dir)
	other := filepath.Join(dir, "other")
	data, _ := os.ReadFile("testdata/small.csv")
	trace := filepath.Join(dir, "other.csv")
	os.WriteFile(trace, append(data, "1704067999000000000,client-01,1\n"...), 0o644)
	if _, _, err := ratebench(t, "compare", "-trace", trace, "-rule", "5/30s", "-alg", "log,counter", "-png=false", "-o", other); err != nil {
		t.Fatal(err)
	}
	was := resultsdirtest.Files(t, other)
	_, _, err := ratebench(t, append([]string{"merge", "-o", other, "-png=false"}, shards...)...)
	if err == nil || !strings.Contains(err.Error(), "holds the results of another trace") || !strings.Contains(err.Error(), "use -force") {
		t.Errorf("merge into another trace's results: %v", err)
	}
	sameFiles(t, other, was)
	if _, _, err := ratebench(t, append([]string{"merge", "-o", other, "-png=false", "-force"}, shards...)...); err != nil {
		t.Errorf("merge -force into another trace's results: %v", err)
	}
	// Its own earlier merge: run again.
	if _, _, err := ratebench(t, append([]string{"merge", "-o", other, "-png=false"}, shards...)...); err != nil {
		t.Errorf("merge again into its own results: %v", err)
	}
}
