package summary

// MaxPhaseBins bounds a run's phase histogram (a replay writes 20 bins).
const MaxPhaseBins = 1000

// Phase holds where in the fixed window (e/W, in Bins equal bins) the
// over- and under-admissions fall.
type Phase struct {
	Bins  int     `json:"bins"`
	Over  []int64 `json:"over"`
	Under []int64 `json:"under"`
}

// merge adds the parts' histograms bin by bin, in the first part's bins.
func (p *Phase) merge(o *Phase, m *merging) (*Phase, error) {
	p.Bins = m.first.Phase.Bins
	p.Over = m.sums.addAll(m.field("over"), p.Over, o.Over)
	p.Under = m.sums.addAll(m.field("under"), p.Under, o.Under)
	return p, nil
}

// validate checks that the phase histograms have the bins they say,
// within MaxPhaseBins, and add up to the run's over- and under-admissions.
func (p *Phase) validate(v *validator, path string, in *runIn) {
	r := in.run
	if p.Bins < 1 || p.Bins > MaxPhaseBins {
		v.fail(path+".bins", "%d is not a number of bins from 1 to %d", p.Bins, MaxPhaseBins)
		return
	}
	for _, h := range []struct {
		name   string
		bins   []int64
		figure int64
	}{{"over", p.Over, r.Over}, {"under", p.Under, r.Under}} {
		if len(h.bins) != p.Bins {
			v.fail(path+"."+h.name, "%d bins, but bins is %d", len(h.bins), p.Bins)
			return
		}
		if sum, ok := v.counts(path+"."+h.name, h.bins); ok && sum != h.figure {
			v.fail(path+"."+h.name, "the bins add up to %d, but the run's %s is %d", sum, h.name, h.figure)
		}
	}
}
