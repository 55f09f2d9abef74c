package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"ratebench/compare/resultsdir/resultsdirtest"
	"ratebench/experiments/cloudflare"
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
	s, err := cloudflare.ReadSearch(filepath.Dir(filepath.Join(t.TempDir(), "x")))
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
	s, err := cloudflare.ReadSearch(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Points) != 1 || s.Points[0].Block != "10m" || s.Points[0].Rate != 0.5 || s.Points[0].Algorithm != "counter" ||
		s.Points[0].Requests != 20000 || s.Sources != 30 || s.Scale != 9000 || s.Count != "all" {
		t.Errorf("%+v", s)
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
	timing := traceLine(string(first)) // its end, from " Wall time ", is the full run's timing
	if !strings.Contains(timing, " Wall time ") || !strings.HasSuffix(timing, ".") {
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
	if traceLine(string(again)) != timing {
		t.Error("the full run's timing was not kept")
	}
}

// traceLine returns the "Trace: " line of a Cloudflare page.
func traceLine(page string) string {
	for _, line := range strings.Split(page, "\n") {
		if strings.HasPrefix(line, "Trace: ") {
			return line
		}
	}
	return ""
}

// A search into a folder that holds a compare's results is refused
// without -force, before it replays anything, and leaves the folder as it
// was; with -force it writes its own set beside the compare's other files.
func TestSearchIntoAnotherRunsFolder(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := ratebench(t, "compare", "-trace", "testdata/small.csv", "-alg", "log,counter", "-png=false", "-o", dir); err != nil {
		t.Fatal(err)
	}
	before := resultsdirtest.Files(t, dir)
	args := []string{"cloudflare", "-search", "rate=0.5;alpha=4;max=3", "-requests", "5000", "-sources", "20", "-o", dir}
	_, stderr, err := ratebench(t, args...)
	if err == nil || !strings.Contains(err.Error(), dir+" holds the results of another run: its summary.json is a compare (or merge)'s, not a Cloudflare search's; use -force") {
		t.Errorf("search over a compare's results: %v", err)
	}
	if strings.Contains(stderr, "searching") {
		t.Error("the search began before it was refused")
	}
	sameFiles(t, dir, before)
	if l := resultsdirtest.Leftovers(dir); len(l) > 0 {
		t.Errorf("left behind: %v", l)
	}
	if _, _, err := ratebench(t, append(args, "-force")...); err != nil {
		t.Fatalf("with -force: %v", err)
	}
	if s, err := cloudflare.ReadSearch(dir); err != nil || len(s.Points) != 1 || strings.Contains(s.Command, "force") {
		t.Errorf("with -force: %+v, %v", s, err)
	}
}

// Ctrl-C during a search (after its first point, as its progress says)
// stops it, exits 1, keeps the points done for a rerun to resume from, and
// leaves the folder's summary, lock and staging as they were: none.
func TestInterruptedSearchKeepsItsPoints(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	dir := t.TempDir()
	bin := buildCommand(t, dir)
	out := filepath.Join(dir, "out")
	cmd := exec.Command(bin, "cloudflare", "-search", "rate=0.5;alpha=4;max=2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21;block=0,1m",
		"-requests", "200000", "-sources", "40", "-workers", "1", "-o", out)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	killer := time.AfterFunc(60*time.Second, func() { cmd.Process.Kill() })
	defer killer.Stop()
	sc := bufio.NewScanner(stderr)
	var said strings.Builder
	for sc.Scan() {
		said.WriteString(sc.Text() + "\n")
		if strings.HasPrefix(sc.Text(), "search: 1 of 40 points done (") {
			break
		}
	}
	if !strings.Contains(said.String(), "searching 40 points into "+out+", each 200000 requests from 40 sources: 8000000 requests in all, 1 points at a time") {
		t.Errorf("the cost was not said before the search: %q", said.String())
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	for sc.Scan() {
		said.WriteString(sc.Text() + "\n")
	}
	err = cmd.Wait()
	if exit, ok := err.(*exec.ExitError); !ok || exit.ExitCode() != 1 || !strings.Contains(said.String(), "of 40 points: "+filepath.Join(out, cloudflare.PartialFile)+" keeps the points done") {
		t.Errorf("exit %v, stderr %q", err, said.String())
	}
	data, err := os.ReadFile(filepath.Join(out, cloudflare.PartialFile))
	if err != nil {
		t.Fatal(err)
	}
	var kept summary.CloudflareSearch
	if err := json.Unmarshal(data, &kept); err != nil || len(kept.Points) < 1 || len(kept.Points) >= 40 {
		t.Errorf("kept %d points: %v", len(kept.Points), err)
	}
	if _, err := os.Stat(filepath.Join(out, summaryFile)); err == nil {
		t.Error("an interrupted search wrote its summary")
	}
	if l := resultsdirtest.Leftovers(out); len(l) > 0 {
		t.Errorf("left behind: %v", l)
	}
}

// A grid of more points than a search runs is refused at once, naming the
// flag and the limit.
func TestSearchGridIsBounded(t *testing.T) {
	var maxes []string
	for i := range 101 {
		maxes = append(maxes, strconv.Itoa(i+2))
	}
	grid := "rate=0.1,0.2,0.3,0.4,0.5;alpha=2,3;max=" + strings.Join(maxes, ",")
	_, stderr, err := ratebench(t, "cloudflare", "-search", grid, "-o", t.TempDir())
	var ue usageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "-search: the search grid has 1010 points, more than the 1000 a search runs") {
		t.Errorf("got %v", err)
	}
	if strings.Contains(stderr, "searching") {
		t.Error("the search began")
	}
}

// A grid whose alg axis names the reference or no candidate, or that
// gives an axis or a value twice, is a usage error before any replay,
// naming what is wrong; the results folder is not made (no lock, no
// staging folder left behind).
func TestSearchGridRefusedBeforeReplay(t *testing.T) {
	for grid, want := range map[string]string{
		"L=5;alg=log":                     "alg log is the reference",
		"alg=log:block=1m":                "alg log:block=1m is the reference",
		"alg=counter:block=1m;block=0,1m": "alg counter:block=1m has a timeout of its own",
		"L=5;L=6":                         "axis L is given twice",
		"rate=0.2;rate=0.5":               "axis rate is given twice",
		"alg=counter,counter":             "gives alg counter twice",
		"L=5,5":                           "limit 5 is given twice",
		"block=0,none":                    "gives block none (no timeout) twice",
	} {
		dir := filepath.Join(t.TempDir(), "X")
		_, stderr, err := ratebench(t, "cloudflare", "-search", grid, "-requests", "1000", "-sources", "10", "-o", dir)
		var ue usageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want a usage error saying %q", grid, err, want)
		}
		if strings.Contains(stderr, "searching") {
			t.Errorf("%s: the search began", grid)
		}
		if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: the results folder was made (%v)", grid, err)
		}
	}
}

// cloudflare -readme on a folder it did not write (a compare's) is
// refused, naming the summary and why, and writes nothing.
func TestCloudflareReadmeRefusesAnotherFolder(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := ratebench(t, "compare", "-gen", "population:requests=2000,sources=20", "-alg", "log,counter", "-report=false", "-o", dir); err != nil {
		t.Fatal(err)
	}
	before := resultsdirtest.Files(t, dir)
	_, _, err := ratebench(t, "cloudflare", "-readme", "-o", dir)
	want := filepath.Join(dir, summaryFile) + " is not the summary of ratebench cloudflare (it is not of both counting policies and both modes): cloudflare -readme describes only its results folder"
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
	sameFiles(t, dir, before)
	if _, _, err := ratebench(t, "compare", "-trace", "testdata/small.csv", "-alg", "log,counter", "-count", "accepted,all", "-report=false", "-force", "-o", dir); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ratebench(t, "cloudflare", "-readme", "-o", dir); err == nil || !strings.Contains(err.Error(), "(its trace is testdata/small.csv, not a generated population)") {
		t.Errorf("a trace file's folder: %v", err)
	}
}

// -full replays the search's own points: a flag that sets a point is
// refused, and a folder without a search is named.
func TestCloudflareFullFlags(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := ratebench(t, "cloudflare", "-full", "-rate", "0.2", "-o", dir); err == nil || !strings.Contains(err.Error(), "-full replays the search's own points: -rate does not apply") {
		t.Errorf("-full -rate: %v", err)
	}
	if _, _, err := ratebench(t, "cloudflare", "-full", "-requests", "4000", "-sources", "10", "-o", dir); err == nil || !strings.Contains(err.Error(), "holds no search") {
		t.Errorf("-full without a search: %v", err)
	}
}
