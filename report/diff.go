package report

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"ratebench/internal/escape"
	"ratebench/internal/numfmt"
	"ratebench/report/markup"
	"ratebench/summary"
)

// Files written by Diff.Write.
const (
	DiffMarkdownFile = "diff.md"
	DiffHTMLFile     = "diff.html"
)

// Diff sets two summaries side by side: the runs of the same experiment
// (rule, count policy, mode and algorithm; a sweep's point is its rule)
// matched, and for each headline figure A, B and the change from A to B.
// Rates change by percentage points, bytes and requests relatively,
// ratios and the rate error's bias by their difference.
type Diff struct {
	A, B DiffSide
	// Notes say how the runs were matched and what is not compared.
	Notes []string
	// Matched counts the pairs of runs; OnlyA and OnlyB are the runs that
	// have no match on the other side.
	Matched      int
	OnlyA, OnlyB []*summary.Run
	Tables       []DiffTable
}

// DiffSide is one of the two summaries.
type DiffSide struct {
	Name string // as the user named it: a folder or a summary.json
	S    *summary.Summary
}

// DiffTable is one headline figure over the matched runs.
type DiffTable struct {
	Figure string // "disagree", "bytes per key (peak)"
	About  string // how the figure and its delta read
	Rows   []DiffRow
}

// DiffRow is one matched run's figure: A, B, the delta and a mark for what
// changed its nature (appeared, vanished, changed sign, measured on one
// side only); Delta is "0" where A and B are the same.
type DiffRow struct {
	Rule, Count, Mode, Algorithm string
	A, B, Delta, Mark            string
}

// Marks of a DiffRow.
const (
	MarkAppeared = "appeared"     // zero in A, not in B
	MarkVanished = "vanished"     // not zero in A, zero in B
	MarkSign     = "changed sign" // positive on one side, negative on the other
	MarkOnlyA    = "only in A"    // measured in A's run, not in B's
	MarkOnlyB    = "only in B"
)

// diffKind is how a figure's delta is computed.
type diffKind int

const (
	diffRate     diffKind = iota // a fraction: the delta in percentage points
	diffRelative                 // bytes, requests: the delta relative to A
	diffAbsolute                 // a ratio or a signed error: B - A
)

type diffFigure struct {
	name   string
	about  string
	kind   diffKind
	signed bool // the sign means something: mark a change of sign
	// disagreement figures are 0 by definition for the log, which is not
	// listed for them
	candidatesOnly bool
	get            func(*summary.Run) (float64, bool)
	format         func(float64) string
}

func always(f func(*summary.Run) float64) func(*summary.Run) (float64, bool) {
	return func(r *summary.Run) (float64, bool) { return f(r), true }
}

var diffFigures = []diffFigure{
	{name: "disagree", about: "Requests decided otherwise than the log, of all requests; the delta in percentage points.",
		kind: diffRate, candidatesOnly: true, get: always(func(r *summary.Run) float64 { return r.DisagreeRate }), format: numfmt.Rate},
	{name: "over", about: "Requests admitted that the log refused (traffic let through), of all requests; the delta in percentage points.",
		kind: diffRate, candidatesOnly: true, get: always(func(r *summary.Run) float64 { return r.OverRate }), format: numfmt.Rate},
	{name: "under", about: "Requests refused that the log admitted (legitimate clients refused), of all requests; the delta in percentage points.",
		kind: diffRate, candidatesOnly: true, get: always(func(r *summary.Run) float64 { return r.UnderRate }), format: numfmt.Rate},
	{name: "over − under", about: "Which way the run errs: positive when it lets through more than it refuses wrongly, negative otherwise; a change of sign means it now errs the other way.",
		kind: diffRate, signed: true, candidatesOnly: true, get: always(func(r *summary.Run) float64 { return r.OverRate - r.UnderRate }), format: numfmt.SignedRate},
	{name: "worst burst ÷ L", about: "The largest cost admitted for one key within a window span, divided by the limit (measured where the run records its own admissions); the delta is B − A.",
		kind: diffAbsolute, get: func(r *summary.Run) (float64, bool) {
			if r.Burst == nil {
				return 0, false
			}
			return r.Burst.Ratio, true
		}, format: num},
	{name: "rate error bias", about: "The mean of the window estimate minus the exact count, in requests (shadow mode, window algorithms); the delta is B − A.",
		kind: diffAbsolute, signed: true, get: func(r *summary.Run) (float64, bool) {
			if r.RateError == nil {
				return 0, false
			}
			return r.RateError.Mean, true
		}, format: func(v float64) string { return signed(num(v)) }},
	{name: "bytes per key (peak)", about: "The most state one key held, in bytes; the delta relative to A.",
		kind: diffRelative, get: always(func(r *summary.Run) float64 { return float64(r.Memory.PeakPerKey) }), format: func(v float64) string { return num(v) + " B" }},
	{name: "bytes per key (mean)", about: "The mean over keys of each key's peak state, in bytes; the delta relative to A.",
		kind: diffRelative, get: always(func(r *summary.Run) float64 { return r.Memory.MeanPerKey }), format: func(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) + " B" }},
	{name: "requests", about: "The requests replayed; the delta relative to A.",
		kind: diffRelative, get: always(func(r *summary.Run) float64 { return float64(r.Requests) }), format: func(v float64) string { return numfmt.Count(int64(v)) }},
}

// runID is what matches a run of A with one of B.
type runID struct{ rule, count, mode, alg string }

// NewDiff matches the runs of a and b and computes every figure's delta.
// Runs match by rule, count policy, mode and algorithm; when each summary
// holds one rule and they differ (two rules compared on one trace), the
// runs match on the rest.
func NewDiff(a, b DiffSide) *Diff {
	d := &Diff{A: a, B: b}
	ruleOf := func(r string) string { return r }
	ra, rb := rulesOf(a.S), rulesOf(b.S)
	if len(ra) == 1 && len(rb) == 1 && ra[0] != rb[0] {
		ruleOf = func(string) string { return "" }
		d.Notes = append(d.Notes, fmt.Sprintf("A's rule %s is set against B's rule %s: the runs are matched by count policy, mode and algorithm.", ra[0], rb[0]))
	}
	if a.S.Trace.Path != b.S.Trace.Path || a.S.Trace.Fingerprint != b.S.Trace.Fingerprint {
		d.Notes = append(d.Notes, fmt.Sprintf("The traces differ: A replayed %s (%s requests), B %s (%s requests).",
			escape.Visible(a.S.Trace.Path), numfmt.Count(a.S.Trace.Requests), escape.Visible(b.S.Trace.Path), numfmt.Count(b.S.Trace.Requests)))
	}
	if len(a.S.Clients)+len(b.S.Clients)+len(a.S.Distributed)+len(b.S.Distributed) > 0 {
		d.Notes = append(d.Notes, "Only the runs are compared, not the closed-loop clients nor the distributed deployments.")
	}
	idOf := func(r *summary.Run) runID { return runID{ruleOf(r.Rule), r.Count, r.Mode, r.Algorithm} }

	inB := map[runID][]*summary.Run{}
	for i := range b.S.Runs {
		r := &b.S.Runs[i]
		inB[idOf(r)] = append(inB[idOf(r)], r)
	}
	type pair struct{ a, b *summary.Run }
	var pairs []pair
	used := map[*summary.Run]bool{}
	for i := range a.S.Runs {
		r := &a.S.Runs[i]
		cands := inB[idOf(r)]
		if len(cands) == 0 {
			d.OnlyA = append(d.OnlyA, r)
			continue
		}
		pairs = append(pairs, pair{r, cands[0]})
		used[cands[0]] = true
		inB[idOf(r)] = cands[1:]
	}
	for i := range b.S.Runs {
		if r := &b.S.Runs[i]; !used[r] {
			d.OnlyB = append(d.OnlyB, r)
		}
	}
	d.Matched = len(pairs)

	for _, f := range diffFigures {
		t := DiffTable{Figure: f.name, About: f.about}
		for _, p := range pairs {
			if f.candidatesOnly && p.a.Algorithm == "log" {
				continue
			}
			va, okA := f.get(p.a)
			vb, okB := f.get(p.b)
			if !okA && !okB {
				continue
			}
			row := DiffRow{Rule: p.a.Rule, Count: p.a.Count, Mode: p.a.Mode, Algorithm: p.a.Algorithm, A: "—", B: "—", Delta: "—"}
			if p.a.Rule != p.b.Rule {
				row.Rule = p.a.Rule + " → " + p.b.Rule
			}
			if okA {
				row.A = f.format(va)
			}
			if okB {
				row.B = f.format(vb)
			}
			switch {
			case !okB:
				row.Mark = MarkOnlyA
			case !okA:
				row.Mark = MarkOnlyB
			default:
				row.Delta = delta(f.kind, va, vb)
				row.Mark = mark(f.signed, va, vb)
			}
			t.Rows = append(t.Rows, row)
		}
		if len(t.Rows) > 0 {
			d.Tables = append(d.Tables, t)
		}
	}
	return d
}

func rulesOf(s *summary.Summary) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range s.Runs {
		if !seen[r.Rule] {
			seen[r.Rule] = true
			out = append(out, r.Rule)
		}
	}
	return out
}

// delta is the change from a to b, "0" when there is none.
func delta(kind diffKind, a, b float64) string {
	if a == b || (math.IsNaN(a) && math.IsNaN(b)) {
		return "0"
	}
	if math.IsNaN(a) || math.IsNaN(b) || math.IsInf(a, 0) || math.IsInf(b, 0) {
		return "—"
	}
	switch kind {
	case diffRate:
		return signed(fmt.Sprintf("%+.3g", 100*(b-a))) + " pp"
	case diffRelative:
		if a == 0 {
			return "—" // appeared: no ratio to A
		}
		return signed(fmt.Sprintf("%+.3g", 100*(b-a)/math.Abs(a))) + "%"
	}
	return signed(fmt.Sprintf("%+.3g", b-a))
}

// signed writes a minus sign as "−", as the rest of the report does.
func signed(s string) string { return strings.Replace(s, "-", "−", 1) }

func mark(isSigned bool, a, b float64) string {
	switch {
	case isSigned && a*b < 0:
		return MarkSign
	case a == 0 && b != 0:
		return MarkAppeared
	case a != 0 && b == 0:
		return MarkVanished
	}
	return ""
}

// ---- output ----

// runName names a run in a list: "rule 5/30s, count accepted, mode
// independent: counter".
func runName(r *summary.Run) string {
	return fmt.Sprintf("rule %s, count %s, mode %s: %s", r.Rule, r.Count, r.Mode, r.Algorithm)
}

func (d *Diff) sideText(label string, s DiffSide) string {
	t := s.S.Trace
	return fmt.Sprintf("%s: %s — trace %s, %s requests, %s keys; rules %s; %d runs", label, s.Name, t.Path, numfmt.Count(t.Requests), numfmt.Count(t.Keys),
		strings.Join(rulesOf(s.S), ", "), len(s.S.Runs))
}

func (d *Diff) matchText() string {
	return fmt.Sprintf("%d runs matched, %d only in A, %d only in B.", d.Matched, len(d.OnlyA), len(d.OnlyB))
}

// docTable is t as a table of the report's document model.
func (t DiffTable) docTable() markup.Table {
	out := markup.Table{
		Head:  []string{"rule", "count", "mode", "algorithm", "A", "B", "delta", "mark"},
		Right: []bool{false, false, false, false, true, true, true, false},
	}
	for _, r := range t.Rows {
		out.Rows = append(out.Rows, []markup.Inline{markup.Text(r.Rule), markup.Text(r.Count), markup.Text(r.Mode), markup.Inline{}.C(r.Algorithm),
			markup.Text(r.A), markup.Text(r.B), markup.Text(r.Delta), markup.Text(r.Mark)})
	}
	return out
}

// unmatched lists the runs without a match, those of one rule, count
// policy and mode on one line.
func (d *Diff) unmatched() markup.Table {
	out := markup.Table{Head: []string{"only in", "rule", "count", "mode", "algorithms"}}
	for _, side := range []struct {
		name string
		runs []*summary.Run
	}{{"A", d.OnlyA}, {"B", d.OnlyB}} {
		var last runID
		var algs []string
		flush := func() {
			if len(algs) > 0 {
				out.Rows = append(out.Rows, []markup.Inline{markup.Text(side.name), markup.Text(last.rule), markup.Text(last.count), markup.Text(last.mode), markup.Text(strings.Join(algs, ", "))})
			}
			algs = nil
		}
		for _, r := range side.runs {
			id := runID{r.Rule, r.Count, r.Mode, ""}
			if id != last {
				flush()
				last = id
			}
			algs = append(algs, r.Algorithm)
		}
		flush()
	}
	return out
}

// WriteText writes the diff as aligned plain-text tables, one per figure,
// as benchstat does.
func (d *Diff) WriteText(w io.Writer) error {
	var b strings.Builder
	b.WriteString(escape.Visible(d.sideText("A", d.A)) + "\n")
	b.WriteString(escape.Visible(d.sideText("B", d.B)) + "\n")
	for _, n := range d.Notes {
		b.WriteString("note: " + escape.Visible(n) + "\n")
	}
	b.WriteString(d.matchText() + "\n")
	for _, t := range d.Tables {
		b.WriteString("\n" + t.Figure + "\n")
		b.WriteString(textTable(t.docTable()))
	}
	if len(d.OnlyA)+len(d.OnlyB) > 0 {
		b.WriteString("\nunmatched runs\n")
		b.WriteString(textTable(d.unmatched()))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// textTable renders t as plain text, columns padded to their widest cell
// (numbers to the right), trailing blanks cut.
func textTable(t markup.Table) string {
	cells := [][]string{t.Head}
	for _, row := range t.Rows {
		var line []string
		for i := range t.Head {
			s := ""
			if i < len(row) {
				s = markup.PlainText(row[i])
			}
			line = append(line, s)
		}
		cells = append(cells, line)
	}
	width := make([]int, len(t.Head))
	for _, line := range cells {
		for i, s := range line {
			width[i] = max(width[i], utf8.RuneCountInString(s))
		}
	}
	var b strings.Builder
	for _, line := range cells {
		var l strings.Builder
		for i, s := range line {
			if i > 0 {
				l.WriteString("  ")
			}
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(s))
			if i < len(t.Right) && t.Right[i] {
				l.WriteString(pad + s)
			} else {
				l.WriteString(s + pad)
			}
		}
		b.WriteString(strings.TrimRight(l.String(), " ") + "\n")
	}
	return b.String()
}

// page is the diff as a report page.
func (d *Diff) page() *markup.Document {
	doc := &markup.Document{Title: "ratebench diff: " + d.A.Name + " against " + d.B.Name}
	sides := []markup.Inline{markup.Text(d.sideText("A", d.A)), markup.Text(d.sideText("B", d.B))}
	doc.Add(markup.Bullets{Items: sides})
	var notes []markup.Inline
	for _, n := range d.Notes {
		notes = append(notes, markup.Text(n))
	}
	notes = append(notes, markup.Text(d.matchText()+" Marks: "+MarkAppeared+" (zero in A, not in B), "+MarkVanished+" (not zero in A, zero in B), "+
		MarkSign+", "+MarkOnlyA+" or "+MarkOnlyB+" (measured on one side only)."))
	doc.Add(markup.Bullets{Items: notes})
	for i, t := range d.Tables {
		doc.Add(markup.Heading{Level: 2, ID: fmt.Sprintf("figure-%d", i+1), Text: markup.Text(t.Figure)}, markup.Para{Text: markup.Text(t.About)}, t.docTable())
	}
	if len(d.OnlyA)+len(d.OnlyB) > 0 {
		doc.Add(markup.Heading{Level: 2, ID: "unmatched", Text: markup.Text("Unmatched runs")}, d.unmatched())
	}
	return doc
}

// Write writes DIR/diff.md and DIR/diff.html, the diff as a page, each
// to a temporary file renamed into place.
func (d *Diff) Write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	doc := d.page()
	if err := summary.WriteFileAtomic(filepath.Join(dir, DiffMarkdownFile), doc.Markdown()); err != nil {
		return err
	}
	return summary.WriteFileAtomic(filepath.Join(dir, DiffHTMLFile), doc.HTML())
}
