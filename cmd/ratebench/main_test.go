package main

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// ratebench runs the command as main would, returning stdout and stderr.
func ratebench(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(&out, &errb, args)
	return out.String(), errb.String(), err
}

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		gotPath := path + ".got"
		os.WriteFile(gotPath, got, 0o644)
		t.Fatalf("%s differs from the golden file; see %s (go test -update rewrites it)", path, gotPath)
	}
}

func TestCompareGoldenSummary(t *testing.T) {
	dir := t.TempDir()
	stdout, _, err := ratebench(t, "compare", "-trace", "testdata/small.csv", "-rule", "5/30s", "-rule", "10/1m",
		"-count", "accepted,all", "-o", dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"rule 5/30s, count accepted, mode independent", "rule 10/1m, count all, mode independent", "counter-floor", "wrote " + dir} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	got, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "small.summary.json", got)
	if _, err := os.Stat(filepath.Join(dir, "perf.json")); err != nil {
		t.Error(err)
	}
}

func TestCompareErrorsNameTheLine(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "back.csv")
	os.WriteFile(path, []byte("ts,key\n100,a\n200,b\n150,b\n"), 0o644)
	_, _, err := ratebench(t, "compare", "-trace", path, "-o", dir)
	want := path + `:4: key "b": time goes backwards by 50ns, to 1970-01-01T00:00:00.00000015Z after 1970-01-01T00:00:00.0000002Z; ` +
		`use -reorder 50ns, the most a request of the trace comes after a later one (as ratebench inspect reports it): ratebench compare -trace ` + path + ` -reorder 50ns -o ` + dir
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{}, {"nope"}, {"compare"}, {"compare", "-trace", "x.csv", "-rule", "5"}, {"compare", "-trace", "x.csv", "-alg", "magic"},
		{"compare", "-trace", "x.csv", "-mode", "both"}, {"compare", "-trace", "x.csv", "-max-key", "0"}, {"gen"}, {"gen", "-scenario", "nope", "-o", "x.csv"},
		{"compare", "-bogus"}, {"inspect", "a.csv", "b.csv"}, {"inspect", "a.csv", "-trace", "a.csv"},
	} {
		_, _, err := ratebench(t, args...)
		var ue usageError
		if !errors.As(err, &ue) {
			t.Errorf("ratebench %q: err = %v, want a usage error", args, err)
		}
	}
	if _, _, err := ratebench(t, "compare", "-trace", "testdata/missing.csv"); err == nil || !strings.Contains(err.Error(), "missing.csv") {
		t.Errorf("missing trace: %v", err)
	}
	if _, _, err := ratebench(t, "compare", "-h"); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("-h: %v", err)
	}
}

func TestGenIsDeterministic(t *testing.T) {
	dir := t.TempDir()
	hash := func(name string, seed string) [32]byte {
		path := filepath.Join(dir, name)
		if _, _, err := ratebench(t, "gen", "-scenario", "boundary", "-requests", "3000", "-keys", "7", "-seed", seed, "-o", path); err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(path)
		return sha256.Sum256(data)
	}
	for _, ext := range []string{"csv", "jsonl", "parquet"} {
		a, b, c := hash("a."+ext, "3"), hash("b."+ext, "3"), hash("c."+ext, "4")
		if a != b {
			t.Errorf("%s: same seed, different bytes", ext)
		}
		if a == c {
			t.Errorf("%s: different seeds, same bytes", ext)
		}
	}
}

func TestInspect(t *testing.T) {
	out, _, err := ratebench(t, "inspect", "-trace", "testdata/small.csv")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"requests   2000 (total cost 2054)", "keys       20", "order      in time order", "per key    requests: max"} {
		if !strings.Contains(out, want) {
			t.Errorf("inspect output lacks %q:\n%s", want, out)
		}
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "back.csv")
	// -reorder needs to cover how late the requests that go back within
	// their key came (a's 90, 110ns after b's 200), not c's 50, in order.
	os.WriteFile(path, []byte("ts,key\n100,a\n200,b\n150,b\n90,a\n50,c\n"), 0o644)
	out, _, err = ratebench(t, "inspect", "-trace", path)
	if err != nil || !strings.Contains(out, "NOT ordered: 2 requests go back in time within their key, by up to 50ns; compare needs -reorder 110ns") {
		t.Errorf("inspect of an unordered trace: %v\n%s", err, out)
	}
	if strings.Contains(out, "skipped") {
		t.Errorf("inspect says it skipped records of a good trace:\n%s", out)
	}
}

// inspect -skip-bad says how many records it skipped, and which first.
func TestInspectSkipBad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.csv")
	var in strings.Builder
	in.WriteString("ts,key\n1,a\nx\x1b,b\n")
	for i := range 12 {
		fmt.Fprintf(&in, "%d,c,0,extra\n", i)
	}
	in.WriteString("9,d\n")
	os.WriteFile(path, []byte(in.String()), 0o644)
	out, _, err := ratebench(t, "inspect", "-skip-bad", "-trace", path)
	if err != nil {
		t.Fatal(err)
	}
	want := "skipped    13 bad records (-skip-bad); the first 10:\n" +
		"           line 3: ts \"x\\x1b\" is not a number, decimal seconds or RFC 3339 time\n" +
		"           line 4: 4 fields, header has 2\n"
	if !strings.Contains(out, "requests   2 (total cost 2)") || !strings.Contains(out, want) ||
		!strings.Contains(out, "           line 12: 4 fields, header has 2\n") || strings.Contains(out, "line 13:") {
		t.Errorf("inspect -skip-bad:\n%s\nwant:\n%s", out, want)
	}
}
