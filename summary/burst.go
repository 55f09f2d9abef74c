package summary

// Burst is the largest admitted cost that any span (t-W, t] contains, over
// all keys, its ratio to L, and the key where it happened. The log never
// exceeds 1; fixed reaches up to 2; token up to (B+L)/L. It is measured
// where a run records its own admissions: in independent mode, for the log
// in every mode, and for the window algorithms under count all (they record
// every request). Where a candidate records the log's admissions (shadow
// mode otherwise), its admissions are no traffic anyone would let through,
// and Burst is absent.
type Burst struct {
	Max   int64   `json:"max"`
	Ratio float64 `json:"ratio"`
	Key   string  `json:"key,omitempty"`
	// KeysOverL counts the keys whose burst exceeded L.
	KeysOverL int64 `json:"keys_over_l"`
}

// merge keeps the largest burst of the parts (the least key's on a tie)
// and adds their keys over L; the ratio is the merged burst's.
func (b *Burst) merge(o *Burst, m *merging) (*Burst, error) {
	if b == nil {
		b = &Burst{}
	}
	if o.Max > b.Max || (o.Max == b.Max && o.Max > 0 && o.Key < b.Key) {
		b.Max, b.Key = o.Max, o.Key
	}
	m.add("keys_over_l", &b.KeysOverL, o.KeysOverL)
	b.Ratio = float64(b.Max) / float64(m.rule.L)
	return b, nil
}

// validate checks that the burst's figures are non-negative numbers and
// its keys over L among the run's keys.
func (b *Burst) validate(v *validator, path string, in *runIn) {
	v.nonNegative(path+".max", b.Max)
	v.finite(path+".ratio", b.Ratio, true)
	v.nonNegative(path+".keys_over_l", b.KeysOverL)
	v.atMost(path+".keys_over_l", b.KeysOverL, in.field("keys"), in.run.Keys)
}
