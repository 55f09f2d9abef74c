package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ratebench/algorithms"
	"ratebench/summary"
)

const smallSearch = "rate=0.5;alpha=4;max=3,1000;block=0,1m"

// A search writes one point per combination, the same bytes for any
// number of workers, its plot and its page.
func TestCloudflareSearchSmall(t *testing.T) {
	var sums [2][]byte
	for i, w := range []string{"1", "2"} {
		dir := t.TempDir()
		out, _, err := ratebench(t, "cloudflare", "-search", smallSearch, "-requests", "30000", "-sources", "40", "-workers", w, "-o", dir)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out, "(4 points)") {
			t.Errorf("output: %s", out)
		}
		sums[i], err = os.ReadFile(filepath.Join(dir, "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		svg, err := os.ReadFile(filepath.Join(dir, "disagreement.svg"))
		if err != nil || !strings.Contains(string(svg), "<svg") {
			t.Errorf("plot: %v", err)
		}
		readme, _ := os.ReadFile(filepath.Join(dir, "README.md"))
		for _, want := range []string{"When is the counter this accurate?", "The closest point", "What sets each figure", "| counter | 100/1m | 0.5 | 4 | 3 | 1m |"} {
			if !strings.Contains(string(readme), want) {
				t.Errorf("README lacks %q", want)
			}
		}
	}
	if string(sums[0]) != string(sums[1]) {
		t.Error("the search differs between 1 and 2 workers")
	}
	s, err := readSearch(filepath.Dir(filepath.Join(t.TempDir(), "x")))
	if err != nil || s != nil {
		t.Errorf("no summary: %v, %v", s, err)
	}
}

// -block alone is a search of one point, under the flags' values.
func TestCloudflareBlockIsOnePoint(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := ratebench(t, "cloudflare", "-block", "10m", "-rate", "0.5", "-requests", "20000", "-sources", "30", "-o", dir); err != nil {
		t.Fatal(err)
	}
	s, err := readSearch(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Points) != 1 || s.Points[0].Block != "10m" || s.Points[0].Rate != 0.5 || s.Points[0].Algorithm != "counter" ||
		s.Points[0].Requests != 20000 || s.Sources != 30 || s.Scale != 9000 || s.Count != "all" {
		t.Errorf("%+v", s)
	}
}

func TestParseSearch(t *testing.T) {
	r, _ := algorithms.ParseRule("100/1m")
	base := searchGrid{rules: []algorithms.Rule{r}, rates: []float64{0.2}, alphas: []float64{1.5}, maxes: []float64{1000}, blocks: []string{""}, algs: []string{"counter"}}
	g, err := parseSearch("L=20,100;W=10s;block=0,1m,window;alg=counter,counter-floor", base)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.points()) != 2*3*2 || g.rules[0].L != 20 || g.rules[1].W != 10e9 || g.blocks[2] != "window" || g.rates[0] != 0.2 {
		t.Errorf("%+v", g)
	}
	for spec, want := range map[string]string{
		"speed=1":    `unknown axis "speed"`,
		"block=-1s":  `block "-1s" is not a positive duration`,
		"rate=fast":  `rate "fast" is not a number`,
		"alg=nosuch": `nosuch`,
		"rate":       "want AXIS=v1,v2",
		"L=0":        `limit "0" is not a positive integer`,
	} {
		if _, err := parseSearch(spec, base); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", spec, err, want)
		}
	}
}

// The committed page is rewritten from its summaries: the figures of the
// full run unchanged, its command the default one, the search after them.
func TestCloudflareReadmeFromSummaries(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := ratebench(t, "cloudflare", "-requests", "20000", "-sources", "200", "-o", dir); err != nil {
		t.Fatal(err)
	}
	first, _ := os.ReadFile(filepath.Join(dir, "README.md"))
	if _, _, err := ratebench(t, "cloudflare", "-search", "max=3;block=0,1m", "-requests", "20000", "-sources", "30", "-o", filepath.Join(dir, "search")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "perf.json")); err != nil {
		t.Fatal(err)
	}
	timing := keptTiming(string(first))
	if !strings.HasPrefix(timing, " Wall time ") || !strings.HasSuffix(timing, ".") {
		t.Fatalf("timing %q", timing)
	}
	if _, _, err := ratebench(t, "cloudflare", "-readme", "-o", dir); err != nil {
		t.Fatal(err)
	}
	again, _ := os.ReadFile(filepath.Join(dir, "README.md"))
	table := func(b []byte) string {
		s := string(b)
		return s[strings.Index(s, "| figure |"):strings.Index(s, "## Where")]
	}
	if table(first) != table(again) {
		t.Errorf("the figures changed:\n%s\n%s", table(first), table(again))
	}
	for _, want := range []string{"ratebench cloudflare -requests 20000 -sources 200\n", "## When is the counter this accurate?", "(search/disagreement.svg)"} {
		if !strings.Contains(string(again), want) {
			t.Errorf("README lacks %q", want)
		}
	}
	if !strings.Contains(string(again), timing+"\n") {
		t.Error("the full run's timing was not kept")
	}
	committed, err := summary.ReadSummaryFile("../../results/cloudflare/summary.json")
	if err != nil {
		t.Fatal(err)
	}
	if got := cloudflareCommand(committed); got != "ratebench cloudflare" {
		t.Errorf("the committed run's command reads %q", got)
	}
}
