package report

import (
	"strings"

	"ratebench/algorithms"
	"ratebench/internal/numfmt"
	"ratebench/report/markup"
)

// layered compares each layered rule with the single rule of its longest
// window, when the summary has both: how much of each algorithm's gain at
// the window edges (its burst beyond L) the short layers take away, and
// what they cost in refused requests (docs/definitions.md §12).
func (m *model) layered(d *markup.Document) {
	first := true
	for _, rule := range m.rules {
		if !strings.Contains(rule, "+") {
			continue
		}
		layers, err := algorithms.ParseRules(rule)
		if err != nil {
			continue
		}
		single := algorithms.PrimaryRule(layers).String()
		for _, lg := range m.groupsOf(rule) {
			var sg *group
			for _, g := range m.groupsOf(single) {
				if g.count == lg.count && g.mode == lg.mode {
					sg = g
				}
			}
			if sg == nil || lg.mode == "shadow" {
				continue
			}
			if first {
				d.Add(markup.Heading{Level: 2, ID: "layered", Text: markup.Text("Layered rules against the single rule")})
				d.Add(markup.Para{Text: markup.Text("A layered rule admits a request only if every layer does. Pairing a short limit with the long one is " +
					"the usual defence against window shaping: a client that times its bursts to the window edges gets the long " +
					"window's limit twice in a short span from a fixed window or a counter, but not past the short layer. " +
					"Burst is the worst admitted cost in any span of the long window, over its limit; the gain removed is the " +
					"part of the burst beyond L that the short layers take away.")})
				first = false
			}
			t := markup.Table{
				Head:  []string{"algorithm", "burst ÷ L, " + single, "burst ÷ L, " + rule, "gain removed", "admitted, " + single, "admitted, " + rule, "over rate, " + single, "over rate, " + rule},
				Right: []bool{false, true, true, true, true, true, true, true},
			}
			for _, lr := range lg.runs {
				var sr = lr
				found := false
				for _, r := range sg.runs {
					if r.Algorithm == lr.Algorithm {
						sr, found = r, true
					}
				}
				if !found || lr.Burst == nil || sr.Burst == nil {
					continue
				}
				removed := "—"
				if ex := sr.Burst.Ratio - 1; ex > 0 {
					removed = numfmt.Rate(1 - max(0, lr.Burst.Ratio-1)/ex)
				}
				t.Rows = append(t.Rows, []markup.Inline{markup.Inline{}.C(lr.Algorithm), markup.Text(num(sr.Burst.Ratio)), markup.Text(num(lr.Burst.Ratio)), markup.Text(removed),
					markup.Text(numfmt.Count(sr.Admitted)), markup.Text(numfmt.Count(lr.Admitted)), markup.Text(numfmt.Rate(sr.OverRate)), markup.Text(numfmt.Rate(lr.OverRate))})
			}
			if len(t.Rows) > 0 {
				d.Add(markup.Para{Text: markup.Textf("Count %s, mode %s: %s against %s.", lg.count, lg.mode, rule, single)}, t)
			}
		}
	}
}
