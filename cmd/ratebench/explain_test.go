package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"ratebench/summary"
)

func explainCmd(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(&out, &errb, append([]string{"explain"}, args...))
	return out.String(), err
}

// explain on a committed sample: the disagreements it counts for a key
// are those compare reports for the key, in each count policy and mode;
// it lists them and writes the plot.
func TestExplainAgreesWithCompare(t *testing.T) {
	const trace = "../../traces/samples/boundary.csv"
	dir := t.TempDir()
	if _, stderr, err := ratebench(t, "compare", trace, "-alg", "log,counter,fixed,token", "-count", "accepted,all", "-top", "30", "-report=false", "-o", dir); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	s, err := summary.ReadSummaryFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`(?m)^  (\S+)\s+(\d+) disagreements:\s+(\d+) over,\s+(\d+) under$`)
	checked := 0
	for _, c := range []struct{ count, mode, key string }{
		{"accepted", "independent", ""}, {"accepted", "shadow", ""}, {"all", "independent", ""}, {"accepted", "independent", "boundary-13"},
	} {
		// The key: the top disagreeing key of counter, unless named.
		var runs []summary.Run
		for _, r := range s.Runs {
			if r.Count == c.count && r.Mode == c.mode && r.Algorithm != "log" {
				runs = append(runs, r)
			}
		}
		key := c.key
		if key == "" {
			key = runs[0].TopKeys[0].Key
		}
		out := filepath.Join(t.TempDir(), "x")
		stdout, err := explainCmd(t, "-trace", trace, "-key", key, "-count", c.count, "-mode", c.mode, "-o", out, "-png=false")
		if err != nil {
			t.Fatal(err)
		}
		got := map[string][3]int64{}
		for _, m := range line.FindAllStringSubmatch(stdout, -1) {
			var v [3]int64
			for i := range v {
				v[i], _ = strconv.ParseInt(m[2+i], 10, 64)
			}
			got[m[1]] = v
		}
		for _, r := range runs {
			var want [3]int64
			for _, k := range r.TopKeys {
				if k.Key == key {
					want = [3]int64{k.Disagree, k.Over, k.Under}
				}
			}
			if got[r.Algorithm] != want {
				t.Errorf("count %s, mode %s, %s, key %s: explain counts %v (disagree, over, under), compare %v\n%s", c.count, c.mode, r.Algorithm, key, got[r.Algorithm], want, stdout)
			}
			checked++
		}
		if !strings.Contains(stdout, fmt.Sprintf("key %s: ", key)) || !strings.Contains(stdout, "wrote "+filepath.Join(out, "explain.svg")) {
			t.Errorf("output:\n%s", stdout)
		}
		svg, err := os.ReadFile(filepath.Join(out, "explain.svg"))
		if err != nil || !bytes.Contains(svg, []byte("<svg")) {
			t.Errorf("explain.svg: %v", err)
		}
	}
	if checked != 12 {
		t.Errorf("checked %d runs", checked)
	}
}

// The disagreements listed: each with the log's decision and the
// algorithm's, the log's count and the estimate; the default span is a few
// windows around the first one; -from and -to set another.
func TestExplainListsTheDisagreements(t *testing.T) {
	const trace = "../../traces/samples/boundary.csv"
	out := t.TempDir()
	stdout, err := explainCmd(t, trace, "-key", "boundary-01", "-alg", "counter", "-list", "2", "-o", out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"key boundary-01: 101 requests, rule 5/30s, count accepted, mode independent\n",
		"  counter  38 disagreements:  16 over,  22 under\n",
		"the first 2 of 38 disagreements:\n",
		"  2024-01-01T00:01:00.444889205Z  +31.940743907s  counter    admitted     refused            under  4                        4.941\n",
		"  2024-01-01T00:01:01.478390605Z  +32.974245307s  counter    admitted     refused            under  4                        4.803\n",
		// The first disagreement at +31.9s, two windows of 30s either side
		// (from the key's first request, which is later than that).
		"plotted: 23 requests from 2024-01-01T00:00:28.504145298Z to 2024-01-01T00:02:00.444889205Z (+0s to +1m31.940743907s after the key's first request)\n",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	for _, f := range []string{"explain.svg", "explain.png"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	stdout, err = explainCmd(t, trace, "-key", "boundary-01", "-from", "28s", "-to", "2024-01-01T00:01:02.504145298Z", "-o", out, "-png=false")
	if err != nil {
		t.Fatal(err)
	}
	if want := "plotted: 6 requests from 2024-01-01T00:00:56.504145298Z to 2024-01-01T00:01:02.504145298Z (+28s to +34s after the key's first request)\n"; !strings.Contains(stdout, want) {
		t.Errorf("output lacks %q:\n%s", want, stdout)
	}
}

func TestExplainErrors(t *testing.T) {
	const trace = "../../traces/samples/boundary.csv"
	out := t.TempDir()
	for _, c := range []struct {
		args  []string
		usage bool
		want  string
	}{
		{[]string{trace}, true, "want -key K"},
		{[]string{trace, "-key", "x", "-alg", "log"}, true, "names no algorithm besides the log"},
		{[]string{trace, "-key", "x", "-alg", "nope"}, true, `unknown algorithm "nope"`},
		{[]string{trace, "-key", "x", "-rule", "5"}, true, "explain: "},
		{[]string{trace, "-key", "x", "-mode", "both"}, true, `unknown mode "both"`},
		{[]string{trace, "-key", "x", "-from", "soon"}, true, `-from "soon": want a duration`},
		{[]string{trace, "-key", "nobody", "-o", out}, false, `no request of the key nobody in ../../traces/samples/boundary.csv`},
		{[]string{"-key", "x"}, true, "want FILE"},
		// At the end of the time range: refused, not a walk that never ends.
		{[]string{trace, "-key", "boundary-01", "-from", "2262-04-11T23:47:16Z", "-o", out}, true, "explain: -from puts the span's end at 2262-04-11T23:47:16Z, past the latest time it can show"},
		{[]string{trace, "-key", "boundary-01", "-from", "9223372036854775807ns", "-o", out}, true, "explain: -from puts the span's end at 2262-04-11T23:47:16.854775807Z"},
		{[]string{trace, "-key", "boundary-01", "-to", "9999-01-01T00:00:00Z", "-o", out}, true, "explain: -to \"9999-01-01T00:00:00Z\" is outside the times a trace holds"},
	} {
		_, err := explainCmd(t, c.args...)
		var ue usageError
		if err == nil || errors.As(err, &ue) != c.usage || !strings.Contains(err.Error(), c.want) {
			t.Errorf("explain %q: err = %v, want %q (usage error: %v)", c.args, err, c.want, c.usage)
		}
	}
	// A key's requests out of order: the file and line are named.
	bad := filepath.Join(t.TempDir(), "bad.csv")
	os.WriteFile(bad, []byte("ts,key\n2000000000,a\n1000000000,b\n1500000000,a\n"), 0o644)
	if _, err := explainCmd(t, bad, "-key", "a", "-o", out); err == nil || !strings.Contains(err.Error(), "bad.csv:4") {
		t.Errorf("out of order: err = %v", err)
	}
}
