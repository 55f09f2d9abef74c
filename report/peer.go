package report

import "ratebench/internal/numfmt"
import "ratebench/report/markup"

// peerTable adds, for the peer libraries of a group (xrate), how their
// float arithmetic fared against an exact token bucket on their own
// history, and how many of their decisions differ from the token run's.
func (m *model) peerTable(d *markup.Document, g *group) {
	t := markup.Table{
		Head:  []string{"library", "decisions", "vs token: over", "vs token: under", "float flips", "at a boundary", "within 1 ns", "drift", "from history"},
		Right: []bool{false, true, true, true, true, true, true, true, true},
	}
	for _, r := range g.runs {
		p := r.Peer
		if p == nil {
			continue
		}
		over, under, history := "—", "—", "—"
		if v := p.VsToken; v != nil {
			over, under = numfmt.Count(v.Over), numfmt.Count(v.Under)
			history = numfmt.Count(max(0, v.Over+v.Under-p.Flips))
		}
		t.Rows = append(t.Rows, []markup.Inline{markup.Inline{}.C(r.Algorithm), markup.Text(numfmt.Count(p.Checked)), markup.Text(over), markup.Text(under),
			markup.Text(numfmt.Count(p.Flips)), markup.Text(numfmt.Count(p.Boundary)), markup.Text(numfmt.Count(p.Nanosecond)), markup.Text(numfmt.Count(p.Drift)), markup.Text(history)})
	}
	if len(t.Rows) == 0 {
		return
	}
	d.Add(markup.Heading{Level: 4, Text: markup.Text("Peer libraries")})
	d.Add(markup.Para{Text: markup.Text("A peer library is driven with the trace's clock and checked at every decision against an exact token bucket " +
		"that recorded the same requests. A float flip is a decision its float64 arithmetic got wrong: at a boundary (the exact " +
		"token count within one part in 2^40 of B of the cost), within one nanosecond of refill (the library truncates the wait " +
		"for missing tokens to whole nanoseconds, so it admits up to 1 ns early), or drift (rounding accumulated over refills). " +
		"Its other disagreements with the token run come from history: an earlier flip changed what it had recorded.")}, t)
}
