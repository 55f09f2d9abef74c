package report

import (
	"strings"

	"ratebench/report/markup"
	"ratebench/summary"
)

// explainHint says, under a group's top keys, how to see why one of them
// was decided otherwise: the ratebench explain command line for the key
// with the most disagreements, on the summary's trace, with the group's
// rule, count policy, mode and algorithms. (The report reads only the
// summary, which does not hold a key's requests.)
func (m *model) explainHint(d *markup.Document, g *group) {
	var key, alg string
	most := int64(0)
	var algs []string
	for _, r := range g.candidates() {
		algs = append(algs, r.Algorithm)
		for _, k := range r.TopKeys {
			if k.Disagree > most {
				key, alg, most = k.Key, r.Algorithm, k.Disagree
			}
		}
	}
	if most == 0 {
		return
	}
	// A folder of the key, rule, count and mode: the hints of other
	// groups write beside it, not over it.
	change := summary.ExplainChange(key) + "-" + summary.RulesChange([]string{g.rule})
	for _, c := range []struct{ v, def string }{{g.count, "accepted"}, {g.mode, "independent"}} {
		if c.v != c.def {
			change += "-" + c.v
		}
	}
	args := explainArgs(m.program(), m.s.Trace, m.s.Config.ReferenceArgs(), key, g.rule, g.count, g.mode, algs, m.folder(change))
	text := markup.Inline{}.Tf("To see why, replay one key alone (here %s, where %s disagrees most): ", keyText(key), alg).Cmd(args...).
		T(" lists its disagreements and draws its requests over a few windows, one lane per algorithm, beside the log's decisions.")
	switch {
	case m.s.Trace.Spread != nil:
		// explain has no -spread: it replays the times as the file holds
		// them, so its decisions are those of the unspread trace.
		text = text.T(" It replays the times as the trace holds them, not spread inside their unit as here, so its disagreements can differ from this run's.")
	case m.s.Trace.Placements != nil:
		// nor placements: its decisions are those of the recorded clock.
		unit := unitName(m.s.Trace.Placements.Unit())
		text = text.T(" It replays the times as the trace holds them, as if every request of a " + unit.one + " arrived at once, not placed inside their " + unit.many + " as here, so its disagreements can differ from this run's figures.")
	}
	d.Add(markup.Para{Text: text})
}

// explainArgs are the words of the command line of explain, called
// program, for key on the trace t, read as the replay read it
// (t.Command), against the replay's reference (ref,
// RunConfig.ReferenceArgs), writing its figure to the folder out; quoted
// by the document's Cmd when shown.
func explainArgs(program string, t summary.TraceInfo, ref []string, key, rule, count, mode string, algs []string, out string) []string {
	args := append(t.Command(program, "explain"), "-key", key, "-rule", rule, "-alg", strings.Join(algs, ","))
	args = append(args, ref...)
	if count != "accepted" {
		args = append(args, "-count", count)
	}
	if mode != "independent" {
		args = append(args, "-mode", mode)
	}
	return append(args, "-o", out)
}
