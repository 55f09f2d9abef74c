package report

// peerTable adds, for the peer libraries of a group (xrate), how their
// float arithmetic fared against an exact token bucket on their own
// history, and how many of their decisions differ from the token run's.
func (m *model) peerTable(d *document, g *group) {
	t := table{
		head:  []string{"library", "decisions", "vs token: over", "vs token: under", "float flips", "at a boundary", "within 1 ns", "drift", "from history"},
		right: []bool{false, true, true, true, true, true, true, true, true},
	}
	for _, r := range g.runs {
		p := r.Peer
		if p == nil {
			continue
		}
		over, under, history := "—", "—", "—"
		if v := p.VsToken; v != nil {
			over, under = count(v.Over), count(v.Under)
			history = count(max(0, v.Over+v.Under-p.Flips))
		}
		t.rows = append(t.rows, []inline{inline{}.C(r.Algorithm), txt(count(p.Checked)), txt(over), txt(under),
			txt(count(p.Flips)), txt(count(p.Boundary)), txt(count(p.Nanosecond)), txt(count(p.Drift)), txt(history)})
	}
	if len(t.rows) == 0 {
		return
	}
	d.add(heading{4, "", txt("Peer libraries")})
	d.add(para{txt("A peer library is driven with the trace's clock and checked at every decision against an exact token bucket " +
		"that recorded the same requests. A float flip is a decision its float64 arithmetic got wrong: at a boundary (the exact " +
		"token count within one part in 2^40 of B of the cost), within one nanosecond of refill (the library truncates the wait " +
		"for missing tokens to whole nanoseconds, so it admits up to 1 ns early), or drift (rounding accumulated over refills). " +
		"Its other disagreements with the token run come from history: an earlier flip changed what it had recorded.")}, t)
}
