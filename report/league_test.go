package report

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"ratebench/report/markup"
	"ratebench/summary"
)

// The first screen's league table lists every product of the decision
// basis once, closest to the exact log first (the fewest requests decided
// differently, then the least memory, then the name), and its sentence
// names the first row's product with that row's figures; a run of fewer
// than two products has none.
func TestLeagueTable(t *testing.T) {
	s := readSummary(t, "../../results/products/summary.json")
	m := newModel(s, Options{})
	d, _, err := m.build()
	if err != nil {
		t.Fatal(err)
	}
	md := string(d.Markdown())
	first, _, _ := strings.Cut(md, "\n## Rule ")
	// The closest product decides the fewest requests otherwise, with its
	// row's figures, or (the committed products' case: caddy keeps the
	// last L times, an exact log) every request as the log does.
	line := regexp.MustCompile("(?m)^\\*\\*Products, closest to the exact log first\\*\\*.*: of the (\\d+) products replayed, `([^`]+)` (?:decides the fewest requests otherwise than the exact log \\((.*)\\)|\\(([0-9,]+ B) per key\\) decides every request as the exact log does)[.;].*$").FindStringSubmatch(first)
	if line == nil {
		t.Fatalf("no league sentence on the first screen:\n%s", first)
	}
	rows := regexp.MustCompile("(?m)^\\| (\\d+) \\| `([^`]+)` \\| ([^|]+) \\| ([^|]+) \\| ([^|]+) \\| ([^|]+) \\| ([^|]+) \\| ([^|]+) \\|$").FindAllStringSubmatch(first, -1)
	runs := map[string]*summary.Run{}
	bases, _ := m.decisionBases(m.rules[0])
	for _, r := range bases[0].runs {
		if r.Product != nil {
			runs[r.Algorithm] = r
		}
	}
	if len(rows) != len(runs) || line[1] != strconv.Itoa(len(runs)) || len(runs) < 10 {
		t.Fatalf("%d rows, the sentence says %s products, the basis holds %d", len(rows), line[1], len(runs))
	}
	seen := map[string]bool{}
	for i, row := range rows {
		name := strings.ReplaceAll(row[2], `\_`, "_")
		r := runs[name]
		if r == nil || seen[name] {
			t.Fatalf("row %d: %s is not a product of the run, or listed twice", i+1, name)
		}
		seen[name] = true
		if row[1] != strconv.Itoa(i+1) {
			t.Errorf("row %d is ranked %s", i+1, row[1])
		}
		if i > 0 {
			p := runs[strings.ReplaceAll(rows[i-1][2], `\_`, "_")]
			if p.Disagree > r.Disagree || p.Disagree == r.Disagree && (p.Memory.PeakPerKey > r.Memory.PeakPerKey || p.Memory.PeakPerKey == r.Memory.PeakPerKey && p.Algorithm > r.Algorithm) {
				t.Errorf("%s (%d decided differently, %d B) ranked before %s (%d, %d B)", p.Algorithm, p.Disagree, p.Memory.PeakPerKey, r.Algorithm, r.Disagree, r.Memory.PeakPerKey)
			}
		}
	}
	top := rows[0]
	if strings.ReplaceAll(top[2], `\_`, "_") != line[2] {
		t.Errorf("the sentence names %s, the first row is %s", line[2], top[2])
	}
	if line[4] != "" { // every request as the log
		if line[4] != top[7] || top[4] != "0%" || top[5] != "0%" || top[6] != "0%" {
			t.Errorf("the sentence says %s decides every request as the log, at %s per key; its row: %v", line[2], line[4], top[3:])
		}
	}
	for _, want := range []string{top[7] + " per key", "decides " + top[4] + " of the requests differently", "lets through " + top[5] + " of the log's refusals", "refuses " + top[6] + " of the log's admissions"} {
		if line[4] == "" && !strings.Contains(line[3], want) {
			t.Errorf("the sentence %q does not say %q, as its row does", line[3], want)
		}
	}

	small, _, err := newModel(readSummary(t, "small.summary.json"), Options{}).build()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(small.Markdown()), "Products, closest") {
		t.Errorf("a run without products has a league table")
	}
}

// Products that decide every request as the log does are said to, not to
// decide "the fewest requests otherwise": the first with its memory, the
// others tied with it named.
func TestLeagueLineExact(t *testing.T) {
	m := newModel(readSummary(t, "small.summary.json"), Options{})
	run := func(alg string, disagree, mem int64) *summary.Run {
		return &summary.Run{Algorithm: alg, Requests: 100, Disagree: disagree, Memory: summary.Memory{PeakPerKey: mem}, Product: &summary.Product{Twin: "fixed"}}
	}
	g := &group{rule: "10/1m", count: "accepted", mode: "independent", runs: []*summary.Run{run("kong", 0, 16), run("nginx", 3, 16), run("envoy", 0, 16)}}
	d := &markup.Document{}
	d.Add(markup.Para{Text: m.leagueLine(g, league(g))})
	got := strings.TrimSpace(strings.TrimPrefix(string(d.Markdown()), "# \n"))
	want := "**Products, closest to the exact log first** (rule 10/1m, count accepted, independent mode): of the 3 products replayed, `envoy` (16 B per key) decides every request as the exact log does; so do kong."
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// When no product decides every request as the log does, the sentence
// names the closest with its row's figures.
func TestLeagueLineFewest(t *testing.T) {
	m := newModel(readSummary(t, "small.summary.json"), Options{})
	run := func(alg string, disagree, over, under, mem int64) *summary.Run {
		return &summary.Run{Algorithm: alg, Requests: 100, Disagree: disagree, Over: over, Under: under, Memory: summary.Memory{PeakPerKey: mem}, Product: &summary.Product{Twin: "fixed"}}
	}
	g := &group{rule: "10/1m", count: "accepted", mode: "independent", runs: []*summary.Run{run("nginx", 5, 5, 0, 16), run("kong", 3, 1, 2, 16)}}
	d := &markup.Document{}
	d.Add(markup.Para{Text: m.leagueLine(g, league(g))})
	got := string(d.Markdown())
	if !strings.Contains(got, "`kong` decides the fewest requests otherwise than the exact log (16 B per key") || !strings.Contains(got, "over-admits 1.00% and under-admits 2.00% of the requests") {
		t.Errorf("got %q: want kong, its memory and its over and under", got)
	}
}

// Where products tie on every figure (memory, disagreement, over and
// under), the league table's first, the verdict's choice and picks, the
// frontier and the decision table name the same product, whatever the
// order of -alg: one tie-break (summary.TieOrder) decides them all.
func TestLeagueAndVerdictAgreeAtTies(t *testing.T) {
	for _, tc := range []struct {
		algs []string
		want string
	}{
		{[]string{"redis_rate", "redis-cell"}, "redis-cell"},
		{[]string{"redis-cell", "redis_rate"}, "redis-cell"},
		{[]string{"throttled", "redis-cell"}, "redis-cell"},
		{[]string{"redis-cell", "throttled"}, "redis-cell"},
		{[]string{"throttled", "redis_rate", "redis-cell"}, "redis-cell"},
	} {
		runs := []any{"log", 48, 0, 0}
		for _, a := range tc.algs {
			runs = append(runs, a, 16, 10, 20)
		}
		s := verdictSummary(runs...)
		for i := range s.Runs {
			if s.Runs[i].Algorithm != "log" {
				s.Runs[i].Product = &summary.Product{Twin: "gcra"}
			}
		}
		m := newModel(s, Options{})
		bases, _ := m.decisionBases(m.rules[0])
		g := bases[0]
		v := m.ruleVerdict(g)
		got := map[string]string{
			"league's first": league(g)[0].Algorithm,
			"choice":         v.Choice,
			"closest":        v.Closest,
			"least under":    v.LeastUnder,
			"least over":     v.LeastOver,
			"cheapest close": v.CheapestClose,
			"frontier":       v.Frontier[0][0],
			"ranked first":   summary.Ranked(g.runs)[0].Algorithm,
		}
		for what, alg := range got {
			if alg != tc.want {
				t.Errorf("-alg %v: the %s is %s, want %s", tc.algs, what, alg, tc.want)
			}
		}
		if line := markup.Plain(m.choiceLine(g)); !strings.HasPrefix(line, "Choose "+tc.want+" ") {
			t.Errorf("-alg %v: the verdict says %q, want it to choose %s", tc.algs, line, tc.want)
		}
	}
}
