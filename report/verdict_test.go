package report

import (
	"regexp"
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

// verdictLinesOf returns the verdict's lines on the summary's one rule:
// its choice, after the binding sentence when the rule hardly binds.
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

// decisionLinesOf returns what the decision section says of the summary's
// one rule after its choice.
func decisionLinesOf(t *testing.T, s *summary.Summary, opt Options) []string {
	t.Helper()
	m := newModel(s, opt)
	bases, _ := m.decisionBases(m.rules[0])
	var out []string
	for _, l := range m.decisionLines(bases[0]) {
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

// With no budget, an approximation cheaper than the log and within the
// default tolerances is chosen, in one sentence that says what the cheaper
// ones break; the decision section gives the frontier, each priority's
// pick (with the tolerances it breaks) and the dominated (by the cheapest
// that dominates each: buckets:2 before the log, of more memory).
func TestVerdictNoBudget(t *testing.T) {
	s := verdictSummary(append(slices.Clone(verdictBase), "buckets:2", 32, 60, 30)...)
	wantLines(t, verdictLinesOf(t, s, Options{}),
		"Choose buckets:2 (32 B per key; decides 0.090% of the requests differently, lets through 0.600% of the log's refusals and refuses 0.033% of the log's admissions): "+
			"the cheapest algorithm within the default tolerances of the exact log; the cheaper gcra decides 5.01% of the requests differently (tolerance 0.1%) and lets through 50.00% of the log's refusals (tolerance 10%).")
	wantLines(t, decisionLinesOf(t, s, Options{}),
		"Frontier, where no other algorithm needs less memory, over-admits less and under-admits less at once: gcra (8 B per key; decides 5.01% of the requests differently, lets through 50.00% of the log's refusals and refuses 0.011% of the log's admissions), counter (24 B per key; decides 4.02% of the requests differently, lets through 0.200% of the log's refusals and refuses 4.44% of the log's admissions), buckets:2 (32 B per key; decides 0.090% of the requests differently, lets through 0.600% of the log's refusals and refuses 0.033% of the log's admissions), log (48 B per key; exact).",
		"Refusing a legitimate client is costly → the least under-admission: gcra (8 B per key; refuses 0.011% of the log's admissions), but it decides 5.01% of the requests differently (tolerance 0.1%) and lets through 50.00% of the log's refusals (tolerance 10%).",
		"Letting traffic through is dangerous → the least over-admission: counter (24 B per key; lets through 0.200% of the log's refusals), but it decides 4.02% of the requests differently (tolerance 0.1%) and refuses 4.44% of the log's admissions (tolerance 1%).",
		"Cheapest within 0.1% of the log's decisions: buckets:2 (32 B per key; decides 0.090% of the requests differently, lets through 0.600% of the log's refusals and refuses 0.033% of the log's admissions).",
		"Dominated: token (gcra is cheaper and no worse on over and under); fixed (gcra is cheaper and no worse on over and under); buckets:4 (buckets:2 is cheaper and no worse on over and under).",
	)
}

// When no cheaper algorithm is within the tolerances, the log is chosen
// and the cheapest approximation's breaks are the reason; the log is said
// to be as cheap as its approximations only when none needs less memory.
func TestVerdictLogChosen(t *testing.T) {
	s := verdictSummary(verdictBase...)
	wantLines(t, verdictLinesOf(t, s, Options{}),
		"Choose the exact log (48 B per key) if that memory is affordable: no cheaper algorithm is within the default tolerances; "+
			"the cheapest, gcra (8 B per key), decides 5.01% of the requests differently (tolerance 0.1%) and lets through 50.00% of the log's refusals (tolerance 10%).")
	wantLines(t, decisionLinesOf(t, s, Options{})[3:],
		"Cheapest within 0.1% of the log's decisions: the exact log (48 B per key): no cheaper approximation is that close.",
		"Dominated: token (gcra is cheaper and no worse on over and under); fixed (gcra is cheaper and no worse on over and under); buckets:4 (48 B per key, as much memory as the exact log, and not exact).")

	// No approximation cheaper than the log.
	s = verdictSummary("log", 48, 0, 0, "buckets:4", 48, 500, 600, "buckets:8", 80, 100, 100)
	wantLines(t, verdictLinesOf(t, s, Options{}),
		"Choose the exact log (48 B per key): no approximation needs less memory at this limit; the closest, buckets:8 (80 B per key), still decides 0.200% of the requests differently.")
}

// With a budget: the cheapest algorithm within it, and each priority's pick
// among the approximations on the frontier within it.
func TestVerdictBudget(t *testing.T) {
	s := verdictSummary(append(slices.Clone(verdictBase), "buckets:2", 32, 60, 30)...)
	over, under := 0.01, 0.05
	opt := Options{Budget: &summary.Budget{MaxOver: &over, MaxUnder: &under}}
	wantLines(t, verdictLinesOf(t, s, opt),
		"Choose counter (24 B per key; over-admits 0.020% and under-admits 4.00% of the requests, lets through 0.200% of the log's refusals and refuses 4.44% of the log's admissions): "+
			"the cheapest algorithm that meets the budget; the cheaper gcra over-admits 5.00% of the requests (budget 1%).")
	wantLines(t, decisionLinesOf(t, s, opt)[1:4],
		"Refusing a legitimate client is costly → the least under-admission: buckets:2 (32 B per key; over-admits 0.060% and under-admits 0.030% of the requests, lets through 0.600% of the log's refusals and refuses 0.033% of the log's admissions).",
		"Letting traffic through is dangerous → the least over-admission: counter (24 B per key; over-admits 0.020% and under-admits 4.00% of the requests, lets through 0.200% of the log's refusals and refuses 4.44% of the log's admissions).",
		"Cheapest within 0.1% of the log's decisions: buckets:2 (32 B per key; over-admits 0.060% and under-admits 0.030% of the requests, lets through 0.600% of the log's refusals and refuses 0.033% of the log's admissions).")
	if p := markup.Plain(newModel(s, opt).verdictPolicy()); p != "With the budget over ≤ 1.00%, under ≤ 5.00% (given to the report), the choice is the cheapest algorithm that meets it." {
		t.Errorf("policy: %s", p)
	}

	// Only the log meets a budget of no over-admission at all.
	zero := 0.0
	opt = Options{Budget: &summary.Budget{MaxOver: &zero}}
	wantLines(t, verdictLinesOf(t, s, opt),
		"Choose the exact log (48 B per key): no cheaper algorithm meets the budget; the cheapest, gcra (8 B per key), over-admits 5.00% of the requests (budget 0%).")
	wantLines(t, decisionLinesOf(t, s, opt)[1:4],
		"Refusing a legitimate client is costly → the least under-admission: the exact log (48 B per key): no approximation on the frontier within the budget.",
		"Letting traffic through is dangerous → the least over-admission: the exact log (48 B per key): no approximation on the frontier within the budget.",
		"Cheapest within 0.1% of the log's decisions: the exact log (48 B per key): no cheaper approximation is that close within the budget.")
}

// Algorithms of the same memory, over and under are one entry of the
// frontier, in name order; one of the same memory and more errors is
// dominated as such, by the first of them.
func TestVerdictTies(t *testing.T) {
	s := verdictSummary("log", 48, 0, 0, "counter-lt", 24, 100, 200, "counter-floor", 24, 100, 200, "counter", 24, 100, 300)
	got := decisionLinesOf(t, s, Options{})
	wantLines(t, []string{got[0], got[4]},
		"Frontier, where no other algorithm needs less memory, over-admits less and under-admits less at once: counter-floor = counter-lt (24 B per key; decides 0.300% of the requests differently, lets through 1.00% of the log's refusals and refuses 0.222% of the log's admissions), log (48 B per key; exact).",
		"Dominated: counter (counter-floor needs as much memory and errs less).")

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
	if !strings.HasPrefix(title, "# ratebench report") || !strings.HasPrefix(rest, "## Verdict\n\nAt 5/30s, in independent mode: choose **counter** under count accepted and count all.\n") {
		t.Errorf("report.md does not open with the verdict:\n%.400s", md)
	}
	choose := strings.Index(md, "- Choose **counter**")
	if first := strings.Index(md, "\n## Rule "); choose < 0 || first < 0 || choose > first || strings.Count(md[:first], "\n## ") != 1 || strings.Index(md, "## How to read") < first {
		t.Errorf("the choice (at %d) is not before the first section after the verdict (at %d), ahead of the glossary", choose, first)
	}
	html := string(d.HTML())
	v, nav, reading := strings.Index(html, `<h2 id="verdict">`), strings.Index(html, "<nav>"), strings.Index(html, `<details id="how-to-read-this-report"`)
	if !(strings.Index(html, "<h1>") < v && v < nav && nav < reading) {
		t.Errorf("report.html: h1, verdict at %d, contents at %d, glossary at %d", v, nav, reading)
	}
	text := Verdict(s, Options{})
	if !strings.HasPrefix(text, "Verdict. With the budget over ≤ 15.00%, under ≤ 25.00% (from the summary)") ||
		!strings.Contains(text, "\nRule 5/30s, count accepted, independent mode:\n  Choose counter (24 B per key; over-admits 13.80% and under-admits 23.47% of the requests, lets through 42.77% of the log's refusals and refuses 34.65% of the log's admissions): the cheapest algorithm that meets the budget; the cheaper gcra over-admits 23.27% of the requests (budget 15%).\n") {
		t.Errorf("Verdict:\n%s", text)
	}
}

// Every choice the verdict states is the decision section's first
// sentence too, names the verdict's choice, and each figure it gives is
// the cell of the table beside it, on every committed test summary and
// with or without a budget.
func TestVerdictSentencesMatchTables(t *testing.T) {
	figure := regexp.MustCompile(`(?:^|decides |over-admits |under-admits |lets through |refuses )(\d[\d,.]*(?: B per key|%))( of the requests differently| of the log's refusals| of the log's admissions| of the requests)?`)
	column := map[string]string{" B per key": "bytes/key (peak)", " of the requests differently": "disagree", " of the log's refusals": "over ÷ log's refusals",
		" of the log's admissions": "under ÷ log's admissions", "over-admits": "over", "under-admits": "under"}
	under := 0.25
	checked := 0
	defer func() {
		if checked < 10 {
			t.Errorf("only %d figures checked", checked)
		}
	}()
	for _, name := range []string{"small.summary.json", "sweep.summary.json", "distributed.summary.json", "../../results/products/summary.json"} {
		for _, opt := range []Options{{}, {Budget: &summary.Budget{MaxUnderOfAdmitted: &under}}} {
			s := readSummary(t, name)
			m := newModel(s, opt)
			d, _, err := m.build()
			if err != nil {
				t.Fatal(err)
			}
			md := string(d.Markdown())
			verdict, rest, _ := strings.Cut(md, "\n## Rule ")
			// A bullet of a rule's verdict in full, or, on one basis, the
			// verdict's sentence above the picture.
			choices := regexp.MustCompile(`(?m)^(?:- |\*\*Rule [^*]+\*\*, [^:]+: )(Choose \*\*(.+?)\*\* .*)$`).FindAllStringSubmatch(verdict, -1)
			if len(choices) != len(m.verdict.Rules) {
				t.Fatalf("%s: %d choices in the verdict, %d rule verdicts", name, len(choices), len(m.verdict.Rules))
			}
			at := 0
			for i, c := range choices {
				sentence, alg := c[1], strings.ReplaceAll(c[2], `\_`, "_") // as Markdown escapes it
				if want := algName(m.verdict.Rules[i].Choice); alg != want {
					t.Errorf("%s: the verdict chooses %s, its data %s", name, alg, want)
				}
				k := strings.Index(rest[at:], "\n"+sentence+"\n")
				if k < 0 {
					t.Errorf("%s: the decision does not open with the verdict's sentence %q", name, sentence)
					continue
				}
				at += k + len(sentence)
				// The figures of an algorithm in text against its row of the
				// decision table that follows.
				check := func(alg, text string) {
					alg = strings.ReplaceAll(alg, `\_`, "_") // as Markdown escapes it
					loc := regexp.MustCompile("(?m)^\\| \\d+ \\| `" + regexp.QuoteMeta(alg) + "` \\|.*$").FindStringIndex(rest[at:])
					if loc == nil {
						t.Fatalf("%s: no table row of %s after its choice", name, alg)
					}
					cells := strings.Split(strings.Trim(rest[at+loc[0]:at+loc[1]], "| "), " | ")
					head := rest[:at+loc[0]]
					head = head[strings.LastIndex(head, "\n| rank |")+1:]
					heads := strings.Split(strings.Trim(head[:strings.Index(head, "\n")], "| "), " | ")
					for _, f := range figure.FindAllStringSubmatch(text, -1) {
						value, unit := f[1], f[2]
						if verb := strings.Fields(f[0])[0]; verb == "over-admits" || verb == "under-admits" {
							unit = verb
						}
						if strings.HasSuffix(value, " B per key") {
							value, unit = strings.TrimSuffix(value, " B per key")+" B", " B per key"
						}
						col := slices.Index(heads, column[unit])
						if col < 0 || col >= len(cells) {
							t.Errorf("%s: a figure of no column in %q (columns %v)", name, f[0], heads)
							continue
						}
						checked++
						if cells[col] != value {
							t.Errorf("%s: the verdict says %s%s of %s, the table %s", name, f[1], unit, alg, cells[col])
						}
					}
				}
				if alg != "the exact log" {
					inner, _, _ := strings.Cut(sentence[strings.Index(sentence, "(")+1:], "):")
					check(alg, inner)
				}
				// What the cheaper algorithms break, the reason for the choice.
				if c := regexp.MustCompile(`; the cheaper (\S+) (.*)\.$`).FindStringSubmatch(sentence); c != nil {
					check(c[1], c[2])
				} else if c := regexp.MustCompile(`; the cheapest, (\S+) \((.*?)\), (.*)\.$`).FindStringSubmatch(sentence); c != nil {
					check(c[1], c[2]+"; "+c[3])
				} else if alg == "the exact log" {
					t.Errorf("%s: the log is chosen without a reason in the figures: %q", name, sentence)
				}
			}
		}
	}
}

// Run in shadow mode alone under both counts, the rule has a verdict per
// count, each marked shadow only; where count accepted was run in
// independent mode too, the decision section's caveat names count all.
func TestVerdictShadowOnlyPerCount(t *testing.T) {
	s := verdictSummary(verdictBase...)
	all := verdictSummary(verdictBase...)
	for i := range s.Runs {
		s.Runs[i].Mode = "shadow"
		all.Runs[i].Mode, all.Runs[i].Count = "shadow", "all"
	}
	s.Runs = append(s.Runs, all.Runs...)
	m := newModel(s, Options{})
	var labels []string
	for _, v := range m.verdicts() {
		labels = append(labels, markup.Plain(v.label))
	}
	want := []string{"Rule 5/30s, count accepted, shadow mode (only shadow mode was run: not what a deployment sees):", "Rule 5/30s, count all, shadow mode (only shadow mode was run: not what a deployment sees):"}
	if !slices.Equal(labels, want) {
		t.Errorf("verdicts:\n%s\nwant:\n%s", strings.Join(labels, "\n"), strings.Join(want, "\n"))
	}
	if bases, caveat := m.decisionBases("5/30s"); len(bases) != 2 || !strings.HasPrefix(caveat, "Only shadow mode was run for this rule: ") {
		t.Errorf("%d bases, caveat %q", len(bases), caveat)
	}

	indep := verdictSummary(verdictBase...)
	s.Runs = append(s.Runs, indep.Runs...)
	m = newModel(s, Options{})
	labels = nil
	for _, v := range m.verdicts() {
		labels = append(labels, markup.Plain(v.label))
	}
	want = []string{"Rule 5/30s, count accepted, independent mode:", "Rule 5/30s, count all, shadow mode (only shadow mode was run: not what a deployment sees):"}
	if !slices.Equal(labels, want) {
		t.Errorf("verdicts:\n%s\nwant:\n%s", strings.Join(labels, "\n"), strings.Join(want, "\n"))
	}
	if bases, caveat := m.decisionBases("5/30s"); len(bases) != 2 || !strings.HasPrefix(caveat, "Under count all only shadow mode was run for this rule: ") {
		t.Errorf("%d bases, caveat %q", len(bases), caveat)
	}
}
