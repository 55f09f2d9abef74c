package main

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"ratebench/internal/numfmt"
	"ratebench/summary"
)

// wholeSecondCSV writes a CSV of whole Unix seconds: 10 minutes of 5
// keys, each sending 0 to 15 requests in a second, so that 10/1s binds;
// with ns, the requests of a second are spread over it in order instead.
func wholeSecondCSV(t *testing.T, ns bool) string {
	rng := rand.New(rand.NewPCG(4, 4))
	var b strings.Builder
	b.WriteString("ts,key\n")
	for s := int64(1431857112); s < 1431857112+600; s++ {
		var n int64
		for k := range 5 {
			for range rng.IntN(16) {
				if ns {
					fmt.Fprintf(&b, "%d,k%d\n", s*1e9+n*11e6+rng.Int64N(1e6), k)
				} else {
					fmt.Fprintf(&b, "%d,k%d\n", s, k)
				}
				n++
			}
		}
	}
	path := filepath.Join(t.TempDir(), "secs.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// compareInto runs compare on path into a new folder and returns its
// summary, its report.md and compare's stderr.
func compareInto(t *testing.T, path string, args ...string) (*summary.Summary, string, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "out")
	args = append([]string{"compare", "-trace", path, "-alg", "counter,token", "-png=false", "-o", dir}, args...)
	_, stderr, err := ratebench(t, args...)
	if err != nil {
		t.Fatalf("%v: %v\n%s", args, err, stderr)
	}
	s, err := summary.ReadSummaryFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	return s, string(md), stderr
}

const resolutionWarns = "the timestamps are whole multiples of 1s, coarser than 100ms, the gap between requests at the limit of 10/1s"

// A whole-second trace under 10/1s warns about its resolution, on stderr,
// in the summary's warnings and in the report, with and without -spread:
// spread, the warning says so, the summary records it and the figures
// differ; the figures of the times as read stay.
func TestCompareWholeSecondsWarnsOfResolution(t *testing.T) {
	path := wholeSecondCSV(t, false)
	plain, md, stderr := compareInto(t, path, "-rule", "10/1s", "-placements", "0")
	if !strings.Contains(stderr, "warning: "+resolutionWarns) || !strings.Contains(stderr, "compare replays it with each request placed at random inside the unit of its timestamp") {
		t.Errorf("stderr:\n%s", stderr)
	}
	tr := plain.Trace
	if tr.ResolutionNS != 1e9 || tr.SameTime == 0 || tr.SameTime > tr.Requests-tr.Keys || tr.Spread != nil {
		t.Fatalf("trace %+v", tr)
	}
	if ws := plain.Warnings(); len(ws) != 1 || !strings.Contains(ws[0], resolutionWarns) {
		t.Errorf("warnings %q", ws)
	}
	if !strings.Contains(md, "Warning: "+resolutionWarns) || !strings.Contains(md, "Resolution: every time a multiple of 1s; ") {
		t.Errorf("report.md lacks the resolution:\n%s", md)
	}

	spread, md, stderr := compareInto(t, path, "-rule", "10/1s", "-spread", "-spread-seed", "3")
	if !strings.Contains(stderr, "warning: "+resolutionWarns) || !strings.Contains(stderr, "the times were spread at random inside their 1s (-spread)") {
		t.Errorf("stderr under -spread:\n%s", stderr)
	}
	st := spread.Trace
	if st.ResolutionNS != tr.ResolutionNS || st.SameTime != tr.SameTime || st.Spread == nil || st.Spread.Seed != 3 || st.Requests != tr.Requests {
		t.Fatalf("trace under -spread %+v, without %+v", st, tr)
	}
	if !strings.Contains(md, "the times were spread") || !strings.Contains(md, "Spread: each request placed at random inside its 1s before the replay (-spread -spread-seed 3)") {
		t.Errorf("report.md under -spread:\n%s", md)
	}
	same := true
	for i := range plain.Runs {
		p, s := plain.Runs[i], spread.Runs[i]
		same = same && p.Admitted == s.Admitted && p.Over == s.Over && p.Under == s.Under
	}
	if same {
		t.Error("-spread gives the figures of the times as read")
	}
}

// -spread is deterministic for a seed, and shards of a spread replay
// merge into the whole one.
func TestCompareSpreadIsDeterministic(t *testing.T) {
	path := wholeSecondCSV(t, false)
	dirs := map[string]string{}
	for _, run := range []struct {
		name string
		args []string
	}{
		{"a", []string{"-spread", "-spread-seed", "5"}},
		{"b", []string{"-spread", "-spread-seed", "5", "-workers", "2"}},
		{"other", []string{"-spread", "-spread-seed", "6"}},
		{"shard0", []string{"-spread", "-spread-seed", "5", "-shard", "0/2"}},
		{"shard1", []string{"-spread", "-spread-seed", "5", "-shard", "1/2"}},
	} {
		dir := filepath.Join(t.TempDir(), run.name)
		args := append([]string{"compare", "-trace", path, "-rule", "10/1s", "-alg", "counter,token", "-report=false", "-o", dir}, run.args...)
		if _, stderr, err := ratebench(t, args...); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, stderr)
		}
		dirs[run.name] = dir
	}
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(dirs[name], "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if !bytes.Equal(read("a"), read("b")) {
		t.Error("two replays of one seed differ")
	}
	if bytes.Equal(read("a"), read("other")) {
		t.Error("two seeds give the same summary")
	}
	merged := filepath.Join(t.TempDir(), "merged")
	if _, stderr, err := ratebench(t, "merge", "-o", merged, "-report=false", dirs["shard0"], dirs["shard1"]); err != nil {
		t.Fatalf("merge: %v\n%s", err, stderr)
	}
	m, err := summary.ReadSummaryFile(filepath.Join(merged, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	whole, err := summary.ReadSummaryFile(filepath.Join(dirs["a"], "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if m.Trace.ResolutionNS != whole.Trace.ResolutionNS || m.Trace.SameTime != whole.Trace.SameTime || m.Trace.Spread == nil ||
		m.Runs[1].Over != whole.Runs[1].Over || m.Runs[1].Under != whole.Runs[1].Under {
		t.Errorf("merged shards %+v, over %d under %d; whole %+v, over %d under %d",
			m.Trace, m.Runs[1].Over, m.Runs[1].Under, whole.Trace, whole.Runs[1].Over, whole.Runs[1].Under)
	}
}

// A trace of nanosecond times does not warn, in compare or inspect; a
// whole-second one warns in inspect for the rule given.
func TestNanosecondTraceDoesNotWarn(t *testing.T) {
	ns := wholeSecondCSV(t, true)
	s, md, stderr := compareInto(t, ns, "-rule", "10/1s")
	if strings.Contains(stderr, "warning") || strings.Contains(md, "Warning") || s.Trace.ResolutionNS >= 1e6 {
		t.Errorf("resolution %d ns; stderr:\n%s", s.Trace.ResolutionNS, stderr)
	}
	out, _, err := ratebench(t, "inspect", "-rule", "10/1s", ns)
	if err != nil || strings.Contains(out, "warning") || !strings.Contains(out, "resolution every time a multiple of ") {
		t.Errorf("inspect of ns: %v\n%s", err, out)
	}
	out, _, err = ratebench(t, "inspect", "-rule", "10/1s", wholeSecondCSV(t, false))
	if err != nil || !strings.Contains(out, "warning    "+resolutionWarns) || !strings.Contains(out, "resolution every time a multiple of 1s; ") {
		t.Errorf("inspect of whole seconds: %v\n%s", err, out)
	}
}

// -spread-seed wants -spread, and -spread a file it can read twice.
func TestSpreadUsage(t *testing.T) {
	path := wholeSecondCSV(t, false)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"compare", "-spread-seed", "3", path}, "-spread-seed is for -spread"},
		{[]string{"compare", "-spread", "-gen", "population:requests=100,sources=5"}, "-spread reads the trace twice"},
		{[]string{"compare", "-spread", "-"}, "-spread reads the trace twice"},
	} {
		_, _, err := ratebench(t, append(tc.args, "-o", filepath.Join(t.TempDir(), "out"))...)
		var ue usageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want a usage error %q", tc.args, err, tc.want)
		}
	}
}

// sameTimePercent reads the share inspect gives of the requests at their
// key's previous time.
var sameTimePercent = regexp.MustCompile(`(?m)^resolution +every time a multiple of 1s; (at least )?([0-9.]+%) of the requests at their key's previous time`)

// inspect and compare count the requests at their key's previous time
// alike, in each key's time order (what a replay with the -reorder the
// trace needs sees), also on a trace whose keys' times go back as read:
// many keys interleaved, each repeating itself within a second, the lines
// written up to 3 s late. At 1/1s the log refuses exactly those requests.
// Read from standard input, which inspect cannot read twice, the share
// of the file's order is said to be a lower bound.
func TestInspectAndCompareAgreeOnSameTime(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	type line struct{ ts, key int }
	var lines []line
	for s := 1431857112; s < 1431857112+300; s++ {
		for range 1 + rng.IntN(20) {
			k := rng.IntN(40)
			for range 1 + rng.IntN(3) {
				lines = append(lines, line{s, k})
			}
		}
	}
	for i := range lines { // written up to 3 s late: a key's times go back
		j := min(len(lines)-1, i+rng.IntN(60))
		if lines[j].ts-lines[i].ts <= 3 {
			lines[i], lines[j] = lines[j], lines[i]
		}
	}
	var b strings.Builder
	b.WriteString("ts,key\n")
	for _, l := range lines {
		fmt.Fprintf(&b, "%d,k%d\n", l.ts, l.key)
	}
	path := filepath.Join(t.TempDir(), "late.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}

	out, _, err := ratebench(t, "inspect", path)
	if err != nil || !strings.Contains(out, "NOT ordered") {
		t.Fatalf("inspect: %v\n%s", err, out)
	}
	m := sameTimePercent.FindStringSubmatch(out)
	if m == nil || m[1] != "" {
		t.Fatalf("inspect gives no exact same-time share:\n%s", out)
	}
	for _, spread := range []bool{false, true} {
		dir := filepath.Join(t.TempDir(), "out")
		args := []string{"compare", "-trace", path, "-reorder", "1m", "-rule", "1/1s", "-alg", "log", "-mode", "independent", "-png=false", "-o", dir}
		if spread {
			args = append(args, "-spread")
		} else {
			args = append(args, "-placements", "0") // the log's refusals on the recorded clock
		}
		if _, stderr, err := ratebench(t, args...); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, stderr)
		}
		s, err := summary.ReadSummaryFile(filepath.Join(dir, "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		tr := s.Trace
		if want := numfmt.PercentOf(tr.SameTime, tr.Requests); m[2] != want {
			t.Errorf("spread %v: inspect says %s of the requests at their key's previous time, compare %s (%d of %d)", spread, m[2], want, tr.SameTime, tr.Requests)
		}
		if log := s.Runs[0]; !spread && log.Rejected != tr.SameTime {
			t.Errorf("the log refuses %d at 1/1s, compare counts %d at their key's previous time", log.Rejected, tr.SameTime)
		}
	}

	withStdin(t, path, func() { out, _, err = ratebench(t, "inspect", "-format", "csv", "-") })
	if err != nil {
		t.Fatalf("inspect -: %v\n%s", err, out)
	}
	if m := sameTimePercent.FindStringSubmatch(out); m == nil || m[1] != "at least " {
		t.Errorf("inspect of standard input gives no lower bound:\n%s", out)
	}
}
