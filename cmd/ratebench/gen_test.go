package main

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ratebench/generators"
	"ratebench/summary"
)

// Every scenario, written in every format, gives the same bytes for the
// same seed and different bytes for another seed.
func TestEveryScenarioIsDeterministic(t *testing.T) {
	dir := t.TempDir()
	specs := []string{"mix:poisson=0.5,boundary=0.3,early=0.2"}
	for _, s := range generators.Scenarios() {
		specs = append(specs, s.Name)
	}
	if len(specs) < 10 {
		t.Fatalf("only %d scenarios: %v", len(specs), specs)
	}
	for _, spec := range specs {
		for _, ext := range []string{"csv", "jsonl", "parquet"} {
			hash := func(seed string) [32]byte {
				path := filepath.Join(dir, "t."+ext)
				if _, _, err := ratebench(t, "gen", "-scenario", spec, "-requests", "2000", "-keys", "13", "-rate", "0.5", "-seed", seed, "-o", path); err != nil {
					t.Fatal(err)
				}
				data, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				return sha256.Sum256(data)
			}
			a, b, c := hash("5"), hash("5"), hash("6")
			if a != b {
				t.Errorf("%s as %s: same seed, different bytes", spec, ext)
			}
			if a == c {
				t.Errorf("%s as %s: different seeds, same bytes", spec, ext)
			}
		}
	}
}

// Replaying a scenario straight from the generator (-gen) gives the same
// figures as replaying the file it writes.
func TestCompareGenEqualsFile(t *testing.T) {
	dir := t.TempDir()
	spec := "mix:poisson=0.6,boundary=0.4"
	trace := filepath.Join(dir, "mix.parquet")
	if _, _, err := ratebench(t, "gen", "-scenario", spec, "-requests", "20000", "-keys", "50", "-o", trace); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ratebench(t, "compare", "-trace", trace, "-o", filepath.Join(dir, "file")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ratebench(t, "compare", "-gen", spec+",requests=20000,keys=50", "-o", filepath.Join(dir, "gen")); err != nil {
		t.Fatal(err)
	}
	a, _ := summary.ReadSummaryFile(filepath.Join(dir, "file", "summary.json"))
	b, _ := summary.ReadSummaryFile(filepath.Join(dir, "gen", "summary.json"))
	if a == nil || b == nil {
		t.Fatal("missing summary")
	}
	if b.Trace.Format != "generated" || !strings.HasPrefix(b.Trace.Path, "gen:mix") {
		t.Errorf("generated trace described as %+v", b.Trace)
	}
	if !strings.HasPrefix(a.Trace.Fingerprint, "sha256:") || b.Trace.Fingerprint != "" {
		t.Errorf("fingerprints: file %q, generated %q", a.Trace.Fingerprint, b.Trace.Fingerprint)
	}
	if a.Trace.TSUnit != "ns" || a.Trace.TSUnitFrom != "file" || a.Schema != summary.SchemaV1_6 || b.Trace.TSUnit != "" || b.Schema != summary.SchemaV1_6 {
		t.Errorf("timestamp units: file %q %q (%s), generated %q (%s)", a.Trace.TSUnit, a.Trace.TSUnitFrom, a.Schema, b.Trace.TSUnit, b.Schema)
	}
	a.Trace.Path, a.Trace.Format, a.Trace.Fingerprint = b.Trace.Path, b.Trace.Format, b.Trace.Fingerprint
	a.Trace.TSUnit, a.Trace.TSUnitFrom, a.Schema = "", "", b.Schema
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if string(ja) != string(jb) {
		t.Error("compare -gen and compare on the generated file disagree")
	}
}

// The boundary scenario at L per W: the fixed window admits about 2L in
// its worst span, the log exactly L.
func TestBoundaryScenarioDoublesFixed(t *testing.T) {
	dir := t.TempDir()
	// burst = rate*window/2 = 5 on each side of every edge of 30 s windows.
	if _, _, err := ratebench(t, "compare", "-gen", "boundary:requests=4000,keys=10,rate=0.3333334,window=30s",
		"-rule", "5/30s", "-alg", "fixed,counter", "-mode", "independent", "-o", dir); err != nil {
		t.Fatal(err)
	}
	s, err := summary.ReadSummaryFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range s.Runs {
		switch r.Algorithm {
		case "log":
			if r.Burst.Max != 5 {
				t.Errorf("log burst %d, want 5", r.Burst.Max)
			}
		case "fixed":
			if r.Burst.Max != 10 || r.Burst.KeysOverL != 10 {
				t.Errorf("fixed burst %d over %d keys, want 10 (2L) on all 10 keys", r.Burst.Max, r.Burst.KeysOverL)
			}
		}
	}
}

func TestCloudflareSmall(t *testing.T) {
	dir := t.TempDir()
	out, _, err := ratebench(t, "cloudflare", "-requests", "100000", "-sources", "2000", "-o", dir)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "wrote "+filepath.Join(dir, "README.md")) {
		t.Errorf("output: %s", out)
	}
	readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| requests decided differently | 0.0030% |", "| mean gap, approximate vs real rate | 6.00% |",
		"100,000 requests from 2,000 sources", "Cloudflare did not publish its thresholds"} {
		if !strings.Contains(string(readme), want) {
			t.Errorf("README lacks %q", want)
		}
	}
	s, err := summary.ReadSummaryFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Runs) != 6 { // accepted: 2 modes x (log, counter); all: log, counter
		t.Errorf("%d runs", len(s.Runs))
	}
}

// The samples committed in traces/samples are what make traces writes with
// the current generators (keys 20, 2000 requests; the mix as make compare's).
func TestCommittedSamplesAreCurrent(t *testing.T) {
	dir := t.TempDir()
	samples, _ := filepath.Glob("../../traces/samples/*.csv")
	if len(samples) < 10 {
		t.Fatalf("%d samples in traces/samples", len(samples))
	}
	for _, path := range samples {
		name := strings.TrimSuffix(filepath.Base(path), ".csv")
		args := []string{"gen", "-scenario", name, "-requests", "2000", "-keys", "20"}
		if name == "mix" {
			args = []string{"gen", "-scenario", "mix:poisson=0.7,onoff=0.25,early=0.03,boundary=0.02,early.burst=5,boundary.burst=5",
				"-requests", "2000", "-keys", "40", "-rate", "0.05"}
		}
		out := filepath.Join(dir, name+".csv")
		if _, _, err := ratebench(t, append(args, "-o", out)...); err != nil {
			t.Fatal(err)
		}
		want, _ := os.ReadFile(path)
		got, _ := os.ReadFile(out)
		if string(got) != string(want) {
			t.Errorf("%s differs from a fresh %v: run make traces", path, args)
		}
	}
}

// convert keeps every record: CSV -> Parquet -> JSON lines -> CSV gives the
// same bytes back.
func TestConvertRoundTrip(t *testing.T) {
	dir := t.TempDir()
	pq, jl, back := filepath.Join(dir, "a.parquet"), filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "a.csv")
	for _, step := range [][2]string{{"testdata/small.csv", pq}, {pq, jl}, {jl, back}} {
		out, _, err := ratebench(t, "convert", step[0], step[1])
		if err != nil || !strings.Contains(out, "wrote 2000 requests") {
			t.Fatalf("convert %s %s: %v %s", step[0], step[1], err, out)
		}
	}
	a, _ := os.ReadFile("testdata/small.csv")
	b, _ := os.ReadFile(back)
	if string(a) != string(b) {
		t.Error("CSV -> Parquet -> JSONL -> CSV changed the trace")
	}
	if _, _, err := ratebench(t, "convert", "testdata/small.csv"); err == nil {
		t.Error("convert with one argument accepted")
	}
}

// Every committed summary is in the current schema: read and written back,
// it gives the same bytes (make results regenerates them after a change).
func TestCommittedSummariesAreCurrent(t *testing.T) {
	paths, _ := filepath.Glob("../../results/*/summary.json")
	n := 0
	for _, p := range paths {
		if strings.Contains(p, "/default/") {
			continue // make compare's own output, not committed
		}
		n++
		s, err := summary.ReadSummaryFile(p)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := s.Marshal()
		want, _ := os.ReadFile(p)
		if string(got) != string(want) {
			t.Errorf("%s is not in the current schema: run make results (or make cloudflare)", p)
		}
	}
	if n < 10 {
		t.Errorf("%d committed summaries", n)
	}
}

// Parameters that would exhaust the machine, spin, write nothing or fall
// back to a default are refused before anything is written, by gen and by
// compare -gen alike, as a usage error naming the parameter and its range.
func TestGenRefusesBadParameters(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"gen", "-requests", "0"}, "-requests 0: must be a whole number, at least 1"},
		{[]string{"gen", "-keys", "0"}, "-keys 0: must be a whole number from 1 to 2147483647"},
		{[]string{"gen", "-rate", "0"}, "-rate 0: must be a number above 0 and at most 1e9"},
		{[]string{"gen", "-rate", "-1"}, "-rate -1: must be a number above 0"},
		{[]string{"gen", "-rate", "NaN"}, "-rate NaN: must be a number above 0"},
		{[]string{"gen", "-rate", "5e14"}, "-rate 5e+14: must be a number above 0 and at most 1e9"},
		{[]string{"gen", "-seed", "0"}, "-seed 0: must be at least 1"},
		{[]string{"gen", "-window", "0s"}, "-window 0s: must be above 0"},
		{[]string{"gen", "-duration", "-1s"}, "-duration -1s: must not be negative"},
		{[]string{"gen", "-rate", "1e-300"}, "past the end of int64 ns time"},
		{[]string{"gen", "-keys", "1000000000", "-requests", "1000000000"}, "1000000000 keys can send, more than the 10000000"},
		{[]string{"gen", "-scenario", "onoff:on=1e308"}, "onoff: on=1e308: must be a number from 0.001 to 9e+09"},
		{[]string{"gen", "-scenario", "mix:poisson=NaN"}, "mix: poisson=NaN: a weight must be a number above 0"},
		{[]string{"gen", "-scenario", "boundary:burst=1000000000"}, "boundary: burst=1e+09: a burst of 1e+09 requests, more than the 100000 of the whole trace"},
		{[]string{"compare", "-gen", "poisson:rate=1e300,requests=100"}, "rate=1e300: must be a number above 0 and at most 1e9"},
		{[]string{"compare", "-gen", "early:burst=1000000000"}, "early: burst=1e+09: a burst of 1e+09 requests"},
		{[]string{"compare", "-gen", "retry:burst=1000000000"}, "retry: burst=1e+09: a burst of 1e+09 requests"},
		{[]string{"compare", "-gen", "mix:poisson=NaN"}, "mix: poisson=NaN: a weight must be"},
		{[]string{"compare", "-gen", "poisson:rate=0"}, "rate=0: must be a number above 0"},
		{[]string{"compare", "-gen", "poisson:keys=0"}, "keys=0: must be a whole number from 1"},
		{[]string{"cloudflare", "-rate", "0"}, "rate=0: must be a number above 0"},
		{[]string{"cloudflare", "-alpha", "NaN"}, "alpha=NaN: must be a number, at least 1.05"},
	} {
		out := filepath.Join(dir, "out")
		o := out
		if c.args[0] == "gen" {
			o += ".csv"
		}
		_, _, err := ratebench(t, append(c.args, "-o", o)...)
		var ue usageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want a usage error saying %q", c.args, err, c.want)
		}
		if _, serr := os.Stat(out + ".csv"); serr == nil {
			t.Errorf("%v: wrote %s", c.args, out+".csv")
		}
		if _, serr := os.Stat(filepath.Join(out, "summary.json")); serr == nil {
			t.Errorf("%v: wrote a summary", c.args)
		}
	}
}

// gen -list gives every parameter's range.
func TestGenListGivesRanges(t *testing.T) {
	out, _, err := ratebench(t, "gen", "-list")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range generators.Scenarios() {
		for _, p := range s.Params {
			if !strings.Contains(out, p.About+"; "+p.Range()) {
				t.Errorf("-list does not give the range of %s.%s (%s)", s.Name, p.Name, p.Range())
			}
		}
	}
	if strings.Contains(out, "seed 0") {
		t.Error("-list refers to an internal document")
	}
}
