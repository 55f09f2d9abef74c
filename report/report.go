package report

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"ratebench/algorithms"
	"ratebench/internal/escape"
	"ratebench/internal/numfmt"
	"ratebench/report/plotkit"
	"ratebench/summary"
)

// Options adjust a report. The zero value gives the defaults.
type Options struct {
	// Budget, if not nil, overrides the summary's budget field by field: a
	// non-nil MaxOver or MaxUnder replaces the summary's.
	Budget *summary.Budget
	// NoPNG skips the PNG copy of each plot (and removes those an earlier
	// report left); the SVGs are always written.
	NoPNG bool
	// TopKeys is how many keys of each run the report lists: 0 means 5, a
	// negative number all that the summary holds.
	TopKeys int
	// WriteFile, if not nil, writes each file of the report instead of
	// summary.WriteFileAtomic; it may be called from several goroutines
	// at once. Tests use it to fail a write part way.
	WriteFile func(path string, data []byte) error
	// Live, if not nil, is a live replay through a real nginx to show at
	// the end of the report (Write reads the folder's live.json when nil).
	Live *summary.Live
	// Program and Folder are for the terminal (Verdict): the name the
	// commands it suggests call ratebench by, as it was invoked, and the
	// results folder of the run, which a suggestion that writes results
	// names its own folder after. A report written to a file leaves them
	// empty, its bytes depending on the summary alone: its commands call
	// summary.Program and name their folders after compare's default for
	// the trace (summary.TraceInfo.SuggestedFolder).
	Program, Folder string
}

// Files written into the report's folder.
const (
	MarkdownFile = "report.md"
	HTMLFile     = "report.html"
	PlotsDir     = "plots"
)

// Write writes, from the summary alone, DIR/runs.csv (RunsCSV),
// DIR/report.md, a self-contained DIR/report.html (plots inline as SVG, no
// script, no external file) and DIR/plots/NAME.svg and .png for every plot. Each file is written to a
// temporary file in its folder and renamed into place. The same summary
// and options give the same bytes of .csv, .md, .html and .svg.
func Write(dir string, s *summary.Summary, opt Options) error {
	if s == nil {
		return errors.New("report: no summary")
	}
	if opt.Live == nil {
		live, err := ReadLive(dir)
		if err != nil {
			return err
		}
		opt.Live = live
	}
	m := newModel(s, opt)
	doc, figs, err := m.build()
	if err != nil {
		return err
	}
	write := opt.WriteFile
	if write == nil {
		write = summary.WriteFileAtomic
	}
	plots := filepath.Join(dir, PlotsDir)
	if err := os.MkdirAll(plots, 0o755); err != nil {
		return err
	}
	written := map[string]bool{}
	for _, f := range figs {
		if err := write(filepath.Join(plots, f.name+".svg"), f.svg); err != nil {
			return err
		}
		written[f.name+".svg"] = true
		if !opt.NoPNG {
			written[f.name+".png"] = true
		}
	}
	if !opt.NoPNG {
		if err := writePNGs(plots, figs, write); err != nil {
			return err
		}
	}
	if err := write(filepath.Join(dir, RunsFile), RunsCSV(s)); err != nil {
		return err
	}
	if err := write(filepath.Join(dir, MarkdownFile), doc.Markdown()); err != nil {
		return err
	}
	if err := write(filepath.Join(dir, HTMLFile), doc.HTML()); err != nil {
		return err
	}
	return removeStale(plots, written)
}

// writePNGs renders and writes the PNG of every figure, several at once
// (rasterising is most of a report's time); each worker writes its file
// as soon as it is drawn, so that no more than a few images are in memory.
func writePNGs(dir string, figs []renderedFig, write func(string, []byte) error) error {
	errs := make([]error, len(figs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(figs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				png, err := figs[i].fig.Render("png")
				if err == nil {
					err = write(filepath.Join(dir, figs[i].name+".png"), png)
				}
				errs[i] = err
			}
		}()
	}
	for i := range figs {
		next <- i
	}
	close(next)
	wg.Wait()
	return errors.Join(errs...)
}

// plotKinds are the prefixes of the plot files Write names; removeStale
// deletes only such files.
var plotKinds = []string{"answer", "divergence_", "phase_", "burst_", "frontier_", "rate-error_", "timeline_", "memory_", "sweep-L_", "sweep-W_", "distributed-sync_", "distributed-skew_"}

// removeStale deletes the plots of an earlier report that this one did not
// write, so that the folder holds exactly what the report shows.
func removeStale(dir string, written map[string]bool) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || written[name] || !isPlotFile(name) {
			continue
		}
		if err := os.Remove(filepath.Join(dir, name)); err != nil {
			return err
		}
	}
	return nil
}

// isPlotFile tells whether name, a file in plots/, is a plot Write draws.
func isPlotFile(name string) bool {
	if ext := filepath.Ext(name); ext != ".svg" && ext != ".png" {
		return false
	}
	for _, k := range plotKinds {
		if strings.HasPrefix(name, k) {
			return true
		}
	}
	return false
}

// Owns tells whether rel, a path relative to a report's folder, names a
// file that Write writes there: runs.csv, report.md, report.html, or a plot in
// plots/ of a kind it draws (a report that draws no such plot leaves that
// file stale). Other files in the folder are not the report's.
func Owns(rel string) bool {
	rel = filepath.ToSlash(filepath.Clean(rel))
	if rel == MarkdownFile || rel == HTMLFile || rel == RunsFile {
		return true
	}
	name, ok := strings.CutPrefix(rel, PlotsDir+"/")
	return ok && !strings.Contains(name, "/") && isPlotFile(name)
}

// ---- model ----

type model struct {
	s       *summary.Summary
	opt     Options
	budget  summary.Budget           // effective
	bsource string                   // where the budget came from
	algIdx  map[string]int           // candidate index, for styles
	styles  map[string]plotkit.Style // one per algorithm, no two alike
	groups  []*group
	rules   []string
	names   map[string]bool   // plot names taken
	memory  map[string]string // a rule's memory table, as text → the group that printed it
	verdict *summary.Verdict  // under the effective budget
}

// group is the runs of one rule × count × mode, in summary order.
type group struct {
	rule, count, mode string
	runs              []*summary.Run
	id                string // anchor and file-name fragment
	l, w              int64  // the rule, when it parses as L/W
	m                 *model
}

func (g *group) title() string {
	return fmt.Sprintf("rule %s, count %s, mode %s", g.rule, g.count, g.mode)
}

func (g *group) label() string { return fmt.Sprintf("count %s, mode %s", g.count, g.mode) }

// candidates are the runs other than the log.
func (g *group) candidates() []*summary.Run {
	var out []*summary.Run
	for _, r := range g.runs {
		if r.Algorithm != "log" {
			out = append(out, r)
		}
	}
	return out
}

func (g *group) requests() int64 {
	if len(g.runs) == 0 {
		return 0
	}
	return g.runs[0].Requests
}

func (g *group) limitText() string {
	if g.l > 0 {
		return strconv.FormatInt(g.l, 10)
	}
	return "the rule's limit"
}

// file names a plot of the group: KIND_RULE_COUNT_MODE, unique in the
// report.
func (g *group) file(kind string) string {
	return g.m.uniqueName(kind + "_" + g.id)
}

func (m *model) uniqueName(base string) string {
	name := base
	for i := 2; m.names[name]; i++ {
		name = fmt.Sprintf("%s-%d", base, i)
	}
	m.names[name] = true
	return name
}

func newModel(s *summary.Summary, opt Options) *model {
	m := &model{s: s, opt: opt, algIdx: map[string]int{}, names: map[string]bool{}}
	if slices.ContainsFunc(s.Runs, func(r summary.Run) bool { return r.LogRefused == nil }) {
		summary.FillLogTerms(s.Runs) // a summary written before they were measured
	}
	if b := s.Config.Budget; b.IsSet() {
		m.budget = *b
		m.bsource = "from the summary"
	}
	if b := opt.Budget; b.IsSet() {
		for _, f := range []struct{ dst, src **float64 }{
			{&m.budget.MaxOver, &b.MaxOver}, {&m.budget.MaxUnder, &b.MaxUnder},
			{&m.budget.MaxOverOfRefused, &b.MaxOverOfRefused}, {&m.budget.MaxUnderOfAdmitted, &b.MaxUnderOfAdmitted},
		} {
			if *f.src != nil {
				*f.dst = *f.src
			}
		}
		m.bsource = "given to the report"
	}
	addAlg := func(a string) {
		if _, ok := m.algIdx[a]; !ok && a != "log" {
			m.algIdx[a] = len(m.algIdx)
		}
	}
	for _, a := range s.Config.Algorithms {
		addAlg(a)
	}
	byKey := map[string]*group{}
	seenRule := map[string]bool{}
	for i := range s.Runs {
		r := &s.Runs[i]
		addAlg(r.Algorithm)
		k := r.Rule + "\x00" + r.Count + "\x00" + r.Mode
		g := byKey[k]
		if g == nil {
			g = &group{rule: r.Rule, count: r.Count, mode: r.Mode, m: m}
			g.id = escape.FileName(r.Rule) + "_" + escape.FileName(r.Count) + "_" + escape.FileName(r.Mode)
			if rules, err := algorithms.ParseRules(r.Rule); err == nil {
				rule := algorithms.PrimaryRule(rules) // of layered rules, the longest window
				g.l, g.w = rule.L, rule.W
			}
			byKey[k] = g
			m.groups = append(m.groups, g)
		}
		g.runs = append(g.runs, r)
		if !seenRule[r.Rule] {
			seenRule[r.Rule] = true
			m.rules = append(m.rules, r.Rule)
		}
	}
	m.setStyles()
	m.verdict = summary.VerdictOf(s, &m.budget)
	return m
}

// style is how alg is drawn in every plot of the report: no two
// algorithms of the report share a colour and a marker shape.
func (m *model) style(alg string) plotkit.Style {
	if st, ok := m.styles[alg]; ok {
		return st
	}
	return plotkit.StyleOf(alg)
}

// setStyles fixes the styles of the report's algorithms, the log first, then
// in the order of the configuration and of the runs.
func (m *model) setStyles() {
	names := []string{"log"}
	seen := map[string]bool{"log": true}
	add := func(a string) {
		if !seen[a] {
			seen[a] = true
			names = append(names, a)
		}
	}
	for _, a := range m.s.Config.Algorithms {
		add(a)
	}
	for i := range m.s.Runs {
		add(m.s.Runs[i].Algorithm)
	}
	sts := plotkit.Styles(names)
	m.styles = make(map[string]plotkit.Style, len(names))
	for i, n := range names {
		m.styles[n] = sts[i]
	}
}

func (m *model) hasBudget() bool { return m.budget.IsSet() }

// program is the name the commands the report suggests call ratebench by
// (Options.Program).
func (m *model) program() string {
	if m.opt.Program != "" {
		return m.opt.Program
	}
	return summary.Program
}

// folder is the results folder of a command suggested on the run,
// changed as change says (Options.Folder).
func (m *model) folder(change string) string {
	return m.s.Trace.SuggestedFolder(m.opt.Folder, change)
}

// givenBudget is the budget the report is written under, nil without
// one.
func (m *model) givenBudget() *summary.Budget {
	if !m.hasBudget() {
		return nil
	}
	b := m.budget
	return &b
}

func (m *model) budgetText() string {
	var parts []string
	if b := m.budget.MaxOver; b != nil {
		parts = append(parts, "over ≤ "+numfmt.Percent(*b))
	}
	if b := m.budget.MaxUnder; b != nil {
		parts = append(parts, "under ≤ "+numfmt.Percent(*b))
	}
	if b := m.budget.MaxOverOfRefused; b != nil {
		parts = append(parts, "over ≤ "+numfmt.Percent(*b)+" of the log's refusals")
	}
	if b := m.budget.MaxUnderOfAdmitted; b != nil {
		parts = append(parts, "under ≤ "+numfmt.Percent(*b)+" of the log's admissions")
	}
	return strings.Join(parts, ", ")
}

func (m *model) groupsOf(rule string) []*group {
	var out []*group
	for _, g := range m.groups {
		if g.rule == rule {
			out = append(out, g)
		}
	}
	return out
}

// decisionBases returns the groups a rule's decision rests on, those
// the verdict decides on (its rules): for each count policy its
// independent-mode runs, or failing those its shadow-mode runs, with a
// caveat that names the counts when not all of them are shadow only.
func (m *model) decisionBases(rule string) ([]*group, string) {
	var out []*group
	var shadow []string
	all := true
	for _, b := range m.verdict.Rules {
		if b.Rule != rule {
			continue
		}
		for _, g := range m.groups {
			if g.rule == b.Rule && g.count == b.Count && g.mode == b.Mode {
				out = append(out, g)
			}
		}
		if b.ShadowOnly {
			shadow = append(shadow, b.Count)
		} else {
			all = false
		}
	}
	const why = ": its figures isolate each decision rule's error but are not what a deployment would see (run compare with -mode independent for that)."
	switch {
	case len(shadow) == 0:
		return out, ""
	case all:
		return out, "Only shadow mode was run for this rule" + why
	}
	return out, "Under count " + joinAnd(shadow) + " only shadow mode was run for this rule" + why
}

// ---- formatting ----

func num(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "—"
	}
	if v == 0 {
		return "0"
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

func bytesPerKey(n int64) string { return numfmt.Count(n) + " B" }

func keyText(k string) string {
	if k == "" {
		return `""`
	}
	return k
}
