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
// rule, which algorithm to choose and why, in one sentence. It phrases the
// summary's verdict (summary.VerdictOf, under the report's budget): the
// report writes it at the top, compare at the top of its terminal output
// (Verdict) and check after its lines, all from the same data. The
// decision section of each rule repeats the choice and adds what the
// verdict leaves out: the frontier, each priority's pick and the
// dominated.

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

// noRequestsText is what the verdict and the decision say of runs over no
// request: with nothing decided, no algorithm can be chosen over another.
const noRequestsText = "The trace held no requests: nothing was decided, so there is no algorithm to choose."

// verdictPolicy says which policy the verdict follows, and what the
// reference is when it is not the plain log.
func (m *model) verdictPolicy() markup.Inline {
	return m.policyLine(m.clockText())
}

// policyLine is the verdict's policy (policyText), after clock (what the
// clock cannot tell, if anything), with the reference when it is not the
// plain log.
func (m *model) policyLine(clock markup.Inline) markup.Inline {
	p := m.policyText()
	if clock != nil {
		p = append(clock.T(" "), p...)
	}
	if m.s.Config.Reference != "" {
		p = p.T(" Here \"the log\" is " + m.s.Config.ReferenceText() + ": every figure compares the algorithms with it.")
	}
	return p
}

// policyText says which policy the verdict follows.
func (m *model) policyText() markup.Inline {
	if m.s.Trace.Requests == 0 && !slices.ContainsFunc(m.s.Runs, func(r summary.Run) bool { return r.Requests > 0 }) {
		return markup.Text("The trace held no requests: there is nothing to decide on.")
	}
	if m.hasBudget() {
		return markup.Textf("With the budget %s (%s), the choice is the cheapest algorithm that meets it.", m.budgetText(), m.bsource)
	}
	return markup.Inline{}.T("With no budget given, the choice is the cheapest algorithm within 0.1% of the exact log's decisions that lets through at most 10% of the requests the log refuses and refuses at most 1% of those it admits (").
		Cmd("-max-over-of-refused", "10%", "-max-under-of-admitted", "1%").T(" or ").Cmd("-max-over", "0.01%", "-max-under", "0.1%").T(" sets a budget).")
}

// verdicts returns the verdict on every basis of every rule, in order: the
// rule's binding when it hardly binds, then the choice.
func (m *model) verdicts() []verdictBlock {
	var out []verdictBlock
	for _, rule := range m.rules {
		bases, _ := m.decisionBases(rule)
		for _, g := range bases {
			label := markup.Inline{}.B("Rule "+rule).T(", ").L("count "+g.count, readingID).T(", ").L(g.mode+" mode", readingID)
			if m.ruleVerdict(g).ShadowOnly {
				label = label.T(" (only shadow mode was run: not what a deployment sees)")
			}
			var lines []markup.Inline
			if bind, ok := m.bindingLine(g); ok {
				lines = append(lines, bind)
			}
			out = append(out, verdictBlock{label: label.T(":"), lines: append(lines, m.choiceLine(g))})
		}
	}
	return out
}

// ruleVerdict is the model's verdict on group g, a basis of its rule's
// decision (decisionBases).
func (m *model) ruleVerdict(g *group) *summary.RuleVerdict {
	return m.verdict.Of(g.rule, g.count, g.mode)
}

// runOf returns the run of algorithm alg in g, nil if none.
func (g *group) runOf(alg string) *summary.Run {
	for _, r := range g.runs {
		if r.Algorithm == alg {
			return r
		}
	}
	return nil
}

// algName is how a sentence names an algorithm: "the exact log" for the
// log.
func algName(alg string) string {
	if alg == "log" {
		return "the exact log"
	}
	return alg
}

// meetsHead is the heading of a table's column that says whether each
// algorithm meets the budget, or the default tolerances without one.
func (m *model) meetsHead() string {
	if m.hasBudget() {
		return "meets budget"
	}
	return "within the default tolerances"
}

// meetsCell is an algorithm's cell of that column, by the verdict v.
func meetsCell(v *summary.RuleVerdict, alg string) markup.Inline {
	if e := v.Entry(alg); e != nil && e.Meets {
		return markup.Inline{}.B("yes")
	}
	return markup.Text("no")
}

// memText is a run's peak memory per key: "8 B per key".
func memText(r *summary.Run) string { return bytesPerKey(r.Memory.PeakPerKey) + " per key" }

// figurePhrase says what a figure of a run's is, as a verb phrase:
// "lets through 50.0% of the log's refusals".
func figurePhrase(figure string, v string) string {
	switch figure {
	case summary.FigureDisagreeRate:
		return "decides " + v + " of the requests differently"
	case summary.FigureOverRate:
		return "over-admits " + v + " of the requests"
	case summary.FigureUnderRate:
		return "under-admits " + v + " of the requests"
	case summary.FigureOverOfRefused:
		return "lets through " + v + " of the log's refusals"
	case summary.FigureUnderOfAdmitted:
		return "refuses " + v + " of the log's admissions"
	}
	return figure + " " + v
}

// shownFigures are the figures a sentence gives of a candidate: those the
// policy bounds, then the log's own terms where the policy leaves them out.
func (m *model) shownFigures() []summary.PolicyBound {
	out := slices.Clone(m.verdict.Policy.Bounds)
	for _, f := range []string{summary.FigureOverOfRefused, summary.FigureUnderOfAdmitted} {
		if !slices.ContainsFunc(out, func(b summary.PolicyBound) bool { return b.Figure == f }) {
			out = append(out, summary.PolicyBound{Figure: f})
		}
	}
	return out
}

// figuresText is a candidate's memory and the figures the verdict weighs
// it on, but those named in except: "8 B per key; decides 0.090% of the
// requests differently, lets through 0.600% of the log's refusals and
// refuses 0.033% of the log's admissions". A figure over nothing (the log
// refuses nothing) is said so; one the summary does not hold is left out.
func (m *model) figuresText(r *summary.Run, except ...string) string {
	if r.Algorithm == "log" {
		return memText(r) + "; exact"
	}
	if r.Disagree == 0 && r.Requests > 0 {
		return memText(r) + "; decides every request as the exact log does"
	}
	var parts, figs []string
	for _, b := range m.shownFigures() {
		if slices.Contains(except, b.Figure) {
			continue
		}
		if v, ok := rateText(b, r); ok {
			if n := len(figs); n > 0 && figs[n-1] == summary.FigureOverRate && b.Figure == summary.FigureUnderRate {
				// "over-admits 1% and under-admits 2% of the requests"
				parts[n-1] = strings.TrimSuffix(parts[n-1], " of the requests") + " and " + figurePhrase(b.Figure, v)
				figs[n-1] = b.Figure
				continue
			}
			parts, figs = append(parts, figurePhrase(b.Figure, v)), append(figs, b.Figure)
		} else if b.Figure == summary.FigureOverOfRefused && r.LogRefused != nil {
			parts, figs = append(parts, "the log refuses nothing"), append(figs, b.Figure)
		}
	}
	if len(parts) == 0 {
		return memText(r)
	}
	return memText(r) + "; " + joinAnd(parts)
}

// joinAnd joins phrases as a list: "a, b and c".
func joinAnd(parts []string) string {
	if len(parts) < 2 {
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// boundWord names the policy a bound belongs to in a sentence: "tolerance"
// for the default, "budget" for the user's.
func (m *model) boundWord() string {
	if m.hasBudget() {
		return "budget"
	}
	return "tolerance"
}

// breaksText says which bounds of the verdict's policy r breaks, with its
// figure and the bound: "lets through 50.0% of the log's refusals
// (tolerance 10%) and decides 5.01% of the requests differently (tolerance
// 0.1%)".
func (m *model) breaksText(r *summary.Run, e *summary.VerdictEntry) string {
	var parts []string
	for _, b := range m.verdict.Policy.Bounds {
		if !slices.Contains(e.Breaks, b.Figure) {
			continue
		}
		if v, ok := rateText(b, r); ok {
			parts = append(parts, figurePhrase(b.Figure, v)+" ("+m.boundWord()+" "+numfmt.ShortPercent(b.Max)+")")
		} else {
			parts = append(parts, "has no figure in the log's terms (no log run beside it)")
		}
	}
	return joinAnd(parts)
}

// choiceLine is the verdict's sentence on group g: the choice and the
// reason in its figures, or why there is none. The decision section opens
// with the same sentence.
func (m *model) choiceLine(g *group) markup.Inline {
	v := m.ruleVerdict(g)
	switch v.Outcome {
	case summary.OutcomeNoRequests:
		return markup.Text(noRequestsText)
	case summary.OutcomeLogOnly:
		return markup.Text("Only the exact log was run: there is no candidate to choose.")
	}
	policy, noCheaper := "within the default tolerances of the exact log", "no cheaper algorithm is within the default tolerances"
	if m.hasBudget() {
		policy, noCheaper = "that meets the budget", "no cheaper algorithm meets the budget"
	}
	rows := summary.Ranked(g.runs)
	if v.Outcome == summary.OutcomeNone {
		closest := g.runOf(v.Closest)
		none := "No algorithm is within the default tolerances of the exact log"
		if m.hasBudget() {
			none = "No algorithm meets the budget"
		}
		return markup.Textf("%s; the closest, %s (%s), %s.", none, closest.Algorithm, memText(closest), m.breaksText(closest, v.Entry(closest.Algorithm)))
	}
	pick := g.runOf(v.Choice)
	// The cheapest cheaper candidate, and what it breaks: the reason the
	// choice costs what it does.
	var cheaper *summary.Run
	for _, r := range rows {
		if r == pick {
			break
		}
		if r.Algorithm != "log" && r.Memory.PeakPerKey < pick.Memory.PeakPerKey {
			cheaper = r
			break
		}
	}
	if pick.Algorithm != "log" {
		out := markup.Inline{}.T("Choose ").B(pick.Algorithm).T(" (" + m.figuresText(pick) + "): the cheapest algorithm " + policy)
		if cheaper != nil {
			out = out.T("; the cheaper " + cheaper.Algorithm + " " + m.breaksText(cheaper, v.Entry(cheaper.Algorithm)))
		}
		return out.T(".")
	}
	out := markup.Inline{}.T("Choose ").B("the exact log").T(" (" + memText(pick) + ")")
	if cheaper == nil {
		closest := g.runOf(v.Closest)
		return out.T(": no approximation needs less memory at this limit; the closest, " + closest.Algorithm + " (" + memText(closest) + "), still decides " +
			numfmt.Rate(closest.DisagreeRate) + " of the requests differently.")
	}
	if !m.hasBudget() {
		out = out.T(" if that memory is affordable")
	}
	return out.T(": " + noCheaper + "; the cheapest, " + cheaper.Algorithm + " (" + memText(cheaper) + "), " + m.breaksText(cheaper, v.Entry(cheaper.Algorithm)) + ".")
}

// decisionLines are what the decision section says of group g after its
// choice: the frontier, each priority's pick (and the bounds it breaks)
// and the dominated with what dominates them.
func (m *model) decisionLines(g *group) []markup.Inline {
	v := m.ruleVerdict(g)
	if v.Outcome == summary.OutcomeNoRequests || v.Outcome == summary.OutcomeLogOnly {
		return nil
	}
	run := g.runOf
	var parts []string
	for _, names := range v.Frontier {
		parts = append(parts, fmt.Sprintf("%s (%s)", strings.Join(names, " = "), m.figuresText(run(names[0]))))
	}
	lines := []markup.Inline{markup.Text("Frontier, where no other algorithm needs less memory, over-admits less and under-admits less at once: " + strings.Join(parts, ", ") + ".")}

	within := ""
	if m.hasBudget() {
		within = " within the budget"
	}
	log := run("log")
	priority := func(what, alg string) markup.Inline {
		if alg == "" {
			if log == nil {
				return markup.Text(what + ": no approximation on the frontier" + within + ".")
			}
			return markup.Inline{}.T(what + ": ").B("the exact log").T(" (" + memText(log) + "): no approximation on the frontier" + within + ".")
		}
		r, e := run(alg), v.Entry(alg)
		out := markup.Inline{}.T(what + ": ").B(alg).T(" (" + m.figuresText(r, e.Breaks...) + ")")
		if len(e.Breaks) > 0 {
			out = out.T(", but it " + m.breaksText(r, e))
		}
		return out.T(".")
	}
	lines = append(lines,
		priority("Refusing a legitimate client is costly → the least under-admission", v.LeastUnder),
		priority("Letting traffic through is dangerous → the least over-admission", v.LeastOver))
	const closeWhat = "Cheapest within 0.1% of the log's decisions"
	switch v.CheapestClose {
	case "":
		lines = append(lines, markup.Text(closeWhat+": none"+within+"."))
	case "log":
		lines = append(lines, markup.Inline{}.T(closeWhat+": ").B("the exact log").T(" ("+memText(log)+"): no cheaper approximation is that close"+within+"."))
	default:
		lines = append(lines, priority(closeWhat, v.CheapestClose))
	}

	var dom []string
	for _, e := range v.Algorithms {
		if e.DominatedBy == "" {
			continue
		}
		r, by := run(e.Algorithm), run(e.DominatedBy)
		switch {
		case by.Algorithm == "log" && sameMemory(by, r):
			dom = append(dom, fmt.Sprintf("%s (%s, as much memory as the exact log, and not exact)", r.Algorithm, memText(r)))
		case by.Algorithm == "log":
			dom = append(dom, fmt.Sprintf("%s (%s, more memory than the exact log, and not exact)", r.Algorithm, memText(r)))
		case sameMemory(by, r):
			dom = append(dom, fmt.Sprintf("%s (%s needs as much memory and errs less)", r.Algorithm, algName(by.Algorithm)))
		default:
			dom = append(dom, fmt.Sprintf("%s (%s is cheaper and no worse on over and under)", r.Algorithm, algName(by.Algorithm)))
		}
	}
	if len(dom) > 0 {
		lines = append(lines, markup.Text("Dominated: "+strings.Join(dom, "; ")+"."))
	}
	return lines
}

func sameMemory(a, b *summary.Run) bool { return a.Memory.PeakPerKey == b.Memory.PeakPerKey }
