package summary

// Bound is the token bucket's bound (docs/definitions.md §16.4) checked on the admitted
// requests of each key of a run with a capacity B (token, gcra, leaky,
// xrate): in any span of length T at most B + (L/W)*T cost is admitted.
// Violations counts the admissions at which some span ending there exceeded
// it; it must be 0 but for xrate's float flips. Written as token_bound;
// summaries before v1.2 named it seed002_bound, which UnmarshalJSON reads.
type Bound struct {
	B          int64 `json:"b"`
	Violations int64 `json:"violations"`
}

// merge adds the parts' violations (every part has the run's capacity).
func (b *Bound) merge(o *Bound, m *merging) (*Bound, error) {
	if b == nil {
		b = &Bound{B: o.B}
	}
	m.add("violations", &b.Violations, o.Violations)
	return b, nil
}

// validate checks that the capacity is positive and the violations are
// among the run's admissions.
func (b *Bound) validate(v *validator, path string, in *runIn) {
	if b.B < 1 {
		v.fail(path+".b", "%d is not a positive capacity", b.B)
	}
	v.nonNegative(path+".violations", b.Violations)
	v.atMost(path+".violations", b.Violations, in.field("admitted"), in.run.Admitted)
}
