package report

import (
	"image/color"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"ratebench/report/markup"
	"ratebench/report/plotkit"
	"ratebench/summary"
)

// The decision comes first; the glossary and the configuration follow it,
// folded in the HTML; tables scroll in their own box; numeric cells never
// wrap (their headings do, between words, so that a table of short
// figures stays narrow).
func TestPageLayout(t *testing.T) {
	s := readSummary(t, "small.summary.json")
	dir := write(t, s, Options{NoPNG: true})
	html := string(readFile(t, filepath.Join(dir, HTMLFile)))
	md := string(readFile(t, filepath.Join(dir, MarkdownFile)))

	dec := strings.Index(html, `id="rule-1-decision"`)
	read := strings.Index(html, `<details id="how-to-read-this-report" class="h2">`)
	trace := strings.Index(html, `<details id="trace" class="h2">`)
	if dec < 0 || read < 0 || trace < 0 || !(dec < read && read < trace) {
		t.Errorf("decision at %d, folded glossary at %d, folded trace at %d: want the decision first, then both folded", dec, read, trace)
	}
	if i := strings.Index(md, "## How to read this report"); i < strings.Index(md, "### Decision") {
		t.Errorf("report.md: the glossary (at %d) comes before the decision", i)
	}
	// The trade-off plot of the table decided on is with the decision, on
	// the first screen, and not drawn again with every figure.
	front := strings.Index(html, `<figure id="fig-frontier_5-30s_accepted_independent">`)
	if front < 0 || front < dec || front > read || strings.Count(html, `id="fig-frontier_5-30s_accepted_independent"`) != 1 {
		t.Errorf("the trade-off plot at %d (%d times): want it once, after the decision (%d), before the glossary (%d)",
			front, strings.Count(html, `id="fig-frontier_5-30s_accepted_independent"`), dec, read)
	}
	if strings.Count(html, "<table>") != strings.Count(html, "<div class=\"scroll\">\n<table>") {
		t.Error("a table is not in its own scrolling box")
	}
	for _, want := range []string{"td{overflow-wrap:break-word", "td.r,td code{white-space:nowrap", "th{overflow-wrap:normal", ".scroll{overflow-x:auto", "font-variant-numeric:tabular-nums", "figure svg{width:100%;max-width:100%;height:auto"} {
		if !strings.Contains(html, want) {
			t.Errorf("the style sheet lacks %q", want)
		}
	}
}

// A column empty (or "—") in every row is left out, in both renderings.
func TestEmptyColumnsLeftOut(t *testing.T) {
	tb := markup.Table{
		Head:  []string{"algorithm", "burst", "over"},
		Right: []bool{false, true, true},
		Rows:  [][]markup.Inline{{markup.Text("counter"), markup.Text("—"), markup.Text("3")}, {markup.Text("fixed"), markup.Text(""), markup.Text("0")}},
	}
	d := &markup.Document{Title: "t", Blocks: []markup.Block{tb}}
	md := string(d.Markdown())
	if strings.Contains(md, "burst") || !strings.Contains(md, "| algorithm | over |\n|---|---:|\n| counter | 3 |") {
		t.Errorf("markdown keeps the empty column:\n%s", md)
	}
	html := string(d.HTML())
	if strings.Contains(html, "burst") || !strings.Contains(html, `<tr><td>counter</td><td class="r">3</td></tr>`) {
		t.Errorf("html keeps the empty column:\n%s", html)
	}
	s := readSummary(t, "small.summary.json")
	rep := string(readFile(t, filepath.Join(write(t, s, Options{NoPNG: true}), MarkdownFile)))
	if strings.Contains(rep, "until left queue") {
		t.Error("report.md shows the leaky queue's columns for a run without a leaky bucket")
	}
}

// An algorithm is drawn in the same style in every report, whatever else
// was run and in whatever order: fixed in the main report as in a sweep
// of fewer algorithms.
func TestOneColourPerAlgorithm(t *testing.T) {
	full := newModel(&summary.Summary{Config: summary.RunConfig{Algorithms: []string{"log", "counter", "counter-lt", "fixed", "token"}}}, Options{})
	sweep := newModel(&summary.Summary{Config: summary.RunConfig{Algorithms: []string{"log", "counter", "fixed", "buckets:16"}}}, Options{})
	for _, a := range []string{"counter", "fixed", "buckets:16", "token:B=3"} {
		if got, want := sweep.style(a), full.style(a); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: drawn %+v in one report, %+v in another", a, got, want)
		}
	}
	seen := map[color.Color]string{}
	for _, a := range plotkit.KnownAlgorithms {
		c := plotkit.StyleOf(a).Color
		if b, ok := seen[c]; ok {
			t.Errorf("%s and %s share a colour", a, b)
		}
		seen[c] = a
	}
	if st := plotkit.StyleOf("buckets:16"); st.Dashes == nil {
		t.Error("an algorithm outside the fixed table is drawn solid, like a known one")
	}
}

// A memory table with the same figures under another count or mode of the
// rule is printed once; the later group points to it.
func TestMemoryTableOnce(t *testing.T) {
	s := readSummary(t, "small.summary.json")
	first := map[string]summary.Memory{}
	for _, r := range s.Runs {
		if _, ok := first[r.Algorithm]; !ok {
			first[r.Algorithm] = r.Memory
		}
	}
	for i := range s.Runs {
		s.Runs[i].Memory = first[s.Runs[i].Algorithm]
	}
	md := string(readFile(t, filepath.Join(write(t, s, Options{NoPNG: true}), MarkdownFile)))
	if n := strings.Count(md, "| algorithm | model | per key: peak |"); n != 1 {
		t.Errorf("the same memory table is printed %d times, want once", n)
	}
	if n := strings.Count(md, "The same figures as for count accepted, mode independent, above."); n != 2 {
		t.Errorf("%d groups point to the memory table printed, want 2", n)
	}
}
