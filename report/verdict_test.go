package report

import (
	"slices"
	"strings"
	"testing"

	"ratebench/report/markup"
	"ratebench/summary"
)

// verdictSummary is one rule, count accepted, independent mode, of 100,000
// requests of which the log refuses 10,000; each run is given as
// algorithm, peak bytes per key, over and under.
func verdictSummary(runs ...any) *summary.Summary {
	const n = 100000
	s := &summary.Summary{Config: summary.RunConfig{Rules: []string{"5/30s"}, Counts: []string{"accepted"}, Modes: []string{"independent"}}}
	for i := 0; i < len(runs); i += 4 {
		over, under := int64(runs[i+2].(int)), int64(runs[i+3].(int))
		r := summary.Run{Rule: "5/30s", Count: "accepted", Mode: "independent", Algorithm: runs[i].(string),
			Requests: n, Over: over, Under: under, Disagree: over + under, Keys: 10,
			OverRate: float64(over) / n, UnderRate: float64(under) / n, DisagreeRate: float64(over+under) / n}
		if r.Algorithm == "log" {
			r.Rejected, r.Admitted = verdictLogRefused, n-verdictLogRefused
		}
		r.Memory.PeakPerKey = int64(runs[i+1].(int))
		s.Config.Algorithms = append(s.Config.Algorithms, r.Algorithm)
		s.Runs = append(s.Runs, r)
	}
	summary.FillLogTerms(s.Runs)
	return s
}

// verdictLogRefused is how many of verdictSummary's requests the log
// refuses.
const verdictLogRefused = 10000

// The runs every case shares: gcra refuses the fewest legitimate clients,
// counter lets the least traffic through; token and fixed are beaten by
// gcra, buckets:4 costs what the log does.
var verdictBase = []any{
	"log", 48, 0, 0,
	"gcra", 8, 5000, 10,
	"token", 16, 5000, 10,
	"fixed", 16, 6000, 2500,
	"counter", 24, 20, 4000,
	"buckets:4", 48, 500, 600,
}

func verdictLinesOf(t *testing.T, s *summary.Summary, opt Options) []string {
	t.Helper()
	m := newModel(s, opt)
	vs := m.verdicts()
	if len(vs) != 1 {
		t.Fatalf("%d verdicts, want 1", len(vs))
	}
	var out []string
	for _, l := range vs[0].lines {
		out = append(out, markup.Plain(l))
	}
	return out
}

func wantLines(t *testing.T, got []string, want ...string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("verdict:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// With no budget, an approximation cheaper than the log and within 0.1% of
// its decisions is chosen; the frontier, each priority's pick and the
// dominated (by what) follow.
func TestVerdictNoBudget(t *testing.T) {
	s := verdictSummary(append(slices.Clone(verdictBase), "buckets:2", 32, 60, 30)...)
	wantLines(t, verdictLinesOf(t, s, Options{}),
		"Choose buckets:2 (32 B per key; over 0.060% (0.600% of the log's refusals), under 0.030% (0.033% of its admissions)): the cheapest algorithm within the default tolerances of the exact log (0.090% of the requests decided differently).",
		"Frontier, where no other algorithm needs less memory, over-admits less and under-admits less at once: gcra (8 B per key; over 5.00% (50.00% of the log's refusals), under 0.010% (0.011% of its admissions)), counter (24 B per key; over 0.020% (0.200% of the log's refusals), under 4.00% (4.44% of its admissions)), buckets:2 (32 B per key; over 0.060% (0.600% of the log's refusals), under 0.030% (0.033% of its admissions)), log (48 B per key; exact).",
		"Refusing a legitimate client is costly → the least under-admission: gcra (8 B per key; over 5.00% (50.00% of the log's refusals), under 0.010% (0.011% of its admissions)).",
		"Letting traffic through is dangerous → the least over-admission: counter (24 B per key; over 0.020% (0.200% of the log's refusals), under 4.00% (4.44% of its admissions)).",
		"Cheapest within 0.1% of the log's decisions: buckets:2 (32 B per key; over 0.060% (0.600% of the log's refusals), under 0.030% (0.033% of its admissions); 0.090% decided differently).",
		"Dominated: token (gcra is cheaper and no worse on over and under); fixed (gcra is cheaper and no worse on over and under); buckets:4 (48 B per key, as much memory as the exact log, and not exact).",
	)
}

// When the closest approximation costs as much memory as the exact log,
// the verdict says to use the log.
func TestVerdictLogAsCheap(t *testing.T) {
	s := verdictSummary(verdictBase...)
	got := verdictLinesOf(t, s, Options{})
	wantLines(t, got[:1],
		"Choose the exact log (48 B per key): at this limit the exact log is as cheap as its approximations: use it. "+
			"The closest approximation, buckets:4, needs 48 B per key and still decides 1.10% of the requests differently.")
	wantLines(t, got[4:],
		"Cheapest within 0.1% of the log's decisions: the exact log (48 B per key): no cheaper approximation is that close.",
		"Dominated: token (gcra is cheaper and no worse on over and under); fixed (gcra is cheaper and no worse on over and under); buckets:4 (48 B per key, as much memory as the exact log, and not exact).")

	// A closest approximation cheaper than the log: the log is chosen, but
	// not said to be as cheap.
	s = verdictSummary(append(slices.Clone(verdictBase[:len(verdictBase)-4]), "buckets:2", 32, 300, 300)...)
	got = verdictLinesOf(t, s, Options{})
	wantLines(t, got[:1], "Choose the exact log (48 B per key) if that memory is affordable: no cheaper algorithm is within the default tolerances of it; "+
		"the closest, buckets:2 (32 B per key), decides 0.600% of the requests differently, letting through 3.00% of the log's refusals and refusing 0.333% of its admissions. To spend less, pick by priority below.")
}

// With a budget: the cheapest algorithm within it, and each priority's pick
// among the approximations on the frontier within it.
func TestVerdictBudget(t *testing.T) {
	s := verdictSummary(append(slices.Clone(verdictBase), "buckets:2", 32, 60, 30)...)
	over, under := 0.01, 0.05
	got := verdictLinesOf(t, s, Options{Budget: &summary.Budget{MaxOver: &over, MaxUnder: &under}})
	wantLines(t, append(got[:1:1], got[2:5]...),
		"Choose counter (24 B per key; over 0.020% (0.200% of the log's refusals), under 4.00% (4.44% of its admissions)): the cheapest algorithm that meets the budget.",
		"Refusing a legitimate client is costly → the least under-admission: buckets:2 (32 B per key; over 0.060% (0.600% of the log's refusals), under 0.030% (0.033% of its admissions)).",
		"Letting traffic through is dangerous → the least over-admission: counter (24 B per key; over 0.020% (0.200% of the log's refusals), under 4.00% (4.44% of its admissions)).",
		"Cheapest within 0.1% of the log's decisions: buckets:2 (32 B per key; over 0.060% (0.600% of the log's refusals), under 0.030% (0.033% of its admissions); 0.090% decided differently).")
	if p := markup.Plain(newModel(s, Options{Budget: &summary.Budget{MaxOver: &over, MaxUnder: &under}}).verdictPolicy()); !strings.HasPrefix(p, "With the budget over ≤ 1.00%, under ≤ 5.00% (given to the report), the choice is the cheapest algorithm that meets it") {
		t.Errorf("policy: %s", p)
	}

	// Only the log meets a budget of no over-admission at all.
	zero := 0.0
	got = verdictLinesOf(t, s, Options{Budget: &summary.Budget{MaxOver: &zero}})
	wantLines(t, append(got[:1:1], got[2:5]...),
		"Choose the exact log (48 B per key): no cheaper approximation meets the budget.",
		"Refusing a legitimate client is costly → the least under-admission: the exact log (48 B per key): no approximation on the frontier within the budget.",
		"Letting traffic through is dangerous → the least over-admission: the exact log (48 B per key): no approximation on the frontier within the budget.",
		"Cheapest within 0.1% of the log's decisions: the exact log (48 B per key): no cheaper approximation is that close within the budget.")

	// And with the log as cheap as its approximations, it is said so.
	s = verdictSummary(verdictBase...)
	got = verdictLinesOf(t, s, Options{Budget: &summary.Budget{MaxOver: &zero}})
	if !strings.HasPrefix(got[0], "Choose the exact log (48 B per key): at this limit the exact log is as cheap as its approximations: use it.") {
		t.Errorf("choice: %s", got[0])
	}
}

// Algorithms of the same memory, over and under are one entry of the
// frontier; one of the same memory and more errors is dominated as such.
func TestVerdictTies(t *testing.T) {
	s := verdictSummary("log", 48, 0, 0, "counter-lt", 24, 100, 200, "counter-floor", 24, 100, 200, "counter", 24, 100, 300)
	got := verdictLinesOf(t, s, Options{})
	wantLines(t, []string{got[1], got[5]},
		"Frontier, where no other algorithm needs less memory, over-admits less and under-admits less at once: counter-lt = counter-floor (24 B per key; over 0.100% (1.00% of the log's refusals), under 0.200% (0.222% of its admissions)), log (48 B per key; exact).",
		"Dominated: counter (counter-lt needs as much memory and errs less).")

	only := verdictSummary("log", 48, 0, 0)
	wantLines(t, verdictLinesOf(t, only, Options{}), "Only the exact log was run: there is no candidate to choose.")
}

// The verdict opens the report: right after the title in report.md, and
// before the contents in report.html, ahead of the glossary and the
// configuration; Verdict gives its text.
func TestVerdictFirst(t *testing.T) {
	s := readSummary(t, "small.summary.json")
	d, _, err := newModel(s, Options{}).build()
	if err != nil {
		t.Fatal(err)
	}
	md := string(d.Markdown())
	title, rest, _ := strings.Cut(md, "\n\n")
	if !strings.HasPrefix(title, "# ratebench report") || !strings.HasPrefix(rest, "## Verdict\n\nWith the budget over ≤ 15.00%, under ≤ 25.00% (from the summary)") {
		t.Errorf("report.md does not open with the verdict:\n%.400s", md)
	}
	choose := strings.Index(md, "- Choose **counter**")
	if first := strings.Index(md, "\n## Rule "); choose < 0 || first < 0 || choose > first || strings.Count(md[:first], "\n## ") != 1 || strings.Index(md, "## How to read") < first {
		t.Errorf("the choice (at %d) is not before the first section after the verdict (at %d), ahead of the glossary", choose, first)
	}
	html := string(d.HTML())
	v, nav, reading := strings.Index(html, `<h2 id="verdict">`), strings.Index(html, "<nav>"), strings.Index(html, `<details id="reading"`)
	if !(strings.Index(html, "<h1>") < v && v < nav && nav < reading) {
		t.Errorf("report.html: h1, verdict at %d, contents at %d, glossary at %d", v, nav, reading)
	}
	text := Verdict(s, Options{})
	if !strings.HasPrefix(text, "Verdict. With the budget over ≤ 15.00%, under ≤ 25.00% (from the summary)") ||
		!strings.Contains(text, "\nRule 5/30s, count accepted, independent mode:\n  Choose counter (24 B per key; over 13.80% (42.77% of the log's refusals), under 23.47% (34.65% of its admissions)): the cheapest algorithm that meets the budget.\n") {
		t.Errorf("Verdict:\n%s", text)
	}
}
