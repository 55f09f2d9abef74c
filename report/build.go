package report

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"ratebench/internal/numfmt"
	"ratebench/report/markup"
	"ratebench/report/plotkit"
	"ratebench/summary"
)

// renderedFig is a figure and its SVG, rendered once for both the plot
// file and the HTML.
type renderedFig struct {
	name string
	fig  *plotkit.Figure
	svg  []byte
}

// build writes the whole report as a document, rendering every figure's
// SVG on the way.
func (m *model) build() (*markup.Document, []renderedFig, error) {
	s := m.s
	d := &markup.Document{Title: "ratebench report: " + s.Trace.Path}
	var figs []renderedFig
	addFig := func(f *plotkit.Figure, skip string) error {
		if f == nil {
			if skip != "" {
				d.Add(markup.Para{Text: markup.Text(skip)})
			}
			return nil
		}
		svg, err := f.Render("svg")
		if plotkit.IsUnplottable(err) {
			d.Add(markup.Para{Text: markup.Textf("The plot %s is left out: %v. The tables hold its figures.", f.Name, err.(*plotkit.Unplottable).Why)})
			return nil
		}
		if err != nil {
			return err
		}
		figs = append(figs, renderedFig{f.Name, f, svg})
		d.Add(markup.Figure{Name: f.Name, Alt: f.Alt, Caption: f.Caption, SVG: svg, PNG: !m.opt.NoPNG})
		return nil
	}

	// The answer first: the verdict, then each rule's decision; then,
	// folded, how to read the report and what was run; then every figure
	// of each rule.
	if err := m.firstScreen(d, addFig); err != nil {
		return nil, nil, err
	}
	d.Lead = len(d.Blocks)
	m.intro(d)
	onTop := map[*group]bool{} // the groups whose trade-off plot the decision shows
	for i, rule := range m.rules {
		rid := fmt.Sprintf("rule-%d", i+1)
		d.Add(markup.Heading{Level: 2, ID: rid, Text: markup.Text("Rule " + rule)})
		m.bindingSection(d, rule)
		if err := m.decision(d, rule, rid, onTop, addFig); err != nil {
			return nil, nil, err
		}
	}
	m.about(d)
	for i, rule := range m.rules {
		rid := fmt.Sprintf("rule-%d", i+1)
		d.Add(markup.Heading{Level: 2, ID: rid + "-figures", Text: markup.Text("Rule " + rule + ": every figure")})
		for j, g := range m.groupsOf(rule) {
			d.Add(markup.Heading{Level: 3, ID: fmt.Sprintf("%s-%d", rid, j+1), Text: markup.Text(g.label())})
			m.groupTables(d, g)
			d.Add(markup.Heading{Level: 4, Text: markup.Text("Plots")})
			mks := []func(*group) (*plotkit.Figure, string){m.divergenceFig, m.phaseFig, m.burstFig}
			if !onTop[g] { // else shown with the decision
				mks = append(mks, m.frontierFig)
			}
			for _, mk := range append(mks, m.rateErrorFig, m.timelineFig, m.memoryFig) {
				if err := addFig(mk(g)); err != nil {
					return nil, nil, err
				}
			}
		}
	}
	m.layered(d)
	m.closedLoop(d)
	if err := m.deployments(d, addFig); err != nil {
		return nil, nil, err
	}
	if err := m.sweep(d, addFig); err != nil {
		return nil, nil, err
	}
	m.liveSection(d)
	return d, figs, nil
}

func (m *model) intro(d *markup.Document) {
	s := m.s
	var cands []string
	for _, a := range s.Config.Algorithms {
		if a != "log" {
			cands = append(cands, a)
		}
	}
	d.Add(markup.Para{Text: markup.Textf("ratebench replayed the trace below through %s (the reference) and %d cheaper rate limiters, "+
		"and compared every decision. For each rule, the decision section ranks the algorithms by memory per key and says which "+
		"meet the disagreement budget; the sections after it hold every figure of the summary and the plots. "+
		"The commands it suggests call the program %s, as go install puts it on the PATH; in a checkout built by make it is bin/ratebench.", s.Config.ReferenceText(), len(cands), m.program())})
}

// warnings are what the reader must see even with the trace folded: the
// trace's warnings and an interrupted replay.
func (m *model) warnings() []markup.Inline {
	var out []markup.Inline
	for _, w := range m.s.Warnings() {
		out = append(out, markup.Text("Warning: "+w))
	}
	if m.s.Partial {
		out = append(out, markup.Text("Partial: the replay was interrupted; every figure covers the requests the trace section counts, not the whole trace."))
	}
	return out
}

// readingID is the anchor of "How to read this report", where the terms a
// newcomer meets (count accepted, the modes, twin, burst ÷ L) are defined
// and linked to: GitHub's anchor of its Markdown heading too.
const readingID = "how-to-read-this-report"

// about writes, after the decisions, the notes and, folded, the glossary,
// the trace and the configuration.
func (m *model) about(d *markup.Document) {
	s := m.s
	if len(s.Notes) > 0 {
		d.Add(markup.Heading{Level: 2, ID: "notes", Text: markup.Text("Notes")})
		var notes []markup.Inline
		for _, n := range s.Notes {
			notes = append(notes, markup.Text(n))
		}
		d.Add(markup.Bullets{Items: notes})
	}

	d.Add(markup.Fold{Level: 2, ID: readingID, Title: markup.Text("How to read this report"), Blocks: []markup.Block{markup.Bullets{Items: []markup.Inline{
		markup.Inline{}.B("Over").T("-admission: the candidate admits a request that the exact log refuses. Traffic above the limit is let through."),
		markup.Inline{}.B("Under").T("-admission: the candidate refuses a request that the log admits. A legitimate client is refused."),
		markup.Text("Rates are fractions of all the requests of a run; keys affected are the keys (clients) with at least one disagreement."),
		markup.Inline{}.B("Independent").T(" mode: each algorithm records its own admissions, as a deployment would. ").
			B("Shadow").T(" mode: a candidate records the log's admissions instead, so it always shares the log's history; this isolates the error of its decision rule " +
			"from the way errors compound, but it is not what a deployment sees, and bursts are not measured there."),
		markup.Inline{}.T("Count ").B("accepted").T(" counts only admitted requests (most libraries); count ").B("all").
			T(" counts every request, admitted or not (a client that keeps sending stays blocked). Under count all the two modes coincide for the window algorithms, which record every request, " +
				"and each rule is run once; token, gcra, leaky and peer libraries count only what they admit."),
		markup.Text("Memory is the analytic state an algorithm keeps per key, in bytes, not counting the key itself. Per key, the peak is the most one key needed (the decision ranks by it) " +
			"and the mean is the mean over keys of the most each needed (the figure compare prints); the peak total is the most all keys needed together."),
		markup.Text("Burst ÷ L (burst/L) is the largest cost admitted for one key within any window span (t−W, t], divided by the limit L: the exact log never exceeds 1."),
		markup.Inline{}.T("A deployed product is modelled from its source as its ").B("twin").T(", the textbook algorithm it runs, plus named ").B("deviations").
			T(" (its clock, its arithmetic, what it counts); PRODUCT:without=NAME turns one off."),
		markup.Inline{}.B("Placements").T(": where the trace's clock is coarser than a rule's gap W/L or a hundredth of its window, the trace is replayed again with every request placed at random inside its timestamp's unit; " +
			"a figure is then the median over the placements with their range, and the choice must hold in every one."),
	}}}})

	var trace []markup.Block
	t := s.Trace
	items := []markup.Inline{
		markup.Inline{}.T("Path: ").C(t.Path),
		markup.Text("Format: " + t.Format),
	}
	if d := t.Dataset; d != nil {
		items = append(items, markup.Textf("Dataset: %d parts by key hash; this run read %s (%s records)", d.Partitions, partsText(d), numfmt.Count(t.RecordsRead)))
	}
	if u := unitText(t); u != "" {
		items = append(items, markup.Text("Timestamps: "+u))
	}
	items = append(items, markup.Text("Requests: "+numfmt.Count(t.Requests)))
	if t.Cost != t.Requests {
		items = append(items, markup.Text("Total cost: "+numfmt.Count(t.Cost)))
	}
	items = append(items, markup.Text("Keys: "+numfmt.Count(t.Keys)))
	if t.Requests > 0 {
		items = append(items, markup.Textf("Span: %s to %s (%s)", fmtTime(t.StartNS), fmtTime(t.EndNS), numfmt.Duration(t.EndNS-t.StartNS)))
	}
	items = append(items, resolutionItems(t)...)
	items = append(items, m.warnings()...)
	if t.Skipped > 0 {
		items = append(items, markup.Textf("Skipped: %s bad records (-skip-bad); the first:", numfmt.Count(t.Skipped)))
	}
	trace = append(trace, markup.Bullets{Items: items})
	if len(t.SkippedExamples) > 0 {
		var ex []markup.Inline
		for _, e := range t.SkippedExamples {
			where := fmt.Sprintf("line %d", e.Line)
			if e.Row > 0 {
				where = fmt.Sprintf("row %d", e.Row)
			}
			ex = append(ex, markup.Inline{}.T(where+": ").Q(e.Reason))
		}
		trace = append(trace, markup.Bullets{Items: ex})
	}

	c := s.Config
	cfg := []markup.Inline{
		markup.Text("Rules: " + strings.Join(c.Rules, ", ")),
		markup.Text("Count policies: " + strings.Join(c.Counts, ", ")),
		markup.Text("Modes: " + strings.Join(c.Modes, ", ")),
		markup.Text("Algorithms: " + strings.Join(c.Algorithms, ", ")),
	}
	if c.Sweep != nil {
		cfg = append(cfg, markup.Textf("Sweep: L ∈ {%s} × W ∈ {%s}", joinInts(c.Sweep.L), strings.Join(c.Sweep.W, ", ")))
	}
	if m.hasBudget() {
		cfg = append(cfg, markup.Textf("Budget (%s): %s", m.bsource, m.budgetText()))
	} else {
		cfg = append(cfg, markup.Text("Budget: none given"))
	}
	trace = append(trace, markup.Heading{Level: 3, Text: markup.Text("Configuration")}, markup.Bullets{Items: cfg})
	d.Add(markup.Fold{Level: 2, ID: "trace", Title: markup.Text("Trace and configuration"), Blocks: trace})
}

// decision writes a rule's decision section: which algorithm to pick, and
// beside each table decided on its trade-off plot (noted in onTop).
func (m *model) decision(d *markup.Document, rule, rid string, onTop map[*group]bool, addFig func(*plotkit.Figure, string) error) error {
	d.Add(markup.Heading{Level: 3, ID: rid + "-decision", Text: markup.Text("Decision")})
	if m.hasBudget() {
		d.Add(markup.Para{Text: markup.Textf("Budget (%s): %s (over and under as shares of all requests unless said otherwise). An algorithm meets it when every figure it bounds is within it "+
			"in independent mode, or under count all, where each rule is run in one mode.", m.bsource, m.budgetText())})
	} else {
		d.Add(markup.Para{Text: markup.Inline{}.T("No budget was given: the default tolerances apply (within 0.1% of the log's decisions, at most 10% of its refusals let through, at most 1% of its admissions refused). ").
			Cmd(m.program(), "report", "-max-over", "0.01%", "-max-under", "0.1%", "DIR").T(" (or the same flags of compare) sets a budget.")})
	}
	bases, caveat := m.decisionBases(rule)
	if caveat != "" {
		d.Add(markup.Para{Text: markup.Text(caveat)})
	}
	for _, g := range bases {
		if len(bases) > 1 || caveat != "" {
			d.Add(markup.Heading{Level: 4, Text: markup.Text("Deciding on " + g.label())})
		}
		d.Add(markup.Para{Text: m.choiceLine(g)})
		if more := m.decisionLines(g); len(more) > 0 {
			d.Add(markup.Bullets{Items: more})
		}
		d.Add(m.decisionTable(g))
		f, _ := m.frontierFig(g)
		if f != nil {
			onTop[g] = true
			if err := addFig(f, ""); err != nil {
				return err
			}
		}
	}
	return nil
}

// errQuantile renders a quantile of the rate error as a fraction of L, and
// says whether it is only a lower bound: a quantile beyond the histogram's
// range (summaries written before the bound was marked gave the maximum
// there, which is above the range).
func errQuantile(e *summary.RateError, frac float64, atLeast bool) (string, bool) {
	span := -e.Histogram.Lo
	if atLeast || (span > 0 && frac > span) {
		return "≥ " + num(span), true
	}
	return num(frac), false
}

func firstKeys(g *group) int64 {
	if len(g.runs) == 0 {
		return 0
	}
	return g.runs[0].Keys
}

func joinInts(vs []int64) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = fmt.Sprint(v)
	}
	return strings.Join(s, ", ")
}

func fmtTime(ns int64) string {
	return time.Unix(0, ns).UTC().Format(time.RFC3339Nano)
}

// unitText says how the trace's timestamps without a unit of their own
// were read, "" when none were.
func unitText(t summary.TraceInfo) string {
	switch t.TSUnitFrom {
	case "":
		return ""
	case "auto":
		return t.TSUnit + " (auto-detected from the first timestamp)"
	case "file":
		return t.TSUnit + " (the Parquet column's TIMESTAMP unit)"
	}
	return t.TSUnit + " (-ts-unit " + t.TSUnit + ")"
}

// partsText names the parts of a dataset a run read: "every part" or
// "parts 0, 2".
func partsText(d *summary.DatasetRead) string {
	if len(d.PartsRead) == d.Partitions {
		return "every part"
	}
	var ps []string
	for _, j := range d.PartsRead {
		ps = append(ps, strconv.Itoa(j))
	}
	word := "parts "
	if len(ps) == 1 {
		word = "part "
	}
	return word + strings.Join(ps, ", ")
}
