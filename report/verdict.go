package report

import (
	"fmt"
	"slices"
	"strings"

	"ratebench/internal/numfmt"
	"ratebench/report/markup"
	"ratebench/summary"
)

// The verdict answers, first, the question the report exists for: per
// rule, which algorithm to choose and why. It is computed from the summary
// alone, on the runs each rule's decision rests on (decisionBases), and
// written both at the top of the report and, by compare, at the top of its
// terminal output (Verdict), so that both say the same thing.
//
// The policy:
//
//   - The frontier is the set of algorithms no other one beats on memory
//     (peak bytes per key), over-admissions and under-admissions at once;
//     the others are dominated, and the verdict names what dominates them.
//     An approximation that needs as much memory as the exact log or more
//     is dominated by the log, which is exact.
//   - With a budget, the choice is the cheapest algorithm that meets it
//     (the exact log always does).
//   - With no budget, the choice is the cheapest algorithm within the
//     default tolerances (withinDefault): it decides within 0.1% of the
//     requests as the log does, lets through at most 10% of the requests
//     the log refuses (where it refuses any) and refuses at most 1% of
//     those it admits (the log itself when no cheaper one does).
//   - Then what each priority picks, among the approximations on the
//     frontier (within the budget, if any; the exact log when there is
//     none): refusing a legitimate client is costly (the least
//     under-admission), letting traffic through is dangerous (the least
//     over-admission), and the cheapest within 0.1% of the log.

// closePerMille is the default policy's tolerance: an algorithm is "within
// 0.1% of the log" when it decides at most 1 request in 1,000 differently.
const closePerMille = 1

// verdictBlock is the verdict on one basis of one rule's decision.
type verdictBlock struct {
	label markup.Inline
	lines []markup.Inline
}

// Verdict returns the verdict of the summary as plain text, the lines the
// report opens with: per rule and count policy, which algorithm to choose
// and why. opt.Budget overrides the summary's budget as in Write.
func Verdict(s *summary.Summary, opt Options) string {
	m := newModel(s, opt)
	var b strings.Builder
	b.WriteString("Verdict. " + markup.Plain(m.verdictPolicy()) + "\n")
	for _, v := range m.verdicts() {
		b.WriteString("\n" + markup.Plain(v.label) + "\n")
		for _, l := range v.lines {
			b.WriteString("  " + markup.Plain(l) + "\n")
		}
	}
	return b.String()
}

// verdictSection writes the verdict at the top of the document.
func (m *model) verdictSection(d *markup.Document) {
	d.Add(markup.Heading{Level: 2, ID: "verdict", Text: markup.Text("Verdict")})
	d.Add(markup.Para{Text: m.verdictPolicy()})
	for _, v := range m.verdicts() {
		d.Add(markup.Para{Text: v.label}, markup.Bullets{Items: v.lines})
	}
}

// noRequestsText is what the verdict and the decision say of runs over no
// request: with nothing decided, no algorithm can be chosen over another.
const noRequestsText = "The trace held no requests: nothing was decided, so there is no algorithm to choose."

// noRequests tells whether runs decided no request (a trace without any).
func noRequests(runs []*summary.Run) bool {
	for _, r := range runs {
		if r.Requests > 0 {
			return false
		}
	}
	return true
}

// verdictPolicy says which policy the verdict follows.
func (m *model) verdictPolicy() markup.Inline {
	if m.s.Trace.Requests == 0 && !slices.ContainsFunc(m.s.Runs, func(r summary.Run) bool { return r.Requests > 0 }) {
		return markup.Text("The trace held no requests: there is nothing to decide on.")
	}
	if m.hasBudget() {
		return markup.Textf("With the budget %s (%s), the choice is the cheapest algorithm that meets it; then come the trade-off frontier and each priority's pick within the budget.", m.budgetText(), m.bsource)
	}
	return markup.Inline{}.T("With no budget given, the choice is the cheapest algorithm within 0.1% of the exact log's decisions that lets through at most 10% of the requests the log refuses (where it refuses any) and refuses at most 1% of those it admits; then come the trade-off frontier and each priority's pick (").
		Cmd("-max-over-of-refused", "10%", "-max-under-of-admitted", "1%").T(" or ").Cmd("-max-over", "0.01%", "-max-under", "0.1%").T(" sets a budget).")
}

// verdicts returns the verdict on every basis of every rule, in order.
func (m *model) verdicts() []verdictBlock {
	var out []verdictBlock
	for _, rule := range m.rules {
		bases, caveat := m.decisionBases(rule)
		for _, g := range bases {
			label := markup.Inline{}.B("Rule " + rule).T(fmt.Sprintf(", count %s, %s mode", g.count, g.mode))
			if caveat != "" {
				label = label.T(" (only shadow mode was run: not what a deployment sees)")
			}
			out = append(out, verdictBlock{label: label.T(":"), lines: m.verdictLines(g)})
		}
	}
	return out
}

// dominates tells whether a is at least as good as b on memory per key,
// over- and under-admissions, and better on one. The runs of a group are
// of the same requests, so counts compare as rates do.
func dominates(a, b *summary.Run) bool {
	am, bm := a.Memory.PeakPerKey, b.Memory.PeakPerKey
	if am > bm || a.Over > b.Over || a.Under > b.Under {
		return false
	}
	return am < bm || a.Over < b.Over || a.Under < b.Under
}

// withinClose tells whether r decides within 0.1% of the requests as the
// log does.
func withinClose(r *summary.Run) bool {
	return r.Disagree*1000 <= closePerMille*r.Requests
}

// verdictLines is the verdict on one group: the choice, the frontier, each
// priority's pick and the dominated algorithms.
func (m *model) verdictLines(g *group) []markup.Inline {
	rows := ranked(g.runs)
	if noRequests(rows) {
		return []markup.Inline{markup.Text(noRequestsText)}
	}
	var log *summary.Run
	var cands []*summary.Run
	for _, r := range rows {
		if r.Algorithm == "log" {
			log = r
		} else {
			cands = append(cands, r)
		}
	}
	if len(cands) == 0 {
		return []markup.Inline{markup.Text("Only the exact log was run: there is no candidate to choose.")}
	}
	mem := func(r *summary.Run) string { return bytesPerKey(r.Memory.PeakPerKey) + " per key" }
	figs := func(r *summary.Run) string {
		if r.Algorithm == "log" {
			return mem(r) + "; exact"
		}
		return mem(r) + "; " + overUnderText(r)
	}
	name := func(r *summary.Run) string {
		if r.Algorithm == "log" {
			return "the exact log"
		}
		return r.Algorithm
	}
	ok := func(r *summary.Run) bool { return !m.hasBudget() || m.meets(r) }

	// The frontier and the dominated, by the cheapest that dominates each.
	var front []*summary.Run
	dominator := map[*summary.Run]*summary.Run{}
	for _, r := range rows {
		var by *summary.Run
		if log != nil && dominates(log, r) { // then r needs as much memory or more
			by = log
		}
		for _, o := range rows {
			if by == nil && o != r && dominates(o, r) {
				by = o
			}
		}
		if by == nil {
			front = append(front, r)
		} else {
			dominator[r] = by
		}
	}

	// The closest approximation: the least disagreement, then the least
	// memory.
	closest := cands[0]
	for _, r := range cands[1:] {
		if r.Disagree < closest.Disagree {
			closest = r
		}
	}
	logAsCheap := log != nil && closest.Memory.PeakPerKey >= log.Memory.PeakPerKey && closest.Disagree > 0

	// The choice.
	var choice markup.Inline
	if m.hasBudget() {
		pick := firstOf(rows, m.meets)
		switch {
		case pick == nil:
			choice = markup.Text("None of the algorithms meets the budget.")
		case pick == log && logAsCheap:
			choice = markup.Inline{}.T("Choose ").B("the exact log").T(" (" + mem(log) + "): at this limit the exact log is as cheap as its approximations: use it. " +
				"No cheaper approximation meets the budget; the closest, " + closest.Algorithm + ", needs " + mem(closest) +
				" and still decides " + numfmt.Rate(closest.DisagreeRate) + " of the requests differently.")
		case pick == log:
			choice = markup.Inline{}.T("Choose ").B("the exact log").T(" (" + mem(log) + "): no cheaper approximation meets the budget.")
		default:
			choice = markup.Inline{}.T("Choose ").B(pick.Algorithm).T(" (" + figs(pick) + "): the cheapest algorithm that meets the budget.")
		}
	} else {
		pick := firstOf(rows, withinDefault)
		switch {
		case pick == nil:
			choice = markup.Text("No algorithm is within the default tolerances of the exact log; see the priorities below.")
		case pick == log && logAsCheap:
			choice = markup.Inline{}.T("Choose ").B("the exact log").T(" (" + mem(log) + "): at this limit the exact log is as cheap as its approximations: use it. " +
				"The closest approximation, " + closest.Algorithm + ", needs " + mem(closest) +
				" and still decides " + numfmt.Rate(closest.DisagreeRate) + " of the requests differently.")
		case pick == log:
			choice = markup.Inline{}.T("Choose ").B("the exact log").T(" (" + mem(log) + ") if that memory is affordable: no cheaper algorithm is within the default tolerances of it; " +
				"the closest, " + closest.Algorithm + " (" + mem(closest) + "), decides " + numfmt.Rate(closest.DisagreeRate) + " of the requests differently" + ownTerms(closest) + ". " +
				"To spend less, pick by priority below.")
		default:
			choice = markup.Inline{}.T("Choose ").B(pick.Algorithm).T(" (" + figs(pick) + "): the cheapest algorithm within the default tolerances of the exact log (" +
				numfmt.Rate(pick.DisagreeRate) + " of the requests decided differently).")
		}
	}
	lines := []markup.Inline{choice}
	if bind, ok := m.bindingLine(g); ok { // first: the rule hardly binds
		lines = []markup.Inline{bind, choice}
	}

	// The frontier, algorithms of the same figures together.
	var parts []string
	done := map[*summary.Run]bool{}
	for _, r := range front {
		if done[r] {
			continue
		}
		var names []string
		for _, o := range front {
			if sameFigures(r, o) {
				names = append(names, o.Algorithm)
				done[o] = true
			}
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", strings.Join(names, " = "), figs(r)))
	}
	lines = append(lines, markup.Text("Frontier, where no other algorithm needs less memory, over-admits less and under-admits less at once: "+strings.Join(parts, ", ")+"."))

	// Each priority's pick among the approximations on the frontier.
	var pool []*summary.Run
	for _, r := range front {
		if r != log && ok(r) {
			pool = append(pool, r)
		}
	}
	within := ""
	if m.hasBudget() {
		within = " within the budget"
	}
	pickBy := func(better func(a, b *summary.Run) bool) *summary.Run {
		var best *summary.Run
		for _, r := range pool {
			if best == nil || better(r, best) {
				best = r
			}
		}
		return best
	}
	leastUnder := pickBy(func(a, b *summary.Run) bool {
		if a.Under != b.Under {
			return a.Under < b.Under
		}
		return a.Memory.PeakPerKey < b.Memory.PeakPerKey
	})
	leastOver := pickBy(func(a, b *summary.Run) bool {
		if a.Over != b.Over {
			return a.Over < b.Over
		}
		return a.Memory.PeakPerKey < b.Memory.PeakPerKey
	})
	priority := func(what string, r *summary.Run) markup.Inline {
		if r == nil {
			if log == nil {
				return markup.Text(what + ": no approximation on the frontier" + within + ".")
			}
			return markup.Inline{}.T(what + ": ").B("the exact log").T(" (" + mem(log) + "): no approximation on the frontier" + within + ".")
		}
		return markup.Inline{}.T(what + ": ").B(r.Algorithm).T(" (" + figs(r) + ").")
	}
	lines = append(lines,
		priority("Refusing a legitimate client is costly → the least under-admission", leastUnder),
		priority("Letting traffic through is dangerous → the least over-admission", leastOver))
	var cheapClose *summary.Run
	for _, r := range rows {
		if withinClose(r) && ok(r) {
			cheapClose = r
			break
		}
	}
	const closeWhat = "Cheapest within 0.1% of the log's decisions"
	switch {
	case cheapClose == nil:
		lines = append(lines, markup.Text(closeWhat+": none"+within+"."))
	case cheapClose == log:
		lines = append(lines, markup.Inline{}.T(closeWhat+": ").B("the exact log").T(" ("+mem(log)+"): no cheaper approximation is that close"+within+"."))
	default:
		lines = append(lines, markup.Inline{}.T(closeWhat+": ").B(cheapClose.Algorithm).T(fmt.Sprintf(" (%s; %s decided differently).", figs(cheapClose), numfmt.Rate(cheapClose.DisagreeRate))))
	}

	// The dominated.
	var dom []string
	for _, r := range rows {
		by := dominator[r]
		switch {
		case by == nil:
		case by == log && sameMemory(by, r):
			dom = append(dom, fmt.Sprintf("%s (%s, as much memory as the exact log, and not exact)", r.Algorithm, mem(r)))
		case by == log:
			dom = append(dom, fmt.Sprintf("%s (%s, more memory than the exact log, and not exact)", r.Algorithm, mem(r)))
		case sameMemory(by, r):
			dom = append(dom, fmt.Sprintf("%s (%s needs as much memory and errs less)", r.Algorithm, name(by)))
		default:
			dom = append(dom, fmt.Sprintf("%s (%s is cheaper and no worse on over and under)", r.Algorithm, name(by)))
		}
	}
	if len(dom) > 0 {
		lines = append(lines, markup.Text("Dominated: "+strings.Join(dom, "; ")+"."))
	}
	return lines
}

func sameMemory(a, b *summary.Run) bool { return a.Memory.PeakPerKey == b.Memory.PeakPerKey }

// sameFigures tells whether a and b have the same memory, over- and
// under-admissions.
func sameFigures(a, b *summary.Run) bool {
	return sameMemory(a, b) && a.Over == b.Over && a.Under == b.Under
}

// firstOf returns the first of rows that ok accepts, nil if none.
func firstOf(rows []*summary.Run, ok func(*summary.Run) bool) *summary.Run {
	if i := slices.IndexFunc(rows, ok); i >= 0 {
		return rows[i]
	}
	return nil
}
