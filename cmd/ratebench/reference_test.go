package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"ratebench/summary"
)

// compare -ref log:block=D measures the candidates against the log behind
// a refusal cache: the summary records the reference, the first screen
// and the report's opening say what it is, and every command the report
// suggests on the trace carries it.
func TestCompareAgainstAReferenceBehindACache(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "r")
	stdout, _, err := ratebench(t, "compare", "-trace", "testdata/small.csv", "-rule", "3/30s", "-ref", "log:block=60s",
		"-alg", "counter:block=1m,counter", "-count", "all", "-png=false", "-o", out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout, `Here "the log" is the exact sliding-window log behind a refusal cache (log:block=1m: a key the log refuses is refused for 1m)`) {
		t.Errorf("the first screen does not name the reference:\n%s", stdout)
	}
	s, err := summary.ReadSummaryFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Config.Reference != "log:block=1m" || s.Schema != summary.SchemaV1_7 {
		t.Errorf("reference %q, schema %s", s.Config.Reference, s.Schema)
	}
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "through the exact sliding-window log behind a refusal cache") {
		t.Error("report.md does not say what the reference is")
	}
	cmds := regexp.MustCompile("`ratebench (compare|explain) [^`]*`").FindAllString(string(md), -1)
	if len(cmds) == 0 {
		t.Fatal("report.md suggests no command on the trace")
	}
	for _, c := range cmds {
		if !strings.Contains(c, "-ref log:block=1m") {
			t.Errorf("suggested without the reference: %s", c)
		}
	}
	plain := filepath.Join(dir, "plain")
	if _, _, err := ratebench(t, "compare", "-trace", "testdata/small.csv", "-rule", "3/30s", "-alg", "counter", "-count", "all", "-report=false", "-o", plain); err != nil {
		t.Fatal(err)
	}
	p, _ := summary.ReadSummaryFile(filepath.Join(plain, "summary.json"))
	if p.Config.Reference != "" || p.Runs[0].Rejected == s.Runs[0].Rejected {
		t.Errorf("the plain log's summary: reference %q, it refused %d, behind the cache %d", p.Config.Reference, p.Runs[0].Rejected, s.Runs[0].Rejected)
	}
	for _, bad := range []string{"counter", "log:block=0s", "log:block=soon"} {
		if _, _, err := ratebench(t, "compare", "-trace", "testdata/small.csv", "-ref", bad, "-o", filepath.Join(dir, "x")); err == nil || !strings.Contains(err.Error(), "reference") {
			t.Errorf("-ref %s: %v", bad, err)
		}
	}
}

// block= with no duration is a usage error, in the reference as in a
// candidate: it never means no cache.
func TestEmptyBlockRefused(t *testing.T) {
	for _, args := range [][]string{{"-ref", "log:block="}, {"-alg", "counter:block="}, {"-ref", "log:block=1m", "-alg", "counter:block="}} {
		out := filepath.Join(t.TempDir(), "x")
		_, _, err := ratebench(t, append([]string{"compare", "-trace", "testdata/small.csv", "-report=false", "-o", out}, args...)...)
		var ue usageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), ":block=\": block= needs a duration") {
			t.Errorf("%q: %v, want a usage error saying block= needs a duration", args, err)
		}
		if _, err := os.Stat(out); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%q: the results folder was made", args)
		}
	}
}
