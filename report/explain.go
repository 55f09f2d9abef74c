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
	text := markup.Inline{}.Tf("To see why, replay one key alone (here %s, where %s disagrees most): ", keyText(key), alg).Cmd(explainArgs(m.s.Trace, m.s.Config.ReferenceArgs(), key, g.rule, g.count, g.mode, algs)...).
		T(" lists its disagreements and draws its requests over a few windows, one lane per algorithm, beside the log's decisions.")
	if m.s.Trace.Spread != nil {
		// explain has no -spread: it replays the times as the file holds
		// them, so its decisions are those of the unspread trace.
		text = text.T(" It replays the times as the trace holds them, not spread inside their unit as here, so its disagreements can differ from this run's.")
	}
	d.Add(markup.Para{Text: text})
}

// explainArgs are the words of the command line of ratebench explain
// for key on the trace t, read as the replay read it (t.Command), against
// the replay's reference (ref, RunConfig.ReferenceArgs), quoted by
// the document's Cmd when shown.
func explainArgs(t summary.TraceInfo, ref []string, key, rule, count, mode string, algs []string) []string {
	args := append(t.Command("explain"), "-key", key, "-rule", rule, "-alg", strings.Join(algs, ","))
	args = append(args, ref...)
	if count != "accepted" {
		args = append(args, "-count", count)
	}
	if mode != "independent" {
		args = append(args, "-mode", mode)
	}
	return args
}
