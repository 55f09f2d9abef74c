package summary

// Disagreement counts the requests two runs decided differently.
type Disagreement struct {
	Over  int64 `json:"over"`  // the first admitted, the other refused
	Under int64 `json:"under"` // the first refused, the other admitted
}

// Total is the number of requests decided differently.
func (d Disagreement) Total() int64 { return d.Over + d.Under }

// A Disagreement is a figure of a run of its own in vs_token (a leaky
// bucket's against the token run of the same B and mode), among the run's
// requests, and a part of the peer's and the product's figures.

// merge adds the parts' counts.
func (d *Disagreement) merge(o *Disagreement, m *merging) (*Disagreement, error) {
	if d == nil {
		d = &Disagreement{}
	}
	m.sums.addDisagreement(m.name, d, *o)
	return d, nil
}

// validate checks the counts among the run's requests.
func (d *Disagreement) validate(v *validator, path string, in *runIn) {
	v.disagreement(path, *d, in.run.Requests)
}

// disagreement checks the counts of requests two runs decided otherwise,
// among requests.
func (v *validator) disagreement(path string, d Disagreement, requests int64) {
	v.nonNegative(path+".over", d.Over)
	v.nonNegative(path+".under", d.Under)
	if n, ok := v.sum(path+".over + under", d.Over, d.Under); ok {
		v.atMost(path+".over + under", n, "requests", requests)
	}
}
