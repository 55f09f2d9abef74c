package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ratebench/internal/numfmt"
	"ratebench/summary"
	"ratebench/traces"
)

// A trace converted into a dataset replays as the trace does (the same
// runs, bindings and verdict); its shards, when their count divides the
// partitions, read only their own parts, and merge into the whole
// replay's summary byte for byte, the records read added up.
func TestDatasetShardsReadTheirPartsAndMergeToTheWhole(t *testing.T) {
	dir := t.TempDir()
	ds := filepath.Join(dir, "ds")
	stdout, _, err := ratebench(t, "convert", "-partitions", "4", "testdata/small.csv", ds)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout, "wrote 2000 requests to "+ds+" (4 parts)") {
		t.Errorf("convert said %q", stdout)
	}
	m, err := traces.ReadManifest(ds)
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := m.Parts[0].Records, m.Parts[0].Records
	for _, p := range m.Parts {
		lo, hi = min(lo, p.Records), max(hi, p.Records)
	}
	if out, _, err := ratebench(t, "inspect", ds); err != nil || !strings.Contains(out, fmt.Sprintf("dataset    4 parts by key hash, %d to %d records each\n", lo, hi)) || m.Records(m.PartsOf(0, 0)) != 2000 {
		t.Errorf("inspect: %v\n%s", err, out)
	}
	args := []string{"compare", "-rule", "5/30s", "-count", "accepted,all", "-report=false"}
	replay := func(name string, extra ...string) (*summary.Summary, []byte, string) {
		t.Helper()
		out := filepath.Join(dir, name)
		_, stderr, err := ratebench(t, append(append(args, "-o", out), extra...)...)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(filepath.Join(out, "summary.json"))
		s, err := summary.ReadSummaryFile(filepath.Join(out, "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		return s, data, stderr
	}
	csv, _, _ := replay("csv", "testdata/small.csv")
	whole, want, _ := replay("whole", ds)
	if d := whole.Trace.Dataset; d == nil || d.Partitions != 4 || len(d.PartsRead) != 4 || whole.Trace.RecordsRead != 2000 {
		t.Errorf("the whole replay read %+v, %d records", d, whole.Trace.RecordsRead)
	}
	for _, c := range []struct {
		name string
		a, b any
	}{{"runs", csv.Runs, whole.Runs}, {"bindings", csv.Bindings, whole.Bindings}, {"verdict", csv.Verdict, whole.Verdict}} {
		if a, _ := json.Marshal(c.a); !bytes.Equal(a, must(json.Marshal(c.b))) {
			t.Errorf("the dataset's %s differ from the trace's", c.name)
		}
	}
	for _, n := range []int{2, 4, 3} {
		var shards []string
		read := int64(0)
		for i := range n {
			name := fmt.Sprintf("shard%d-%d", i, n)
			s, _, stderr := replay(name, "-shard", fmt.Sprintf("%d/%d", i, n), ds)
			shards = append(shards, filepath.Join(dir, name))
			var parts []int
			for j := range 4 {
				if 4%n != 0 || j%n == i {
					parts = append(parts, j)
				}
			}
			if d := s.Trace.Dataset; d == nil || fmt.Sprint(d.PartsRead) != fmt.Sprint(parts) {
				t.Errorf("shard %d/%d read %+v, want parts %v", i, n, d, parts)
			}
			if got, want := s.Trace.RecordsRead, m.Records(parts); got != want {
				t.Errorf("shard %d/%d read %d records, its parts hold %d", i, n, got, want)
			}
			read += s.Trace.RecordsRead
			if every := strings.Contains(stderr, "reads every part"); every != (4%n != 0) {
				t.Errorf("shard %d/%d: stderr %q", i, n, stderr)
			}
		}
		if 4%n == 0 && read != 2000 {
			t.Errorf("the %d shards read %d records, want the trace's 2000 once", n, read)
		}
		if n == 2 { // the report of a shard says which parts it read
			if _, _, err := ratebench(t, "report", "-png=false", shards[1]); err != nil {
				t.Fatal(err)
			}
			md, _ := os.ReadFile(filepath.Join(shards[1], "report.md"))
			want := fmt.Sprintf("- Dataset: 4 parts by key hash; this run read parts 1, 3 (%s records)\n", numfmt.Count(m.Records([]int{1, 3})))
			if !strings.Contains(string(md), want) {
				t.Errorf("shard 1/2's report does not say %q", want)
			}
		}
		merged := filepath.Join(dir, fmt.Sprint("merged", n))
		if _, _, err := ratebench(t, append([]string{"merge", "-o", merged, "-report=false"}, shards...)...); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(filepath.Join(merged, "summary.json")); !bytes.Equal(got, want) {
			t.Errorf("the %d merged shards differ from the whole replay of the dataset", n)
		}
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// convert -partitions takes 1 to 1024 Parquet parts and refuses to
// replace a folder that is not a dataset; compare refuses a folder that
// is not one.
func TestDatasetErrors(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	other := filepath.Join(dir, "other")
	os.MkdirAll(other, 0o755)
	os.WriteFile(filepath.Join(other, "notes.txt"), []byte("mine\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"convert", "-partitions", "-1", "testdata/small.csv", filepath.Join(dir, "a")}, "1 to 1024"},
		{[]string{"convert", "-partitions", "0", "testdata/small.csv", filepath.Join(dir, "a")}, "convert: -partitions wants 1 to 1024"},
		{[]string{"convert", "-partitions", "1025", "testdata/small.csv", filepath.Join(dir, "a")}, "1 to 1024"},
		{[]string{"convert", "-partitions", "2", "-to", "csv", "testdata/small.csv", filepath.Join(dir, "a")}, "Parquet parts"},
		{[]string{"convert", "-partitions", "2", "testdata/small.csv", other}, "not a dataset"},
		{[]string{"compare", "-o", filepath.Join(dir, "r"), other}, "not a dataset"},
	} {
		if _, _, err := ratebench(t, c.args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(other, "notes.txt")); string(data) != "mine\n" {
		t.Error("the refused folder was changed")
	}
	if _, err := os.Stat(filepath.Join(dir, "a")); err == nil {
		t.Error("a refused convert wrote its output")
	}
	// OUT - is no file or folder named "-", in the working folder.
	t.Chdir(dir)
	for _, args := range [][]string{{"-partitions", "4", "-o", "-"}, {"-to", "csv", "-o", "-"}, {"-partitions", "4", "-"}} {
		_, _, err := ratebench(t, append([]string{"convert", "-trace", filepath.Join(wd, "testdata/small.csv")}, args...)...)
		var ue usageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), "convert: OUT - is not standard output") {
			t.Errorf("%q: %v", args, err)
		}
		if _, err := os.Stat(filepath.Join(dir, "-")); err == nil {
			t.Errorf("%q made -", args)
			os.RemoveAll(filepath.Join(dir, "-"))
		}
	}
}
