package report

import (
	"fmt"
	"strings"

	"ratebench/internal/numfmt"
	"ratebench/report/markup"
	"ratebench/summary"
)

// Whether a rule binds (summary.Binding). When the exact log refuses no
// request, or fewer than one in a thousand, the comparison says little:
// every algorithm admits (nearly) everything, the choice is one of memory,
// and the figures in the log's own terms rest on a handful of refusals.
// The verdict then opens by saying so, with the busiest key's peak use of
// the limit and the tighter limits the trace's window counts give, and the
// command that compares at them; every rule's decision section shows the
// same figures in a table.

// peakText is the busiest key's peak use of the limit l: "the busiest key,
// 10.0.0.1, peaks at 33 in one window (33% of the limit)".
func peakText(b *summary.Binding, l int64) string {
	return fmt.Sprintf("the busiest key, %s, peaks at %s in one window (%s of the limit)",
		keyText(b.PeakKey), numfmt.Count(b.PeakUse), useShare(b.PeakUse, l))
}

// useShare is a use of n against the limit l as a percentage without
// trailing zeros: "70%", "420%", "0.5%".
func useShare(n, l int64) string {
	return numfmt.ShortPercent(float64(n) / float64(l))
}

// bindingLine is the verdict's first sentence on group g when its rule
// hardly binds, and false when it binds (or the summary cannot tell).
func (m *model) bindingLine(g *group) (markup.Inline, bool) {
	b := m.s.BindingOf(g.rule, g.count)
	if b == nil || !b.HardlyBinds() || g.l <= 0 {
		return nil, false
	}
	var in markup.Inline
	if b.LogRefused == 0 {
		in = in.Tf("At %s the exact log refuses no request on this trace; %s. ", g.rule, peakText(b, g.l))
	} else {
		in = in.Tf("At %s the exact log refuses only %s of the %s requests (%s), from %s; %s: the rule hardly binds, and the shares of the log's refusals below rest on those few. ",
			g.rule, numfmt.Count(b.LogRefused), numfmt.Count(b.Requests), numfmt.PercentOf(b.LogRefused, b.Requests),
			plural(b.KeysRefused, "key", "keys"), peakText(b, g.l))
	}
	var refusing []string
	for _, r := range g.candidates() {
		if r.Rejected > 0 {
			refusing = append(refusing, fmt.Sprintf("%s refuses %s", r.Algorithm, numfmt.Count(r.Rejected)))
		}
	}
	switch {
	case b.LogRefused > 0:
	case len(refusing) == 0:
		in = in.T("Every algorithm admits everything: choose on memory")
	default:
		if len(refusing) > 3 {
			refusing = append(refusing[:3], "…")
		}
		in = in.Tf("Yet some algorithms refuse requests the log admits (%s): choose among those that refuse none on memory", strings.Join(refusing, ", "))
	}
	reached := reachedText(b)
	if len(b.Tighter) == 0 {
		switch {
		case b.LogRefused == 0:
			return in.T(". No tighter limit with this window would refuse a request: every key sends one request a window at most."), true
		case reached != "":
			return in.T(strings.ToUpper(reached[:1]) + reached[1:] + "."), true
		}
		return in, true
	}
	if b.LogRefused == 0 {
		in = in.T(", or try a tighter rule: ")
	} else {
		in = in.T("To see the limiters at work, try a tighter rule: ")
	}
	text := m.tighterText(b)
	if reached != "" {
		text += " (" + reached + ")"
	}
	return in.T(text + ": ").Cmd(m.tighterArgs(g, b)...), true
}

// reachedText says for which target shares of the tighter limits none is
// given, the log reaching them already at b's rule
// (summary.Binding.Reached): "no tighter limit for 0.1% and 1%: the log
// already refuses 5.00% of the requests at this rule"; under count
// accepted, where half a target counts, with ", at least half of 1%"
// when the log refuses less than the largest of them. Empty when it
// reaches none.
func reachedText(b *summary.Binding) string {
	reached := b.Reached()
	if len(reached) == 0 {
		return ""
	}
	var names []string
	for _, p := range reached {
		names = append(names, numfmt.ShortPercent(p))
	}
	out := "no tighter limit for " + joinAnd(names) + ": the log already refuses " + numfmt.PercentOf(b.LogRefused, b.Requests) + " of the requests at this rule"
	if top := reached[len(reached)-1]; float64(b.LogRefused) < top*float64(b.Requests) {
		out += ", at least half of " + numfmt.ShortPercent(top)
	}
	return out
}

// tighterText names b's tighter limits with the share of requests the log
// would refuse at each: "27/1m would refuse 0.12% of the requests, 22/1m
// 0.93%" (with "at most" under count accepted, where the shares are an
// upper bound). They are the plain log's: behind a refusal cache (-ref
// log:block) the text says so.
func (m *model) tighterText(b *summary.Binding) string {
	var parts []string
	for i, t := range b.Tighter {
		share := numfmt.Percent(t.Share)
		if i == 0 {
			verb := "would refuse "
			if t.UpperBound {
				verb = "would refuse at most "
			}
			what := " of the requests"
			if m.s.Config.Reference != "" { // the shares are the plain log's offered use
				what += " without the refusal cache"
			}
			parts = append(parts, t.Rule+" "+verb+share+what)
		} else {
			parts = append(parts, t.Rule+" "+share)
		}
	}
	return strings.Join(parts, ", ")
}

// tighterArgs is the compare command line at b's tighter limits, the
// run's otherwise (summary.Summary.CompareCommand: the trace read the
// same way, the same algorithms, modes, budget and placements, g's count
// policy), writing to a folder named after the limits (and the count
// policy where not accepted).
func (m *model) tighterArgs(g *group, b *summary.Binding) []string {
	var rules []string
	for _, t := range b.Tighter {
		rules = append(rules, t.Rule)
	}
	change := summary.RulesChange(rules)
	if g.count != "accepted" { // beside the other policy's suggestion, not over it
		change += "-" + g.count
	}
	return m.s.CompareCommand(m.program(), rules, g.count, m.givenBudget(), m.folder(change))
}

// bindingSection writes, under a rule's heading, how much the rule binds
// per count policy: the log's refusals, the keys refused, the busiest
// key's peak use of the limit and the tighter limits.
func (m *model) bindingSection(d *markup.Document, rule string) {
	gs := m.groupsOf(rule)
	if len(gs) == 0 || gs[0].l <= 0 {
		return
	}
	l := gs[0].l
	var rows [][]markup.Inline
	for i := range m.s.Bindings {
		b := &m.s.Bindings[i]
		if b.Rule != rule {
			continue
		}
		var tighter []string
		if len(b.Tighter) > 0 {
			tighter = append(tighter, m.tighterText(b))
		}
		if r := reachedText(b); r != "" {
			tighter = append(tighter, r)
		}
		if len(tighter) == 0 {
			tighter = append(tighter, "—")
		}
		rows = append(rows, []markup.Inline{markup.Text(b.Count), markup.Text(numfmt.Count(b.Requests)),
			markup.Text(numfmt.Count(b.LogRefused) + " (" + numfmt.PercentOf(b.LogRefused, b.Requests) + ")"),
			markup.Text(numfmt.Count(b.KeysRefused)), markup.Text(numfmt.Count(b.PeakUse) + " (" + useShare(b.PeakUse, l) + ")"),
			markup.Text(keyText(b.PeakKey)), markup.Text(strings.Join(tighter, "; "))})
	}
	if len(rows) == 0 {
		return
	}
	d.Add(markup.Para{Text: markup.Textf("Does %s bind? The requests the exact log refuses, the keys it refuses at least once, and the busiest key's largest use of the limit in one window (every request counted); then the limits with this window at which the log would refuse about 0.1%%, 1%% and 10%% of the requests: under count all exactly, the largest that refuses at least the target; under count accepted at most that, for the targets the log does not refuse half of already.", rule)},
		markup.Table{Head: []string{"count", "requests", "log refuses", "keys refused", "peak use", "busiest key", "tighter limits"},
			Right: []bool{false, true, true, true, true, false, false}, Rows: rows})
}

// plural is n with the noun that fits it: "1 key", "3 keys".
func plural(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return numfmt.Count(n) + " " + many
}
