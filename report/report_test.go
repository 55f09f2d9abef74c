package report

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"git.sr.ht/~sbinet/cmpimg"

	"ratebench/algorithms"
	"ratebench/compare"
	"ratebench/internal/escape"
	"ratebench/summary"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// small.summary.json was written by
//
//	ratebench compare -gen 'mix:poisson=0.5,boundary=0.25,early=0.25,requests=1500,keys=12' \
//	    -alg log,counter,fixed,token,gcra,buckets:2,buckets:8 -count accepted,all \
//	    -max-over 15% -max-under 25% -top 5
//
// sweep.summary.json by
//
//	ratebench compare -gen 'mix:poisson=0.6,boundary=0.4,requests=800,keys=6' \
//	    -alg log,counter,token -mode independent -sweep 'L=2,5;W=10s,30s' -top 3
//
// distributed.summary.json by
//
//	ratebench compare -gen 'mix:poisson=0.6,boundary=0.4,requests=800,keys=6' \
//	    -alg log,counter -mode independent -nodes 1,3 -sync 0,1s -skew 0,100ms -top 3
func readSummary(t *testing.T, name string) *summary.Summary {
	t.Helper()
	s, err := summary.ReadSummaryFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func write(t *testing.T, s *summary.Summary, opt Options) string {
	t.Helper()
	dir := t.TempDir()
	if err := Write(dir, s, opt); err != nil {
		t.Fatal(err)
	}
	return dir
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// goldenPNGs are the plots whose PNG is compared, within a tolerance,
// with a golden copy (the others only by their SVG, byte for byte).
var goldenPNGs = []string{"divergence_5-30s_accepted_independent", "frontier_5-30s_accepted_shadow"}

func TestGolden(t *testing.T) {
	s := readSummary(t, "small.summary.json")
	dir := write(t, s, Options{})
	gdir := filepath.Join("testdata", "golden")

	svgs, _ := filepath.Glob(filepath.Join(dir, PlotsDir, "*.svg"))
	files := []string{MarkdownFile}
	for _, p := range svgs {
		files = append(files, filepath.Join(PlotsDir, filepath.Base(p)))
	}
	if *update {
		os.RemoveAll(gdir)
		os.MkdirAll(gdir, 0o755)
		for _, f := range files {
			if err := os.WriteFile(filepath.Join(gdir, filepath.Base(f)), readFile(t, filepath.Join(dir, f)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		for _, name := range goldenPNGs {
			os.WriteFile(filepath.Join(gdir, name+".png"), readFile(t, filepath.Join(dir, PlotsDir, name+".png")), 0o644)
		}
	}

	// The same set of plots as the golden one.
	want, _ := filepath.Glob(filepath.Join(gdir, "*.svg"))
	var gotNames, wantNames []string
	for _, p := range svgs {
		gotNames = append(gotNames, filepath.Base(p))
	}
	for _, p := range want {
		wantNames = append(wantNames, filepath.Base(p))
	}
	if !slices.Equal(gotNames, wantNames) {
		t.Errorf("plots written:\n%s\nwant (testdata/golden):\n%s", strings.Join(gotNames, "\n"), strings.Join(wantNames, "\n"))
	}
	if len(gotNames) < 15 {
		t.Errorf("only %d plots", len(gotNames))
	}

	for _, f := range files {
		got := readFile(t, filepath.Join(dir, f))
		golden := filepath.Join(gdir, filepath.Base(f))
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Errorf("%v (go test ./report -update writes it)", err)
			continue
		}
		if !bytes.Equal(got, want) {
			gotPath := golden + ".got"
			os.WriteFile(gotPath, got, 0o644)
			t.Errorf("%s differs from the golden file at %s\n  diff -u %s %s\n(go test ./report -update rewrites the golden files)",
				f, firstDiff(want, got), golden, gotPath)
		}
	}

	for _, name := range goldenPNGs {
		got := readFile(t, filepath.Join(dir, PlotsDir, name+".png"))
		want := readFile(t, filepath.Join(gdir, name+".png"))
		if ok, err := cmpimg.EqualApprox("png", got, want, 0.1); !ok || err != nil {
			os.WriteFile(filepath.Join(gdir, name+".png.got"), got, 0o644)
			t.Errorf("%s.png differs from the golden file beyond cmpimg's tolerance (%v)", name, err)
		}
	}
	// Every SVG has its PNG.
	for _, p := range svgs {
		if _, err := os.Stat(strings.TrimSuffix(p, ".svg") + ".png"); err != nil {
			t.Error(err)
		}
	}
}

// firstDiff names the first line where got differs from want.
func firstDiff(want, got []byte) string {
	wl, gl := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return fmt.Sprintf("line %d:\n  want %.200q\n  got  %.200q", i+1, w, g)
		}
	}
	return "the end"
}

// TestDeterministic writes each summary twice: the .md, .html and .svg
// files must be byte-identical, and no temporary file may remain.
func TestDeterministic(t *testing.T) {
	for _, name := range []string{"small.summary.json", "sweep.summary.json"} {
		t.Run(name, func(t *testing.T) {
			a := write(t, readSummary(t, name), Options{NoPNG: true})
			b := write(t, readSummary(t, name), Options{NoPNG: true})
			fa, fb := listFiles(t, a), listFiles(t, b)
			if !slices.Equal(fa, fb) {
				t.Fatalf("files differ:\n%v\n%v", fa, fb)
			}
			for _, f := range fa {
				if strings.HasPrefix(filepath.Base(f), ".") || strings.Contains(f, ".tmp") {
					t.Errorf("temporary file left: %s", f)
				}
				if strings.HasSuffix(f, ".png") {
					t.Errorf("PNG written with NoPNG: %s", f)
				}
				if !bytes.Equal(readFile(t, filepath.Join(a, f)), readFile(t, filepath.Join(b, f))) {
					t.Errorf("%s differs between two writes", f)
				}
			}
		})
	}
}

func listFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(dir, path)
			out = append(out, rel)
		}
		return nil
	})
	slices.Sort(out)
	return out
}

func TestSweep(t *testing.T) {
	dir := write(t, readSummary(t, "sweep.summary.json"), Options{NoPNG: true})
	for _, f := range []string{"sweep-L_accepted_independent_W10s.svg", "sweep-L_accepted_independent_W30s.svg",
		"sweep-W_accepted_independent_L2.svg", "sweep-W_accepted_independent_L5.svg"} {
		if _, err := os.Stat(filepath.Join(dir, PlotsDir, f)); err != nil {
			t.Error(err)
		}
	}
	md := string(readFile(t, filepath.Join(dir, MarkdownFile)))
	for _, want := range []string{"## Sweep", "| rule | counter | token |", "](plots/sweep-W_accepted_independent_L5.svg)"} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q", want)
		}
	}

	// Rewriting another summary into the folder removes the plots the new
	// report does not show.
	if err := Write(dir, readSummary(t, "small.summary.json"), Options{NoPNG: true}); err != nil {
		t.Fatal(err)
	}
	if old, _ := filepath.Glob(filepath.Join(dir, PlotsDir, "sweep-*")); len(old) > 0 {
		t.Errorf("stale plots left: %v", old)
	}
}

var hostile = []string{"<script>alert(1)</script>", "a|b", "line\nbreak", "\xff\xfe", "*bold* _it_ [x](y) `c` # h \\ & ~s~"}

// A skip reason comes quoted from the reader that wrote it: the report
// escapes it once (a quoted "\n" stays \n, it does not become \\n), and
// is still safe whatever a hand-written summary puts in it.
func TestSkipReasonsEscapedOnce(t *testing.T) {
	s := readSummary(t, "small.summary.json")
	s.Trace.Skipped = 2
	s.Trace.SkippedExamples = []summary.SkipExample{
		{Line: 4, Reason: "ts " + strconv.Quote("a\nb\x1b") + " is not a number"},
		{Line: 9, Reason: "raw \x1b[2J\xff <script>|x"},
	}
	dir := write(t, s, Options{NoPNG: true})
	html := string(readFile(t, filepath.Join(dir, HTMLFile)))
	md := string(readFile(t, filepath.Join(dir, MarkdownFile)))
	for _, want := range []string{`ts &#34;a\nb\x1b&#34; is not a number`, `raw \x1b[2J\xff &lt;script&gt;|x`} {
		if !strings.Contains(html, want) {
			t.Errorf("report.html lacks %s", want)
		}
	}
	// In Markdown a backslash is written \\ and shows as one.
	for _, want := range []string{`ts "a\\nb\\x1b" is not a number`, `raw \\x1b\[2J\\xff \<script\>\|x`} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %s", want)
		}
	}
	if strings.Contains(html, `a\\nb`) || strings.Contains(md, `a\\\\nb`) {
		t.Error("a quoted skip reason is escaped twice")
	}
}

func TestEscaping(t *testing.T) {
	s := readSummary(t, "small.summary.json")
	s.Trace.Path = "<script>alert('path')</script>|x"
	s.Notes = append(s.Notes, "<img src=x onerror=alert(1)>")
	s.Trace.Skipped = 2
	s.Trace.SkippedExamples = []summary.SkipExample{{Line: 7, Reason: `key "<script>x</script>" is not valid UTF-8`}, {Row: 3, Reason: "cost 0 is not positive"}}
	s.Partial = true
	const evilAlg = "<b>evil|alg\n</b>"
	for i, a := range s.Config.Algorithms {
		if a == "buckets:8" {
			s.Config.Algorithms[i] = evilAlg
		}
	}
	for i := range s.Runs {
		r := &s.Runs[i]
		if r.Algorithm == "log" {
			continue
		}
		if r.Algorithm == "buckets:8" {
			r.Algorithm = evilAlg
		}
		for k := range r.TopKeys {
			r.TopKeys[k].Key = hostile[k%len(hostile)]
		}
		if r.Burst != nil {
			r.Burst.Key = hostile[0]
		}
	}
	dir := write(t, s, Options{NoPNG: true})
	html := string(readFile(t, filepath.Join(dir, HTMLFile)))
	md := string(readFile(t, filepath.Join(dir, MarkdownFile)))

	for _, raw := range []string{"<script", "<img"} {
		if strings.Contains(strings.ToLower(html), raw) {
			t.Errorf("report.html holds a raw %s", raw)
		}
		// In Markdown, \< is a literal <, and so is a < in a code span.
		if regexp.MustCompile(`(^|[^\\])` + raw).MatchString(outsideCodeSpans(md)) {
			t.Errorf("report.md holds a raw %s", raw)
		}
	}
	for _, want := range []string{"Skipped: 2 bad records", "line 7: ", "row 3: ", "cost 0 is not positive", "Partial: the replay was interrupted"} {
		if !strings.Contains(md, want) || !strings.Contains(html, want) {
			t.Errorf("the report does not say %q", want)
		}
	}
	for _, want := range []string{"&lt;script&gt;alert(1)&lt;/script&gt;", `line\nbreak`, `\xff\xfe`, "a|b"} {
		if !strings.Contains(html, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	for _, want := range []string{`\<script\>alert(1)\</script\>`, `line\\nbreak`, `\\xff\\xfe`, `a\|b`} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	svgs, _ := filepath.Glob(filepath.Join(dir, PlotsDir, "*.svg"))
	for _, p := range svgs {
		if svg := string(readFile(t, p)); strings.Contains(svg, "<b>") || strings.Contains(svg, "<script") {
			t.Errorf("%s holds raw markup from the summary", p)
		}
	}
	if !strings.Contains(html, "&lt;b&gt;evil|alg\\n&lt;/b&gt;") || !strings.Contains(md, "\\<b\\>evil\\|alg\\\\n\\</b\\>") {
		t.Error("the hostile algorithm name is not shown escaped")
	}
	if strings.Contains(html, "\xff") || strings.Contains(md, "\xff") {
		t.Error("invalid UTF-8 copied into the report")
	}

	// Every row of every Markdown table has as many cells as its header.
	lines := strings.Split(md, "\n")
	rows := 0
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "|") {
			continue
		}
		head := cells(lines[i])
		for i++; i < len(lines) && strings.HasPrefix(lines[i], "|"); i++ {
			if n := cells(lines[i]); n != head {
				t.Errorf("table row has %d cells, header %d: %s", n, head, lines[i])
			}
			rows++
		}
	}
	if rows == 0 || !strings.Contains(md, "| `counter` | \\<script") {
		t.Error("no table row holds the hostile keys")
	}
}

// cells counts the cells of a Markdown table row: the pipes not escaped
// by a backslash, less one.
func cells(line string) int {
	n := 0
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '\\':
			i++
		case '|':
			n++
		}
	}
	return n - 1
}

// TestDegenerate: summaries with nothing to compare, nothing to show or
// odd values still give a report, never an error.
func TestDegenerate(t *testing.T) {
	base := readSummary(t, "small.summary.json")
	only := func(algs ...string) *summary.Summary {
		s := *base
		s.Runs = nil
		for _, r := range base.Runs {
			if slices.Contains(algs, r.Algorithm) && r.Count == "accepted" {
				s.Runs = append(s.Runs, r)
			}
		}
		s.Config.Algorithms = algs
		return &s
	}
	zero := func(s *summary.Summary) *summary.Summary {
		for i := range s.Runs {
			r := &s.Runs[i]
			r.Disagree, r.Over, r.Under, r.DisagreeRate, r.OverRate, r.UnderRate = 0, 0, 0, 0, 0, 0
			r.KeysDisagree, r.KeysOver, r.KeysUnder = 0, 0, 0
			r.Phase.Over, r.Phase.Under = make([]int64, 20), make([]int64, 20)
			r.Timeline.Over, r.Timeline.Under = make([]int64, len(r.Timeline.Requests)), make([]int64, len(r.Timeline.Requests))
			r.RateError = nil
			r.TopKeys = nil
		}
		return s
	}
	weird := zero(only("log", "counter"))
	for i := range weird.Runs {
		r := &weird.Runs[i]
		r.Memory = summary.Memory{}
		r.Timeline = summary.Timeline{}
		r.Phase = summary.Phase{}
		r.Burst = nil
		r.RateError = &summary.RateError{Histogram: summary.ErrorHistogram{Lo: -2, Width: 0}}
	}
	cases := map[string]struct {
		s    *summary.Summary
		want []string
	}{
		"log only": {only("log"), []string{"Only the exact log was run"}},
		"no disagreement": {zero(only("log", "counter")), []string{
			"No candidate disagreed with the log, so there is no phase to show.",
			"No candidate disagreed with the log, so there is no timeline to show.",
			"No key saw a disagreement.",
			"](plots/divergence_5-30s_accepted_independent.svg)",
			"](plots/frontier_5-30s_accepted_independent.svg)",
		}},
		"no runs":      {&summary.Summary{Schema: summary.SchemaV1}, []string{"# ratebench report"}},
		"zero values":  {weird, []string{"Burst is not measured"}},
		"empty shadow": {zero(only("log", "counter", "token")), []string{"Rate error is measured only"}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			dir := write(t, c.s, Options{})
			md := string(readFile(t, filepath.Join(dir, MarkdownFile)))
			for _, w := range c.want {
				if !strings.Contains(md, w) {
					t.Errorf("report.md lacks %q", w)
				}
			}
			if strings.Contains(md, "NaN") || strings.Contains(md, "Inf") {
				t.Error("report.md shows NaN or Inf")
			}
			svgs, _ := filepath.Glob(filepath.Join(dir, PlotsDir, "*.svg"))
			for _, p := range svgs {
				b := readFile(t, p)
				if bytes.Contains(b, []byte("NaN")) || bytes.Contains(b, []byte("Inf")) {
					t.Errorf("%s holds NaN or Inf", p)
				}
				if _, err := os.Stat(strings.TrimSuffix(p, ".svg") + ".png"); err != nil {
					t.Error(err)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, HTMLFile)); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestLogScale: rates that span more than two decades are drawn on a log
// scale, zeros marked.
func TestLogScale(t *testing.T) {
	s := readSummary(t, "small.summary.json")
	for i := range s.Runs {
		r := &s.Runs[i]
		switch r.Algorithm {
		case "counter":
			r.OverRate, r.UnderRate = 0.00002, 0.3
		case "fixed":
			r.UnderRate = 0
		}
	}
	dir := write(t, s, Options{NoPNG: true})
	md := string(readFile(t, filepath.Join(dir, MarkdownFile)))
	if !strings.Contains(md, "so the scale is logarithmic") {
		t.Error("no log scale")
	}
	svg := string(readFile(t, filepath.Join(dir, PlotsDir, "divergence_5-30s_accepted_independent.svg")))
	if !strings.Contains(svg, "log scale") || strings.Contains(svg, "NaN") {
		t.Error("log-scale divergence plot is wrong")
	}
}

// decisionOf returns the decision section of the first rule for a count
// policy's basis.
func decisionOf(md, label string) string {
	i := strings.Index(md, "### Decision")
	j := strings.Index(md[i:], "\n### count")
	sec := md[i : i+j]
	if k := strings.Index(sec, "#### Deciding on "+label); k >= 0 {
		sec = sec[k:]
		if e := strings.Index(sec[4:], "#### "); e >= 0 {
			sec = sec[:e+4]
		}
	}
	return sec
}

func TestDecision(t *testing.T) {
	s := readSummary(t, "small.summary.json")
	rate := func(v float64) *float64 { return &v }

	// The cheapest meeting the budget, worked out here independently.
	cheapest := func(count string, maxOver, maxUnder float64) string {
		var best *summary.Run
		for i := range s.Runs {
			r := &s.Runs[i]
			if r.Count != count || r.Mode != "independent" || r.OverRate > maxOver || r.UnderRate > maxUnder {
				continue
			}
			if best == nil || r.Memory.PeakPerKey < best.Memory.PeakPerKey ||
				(r.Memory.PeakPerKey == best.Memory.PeakPerKey && r.Disagree < best.Disagree) {
				best = r
			}
		}
		return best.Algorithm
	}

	t.Run("from the summary", func(t *testing.T) {
		md := string(readFile(t, filepath.Join(write(t, s, Options{NoPNG: true}), MarkdownFile)))
		want := cheapest("accepted", 0.15, 0.25)
		if want == "log" {
			t.Fatal("test data: only the log meets the budget")
		}
		sec := decisionOf(md, "count accepted, mode independent")
		if !strings.Contains(sec, "Choose **"+escape.Markdown(want)+"** (") || !strings.Contains(sec, "the cheapest algorithm that meets the budget") {
			t.Errorf("decision does not name %s:\n%s", want, sec)
		}
		if !strings.Contains(md, "Budget (from the summary): over ≤ 15.00%, under ≤ 25.00%") {
			t.Error("budget not stated")
		}
	})

	t.Run("override", func(t *testing.T) {
		opt := Options{NoPNG: true, Budget: &summary.Budget{MaxOver: rate(0.25)}}
		md := string(readFile(t, filepath.Join(write(t, s, opt), MarkdownFile)))
		want := cheapest("accepted", 0.25, 0.25)
		sec := decisionOf(md, "count accepted, mode independent")
		if !strings.Contains(sec, "Choose **"+escape.Markdown(want)+"** (") || !strings.Contains(sec, "the cheapest algorithm that meets the budget") {
			t.Errorf("decision does not name %s:\n%s", want, sec)
		}
		if !strings.Contains(md, "Budget (given to the report): over ≤ 25.00%, under ≤ 25.00%") {
			t.Error("overridden budget not stated")
		}
	})

	t.Run("none", func(t *testing.T) {
		opt := Options{NoPNG: true, Budget: &summary.Budget{MaxOver: rate(0.0001), MaxUnder: rate(0.0001)}}
		md := string(readFile(t, filepath.Join(write(t, s, opt), MarkdownFile)))
		for _, label := range []string{"count accepted, mode independent", "count all, mode independent"} {
			if sec := decisionOf(md, label); !strings.Contains(sec, "Choose **the exact log** (") || !strings.Contains(sec, "no cheaper algorithm meets the budget") {
				t.Errorf("%s: decision does not say none meets the budget:\n%s", label, sec)
			}
		}
		if regexp.MustCompile(`\| \*\*yes\*\* \|`).FindAllStringIndex(md, -1) == nil {
			t.Error("the log is not marked as meeting the budget")
		}
	})

	t.Run("no budget", func(t *testing.T) {
		s2 := *s
		s2.Config.Budget = nil
		md := string(readFile(t, filepath.Join(write(t, &s2, Options{NoPNG: true}), MarkdownFile)))
		if !strings.Contains(md, "No budget was given: the default tolerances apply") || !strings.Contains(md, "no cheaper algorithm is within the default tolerances") || !strings.Contains(md, "Frontier, where") {
			t.Errorf("no-budget decision:\n%s", decisionOf(md, ""))
		}
	})

	t.Run("ranking", func(t *testing.T) {
		md := string(readFile(t, filepath.Join(write(t, s, Options{NoPNG: true}), MarkdownFile)))
		sec := decisionOf(md, "count accepted, mode independent")
		var order []string
		for _, m := range regexp.MustCompile("(?m)^\\| \\d+ \\| `([^`]+)` \\| [^|]+ \\| (\\d+) B").FindAllStringSubmatch(sec, -1) {
			order = append(order, m[1]+"/"+m[2])
		}
		want := []string{"gcra/8", "token/16", "fixed/16", "counter/24", "buckets:2/32", "log/48", "buckets:8/80"}
		if !slices.Equal(order, want) {
			t.Errorf("ranking %v, want %v", order, want)
		}
	})
}

// Every plot a report writes is of a kind removeStale knows, so that a
// report rewritten from another summary leaves no stale plot behind.
func TestPlotKindsCoverEveryPlot(t *testing.T) {
	for _, name := range []string{"small.summary.json", "sweep.summary.json", "distributed.summary.json"} {
		dir := write(t, readSummary(t, name), Options{NoPNG: true})
		files, _ := filepath.Glob(filepath.Join(dir, PlotsDir, "*"))
		for _, f := range files {
			base := filepath.Base(f)
			if !slices.ContainsFunc(plotKinds, func(k string) bool { return strings.HasPrefix(base, k) }) {
				t.Errorf("%s: plot %s is of no kind in plotKinds", name, base)
			}
		}
		if len(files) < 5 {
			t.Errorf("%s: %d plots", name, len(files))
		}
	}
}

// A rate error quantile beyond the histogram's ±2L is a lower bound, and
// reads "≥ 2", whether the summary marks it or, written before the mark
// existed, gave the maximum there.
func TestRateErrorBoundRendersAsBound(t *testing.T) {
	s := readSummary(t, "small.summary.json")
	var marked, old, plain string
	for i := range s.Runs {
		r := &s.Runs[i]
		if r.RateError == nil || r.Count != "all" {
			continue
		}
		e := r.RateError
		switch r.Algorithm {
		case "counter": // as written now: the bound 2, marked
			e.P50, e.P50Frac, e.P50AtLeast = 10, 2, true
			e.P99, e.P99Frac, e.P99AtLeast = 10, 2, true
			e.MaxAbs, e.MaxAbsFrac = 31, 6.2
			marked = "| `counter` |"
		case "fixed": // as written before: the maximum, 6.2 L
			e.P99, e.P99Frac, e.MaxAbs, e.MaxAbsFrac = 31, 6.2, 31, 6.2
			old = "| `fixed` |"
		case "buckets:2":
			plain = "| `buckets:2` |"
		}
	}
	md := string(readFile(t, filepath.Join(write(t, s, Options{}), MarkdownFile)))
	// The rate error table of the count-all runs: the last one.
	sec := md[strings.LastIndex(md, "#### Rate error"):]
	sec = sec[:strings.Index(sec[1:], "####")+1]
	row := func(prefix string) string {
		i := strings.Index(sec, prefix)
		if i < 0 {
			t.Fatalf("no row %q in\n%s", prefix, sec)
		}
		return sec[i : i+strings.Index(sec[i:], "\n")]
	}
	if r := row(marked); !strings.Contains(r, "| ≥ 2 | ≥ 2 | 31 | 6.2 |") {
		t.Errorf("marked bounds: %s", r)
	}
	if r := row(old); !strings.Contains(r, "| ≥ 2 | 31 | 6.2 |") || strings.Contains(r, "| 6.2 | 31 |") {
		t.Errorf("an old summary's bound: %s", r)
	}
	if r := row(plain); strings.Contains(r, "≥") {
		t.Errorf("figures within the range read as bounds: %s", r)
	}
	if !strings.Contains(md, "between 2L and the maximum: it reads ≥ 2.") {
		t.Error("the report does not say what ≥ 2 means")
	}
}

// A layered rule has no rate error even in shadow mode, and the report
// says so rather than that rate error needs shadow mode.
func TestLayeredRuleHasNoRateError(t *testing.T) {
	var layers []algorithms.Rule
	for _, r := range []string{"2/1s", "5/1m"} {
		l, err := algorithms.ParseRule(r)
		if err != nil {
			t.Fatal(err)
		}
		layers = append(layers, l)
	}
	e, err := compare.New(compare.Config{Layered: [][]algorithms.Rule{layers}, Algorithms: []string{"counter", "fixed"}, Modes: []compare.Mode{compare.Shadow}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 40 {
		if err := e.Add([]byte("k"), int64(i)*700_000_000, 1); err != nil {
			t.Fatal(err)
		}
	}
	s := e.Summary(summary.TraceInfo{Path: "t.csv", Format: "csv"})
	for _, r := range s.Runs {
		if r.RateError != nil {
			t.Errorf("%s %s: a rate error for a layered rule", r.Mode, r.Algorithm)
		}
	}
	md := string(readFile(t, filepath.Join(write(t, s, Options{NoPNG: true}), "report.md")))
	if !strings.Contains(md, "A layered rule has no rate error") || strings.Contains(md, "Rate error is measured only where") {
		t.Errorf("the report does not say that a layered rule has no rate error")
	}
}

// The report says how the timestamps were read and warns, from the summary
// alone, when the trace's times look read in the wrong unit; a generated
// trace never warns.
func TestTimestampUnitAndWarnings(t *testing.T) {
	s := readSummary(t, "small.summary.json")
	md := string(readFile(t, filepath.Join(write(t, s, Options{NoPNG: true}), MarkdownFile)))
	if strings.Contains(md, "Warning") || strings.Contains(md, "Timestamps:") {
		t.Error("a generated trace's report warns or names a unit")
	}
	s.Trace.Format, s.Trace.TSUnit, s.Trace.TSUnitFrom = "csv", "ns", "explicit"
	s.Trace.StartNS, s.Trace.EndNS = 1431857112, 1431857112+86400
	s.Schema = summary.SchemaOf(s)
	dir := write(t, s, Options{NoPNG: true})
	md = string(readFile(t, filepath.Join(dir, MarkdownFile)))
	html := string(readFile(t, filepath.Join(dir, HTMLFile)))
	for _, want := range []string{
		"Timestamps: ns (-ts-unit ns)",
		"Warning: times from 1970-01-01T00:00:01.431857112Z to 1970-01-01T00:00:01.431943512Z fall before 1990: read as ns (explicit); as s they would be 2015-05-17T10:05:12Z to 2015-05-18T10:05:12Z: try -ts-unit s",
		"Warning: the trace spans 86.4µs, less than the 30s window of rule 5/30s, which never fills: read as ns (explicit); as s it would span 24h0m0s: try -ts-unit s",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q", want)
		}
		if !strings.Contains(html, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
}
