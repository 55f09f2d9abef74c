package summary

// Peer is what a peer library's run (xrate: golang.org/x/time/rate) adds:
// its float arithmetic checked at every decision against an exact token
// bucket that recorded the same requests (docs/definitions.md §11), and its disagreement
// with the harness's exact token bucket of the same B in the same mode.
//
// A flip is a decision the library's float64 arithmetic got wrong on its
// own history. Boundary flips had an exact token count within one part in
// 2^40 of B of the cost; Nanosecond flips were within one nanosecond of
// refill of it (the library truncates the wait for missing tokens to whole
// nanoseconds); Drift flips are the rest, float error accumulated over
// refills. Disagreements with token that are not flips are history: they
// follow from earlier flips, which changed what the library had recorded.
type Peer struct {
	Checked    int64 `json:"checked"`
	Flips      int64 `json:"flips"`
	FlipsOver  int64 `json:"flips_over"`
	FlipsUnder int64 `json:"flips_under"`
	Boundary   int64 `json:"boundary"`
	Nanosecond int64 `json:"nanosecond"`
	Drift      int64 `json:"drift"`
	// VsToken counts the requests the library decided otherwise than the
	// token run of the same B and mode (absent when there is none).
	VsToken *Disagreement `json:"vs_token,omitempty"`
}

// merge adds the parts' checks and flips, and their disagreement with
// token where the first part to have a peer's figures has one.
func (p *Peer) merge(o *Peer, m *merging) (*Peer, error) {
	if p == nil {
		p = &Peer{}
		if o.VsToken != nil {
			p.VsToken = &Disagreement{}
		}
	}
	m.add("checked", &p.Checked, o.Checked)
	m.add("flips", &p.Flips, o.Flips)
	m.add("flips_over", &p.FlipsOver, o.FlipsOver)
	m.add("flips_under", &p.FlipsUnder, o.FlipsUnder)
	m.add("boundary", &p.Boundary, o.Boundary)
	m.add("nanosecond", &p.Nanosecond, o.Nanosecond)
	m.add("drift", &p.Drift, o.Drift)
	if o.VsToken != nil && p.VsToken != nil {
		m.sums.addDisagreement(m.field("vs_token"), p.VsToken, *o.VsToken)
	}
	return p, nil
}

// validate checks that a peer's flips are split into their kinds and are
// among the decisions checked.
func (p *Peer) validate(v *validator, path string, _ *runIn) {
	v.nonNegatives(path, []count{
		{"checked", p.Checked}, {"flips", p.Flips}, {"flips_over", p.FlipsOver}, {"flips_under", p.FlipsUnder},
		{"boundary", p.Boundary}, {"nanosecond", p.Nanosecond}, {"drift", p.Drift},
	})
	if v.err != nil {
		return
	}
	if n, ok := v.sum(path+".flips_over + flips_under", p.FlipsOver, p.FlipsUnder); ok {
		v.equal(path+".flips", p.Flips, "flips_over + flips_under", n)
	}
	if n, ok := v.sum(path+".boundary + nanosecond + drift", p.Boundary, p.Nanosecond, p.Drift); ok {
		v.equal(path+".flips", p.Flips, "boundary + nanosecond + drift", n)
	}
	v.atMost(path+".flips", p.Flips, path+".checked", p.Checked)
	if d := p.VsToken; d != nil {
		v.disagreement(path+".vs_token", *d, p.Checked)
	}
}
