package summary

import "fmt"

// RateError is the distribution of estimate - exact, in requests (cost
// units) and as a fraction of L, over the requests of a shadow-mode (or
// --count all) run of a window algorithm. Quantiles are of |error| by
// nearest rank, read from the fixed-bin histogram: 0 among the errors
// exactly 0, else the upper edge of the bin holding them (bins of L/1000),
// clamped to the maximum. A quantile beyond the histogram's range is its
// lower bound 2L, marked AtLeast (docs/summary-schema.md).
type RateError struct {
	Samples     int64   `json:"samples"`
	Mean        float64 `json:"mean"`
	MeanAbs     float64 `json:"mean_abs"`
	MeanAbsFrac float64 `json:"mean_abs_frac_l"`
	MeanRel     float64 `json:"mean_rel"`
	SamplesRel  int64   `json:"samples_rel"`
	P50         float64 `json:"p50"`
	P50Frac     float64 `json:"p50_frac_l"`
	// P50AtLeast says that P50 lies beyond the histogram: the median
	// |error| is at least P50 (2L), and at most MaxAbs.
	P50AtLeast bool    `json:"p50_at_least,omitempty"`
	P99        float64 `json:"p99"`
	P99Frac    float64 `json:"p99_frac_l"`
	P99AtLeast bool    `json:"p99_at_least,omitempty"` // as P50AtLeast
	MaxAbs     float64 `json:"max"`
	MaxAbsFrac float64 `json:"max_frac_l"`
	// Histogram bins the exact signed error (the estimate is the rational
	// the algorithm decides on): an error on an edge is in the bin that
	// edge starts.
	Histogram ErrorHistogram `json:"histogram"`
	// Sums are the exact sums the means come from, as 128-bit fixed-point
	// integers [high, low 64 bits]: positive and negative errors in units of
	// 10^-6 requests, relative errors in units of 10^-9. Merging shards adds
	// them, so a merged mean has the same bits as one pass.
	Sums RateErrorSums `json:"sums"`
}

// RateErrorSums are RateError's exact sums.
type RateErrorSums struct {
	Pos [2]uint64 `json:"pos"`
	Neg [2]uint64 `json:"neg"`
	Rel [2]uint64 `json:"rel"`
}

// ErrorHistogram is the signed error as a fraction of L in fixed bins:
// bin i covers [Lo + i*Width, Lo + (i+1)*Width). Counts lists the non-empty
// bins as [i, count]; Below and Above count what fell outside. Zero counts
// the errors exactly 0, which are also in the bin [0, Width).
type ErrorHistogram struct {
	Lo     float64    `json:"lo"`
	Width  float64    `json:"width"`
	Counts [][2]int64 `json:"counts"`
	Below  int64      `json:"below"`
	Above  int64      `json:"above"`
	Zero   int64      `json:"zero,omitempty"`
}

// merge adds the parts' distributions: each is rebuilt in the form it was
// taken in (RateErrors) and they are merged exactly, so the merge has the
// bits one pass gives.
func (e *RateError) merge(o *RateError, m *merging) (*RateError, error) {
	part, err := rateErrorsOf(o, m.rule.L)
	if err != nil {
		return nil, err
	}
	if e == nil {
		return part.RateError(), nil
	}
	acc, err := rateErrorsOf(e, m.rule.L)
	if err != nil {
		return nil, err
	}
	if err := acc.merge(part); err != nil {
		return nil, fmt.Errorf("%s: %w", m.name, err)
	}
	return acc.RateError(), nil
}

// validate checks a rate error distribution: one sample per request, its
// fixed bins in range, increasing and adding up to the samples, and its
// figures numbers.
func (e *RateError) validate(v *validator, path string, in *runIn) {
	h := &e.Histogram
	v.equal(path+".samples", e.Samples, "the run's requests", in.run.Requests)
	v.nonNegative(path+".samples_rel", e.SamplesRel)
	v.atMost(path+".samples_rel", e.SamplesRel, path+".samples", e.Samples)
	if h.Lo != -rateErrSpan || h.Width != 1.0/rateErrPerL {
		v.fail(path+".histogram", "lo %v and width %v, want %v and %v", h.Lo, h.Width, -rateErrSpan, 1.0/rateErrPerL)
	}
	v.nonNegative(path+".histogram.below", h.Below)
	v.nonNegative(path+".histogram.above", h.Above)
	v.nonNegative(path+".histogram.zero", h.Zero)
	if v.err != nil {
		return
	}
	total, ok := v.sum(path+".histogram", h.Below, h.Above)
	var zeroBin int64
	for i, c := range h.Counts {
		p := fmt.Sprintf("%s.histogram.counts[%d]", path, i)
		switch {
		case c[0] < 0 || c[0] >= rateErrBins:
			v.fail(p, "bin %d is not one of 0 to %d", c[0], rateErrBins-1)
		case i > 0 && c[0] <= h.Counts[i-1][0]:
			v.fail(p, "bin %d does not follow bin %d", c[0], h.Counts[i-1][0])
		case c[1] < 1:
			v.fail(p, "bin %d has a count of %d, not positive", c[0], c[1])
		}
		if c[0] == rateErrBins/2 {
			zeroBin = c[1]
		}
		if ok {
			total, ok = v.sum(path+".histogram.counts", total, c[1])
		}
	}
	if ok && v.err == nil && total != e.Samples {
		v.fail(path+".histogram", "its bins, below and above hold %d errors, but samples is %d", total, e.Samples)
	}
	v.atMost(path+".histogram.zero", h.Zero, fmt.Sprintf("%s.histogram's bin %d", path, rateErrBins/2), zeroBin)
	for _, x := range []struct {
		name        string
		value       float64
		nonNegative bool
	}{
		{"mean", e.Mean, false}, {"mean_abs", e.MeanAbs, true}, {"mean_abs_frac_l", e.MeanAbsFrac, true},
		{"mean_rel", e.MeanRel, true}, {"p50", e.P50, true}, {"p50_frac_l", e.P50Frac, true},
		{"p99", e.P99, true}, {"p99_frac_l", e.P99Frac, true}, {"max", e.MaxAbs, true}, {"max_frac_l", e.MaxAbsFrac, true},
	} {
		v.finite(path+"."+x.name, x.value, x.nonNegative)
	}
}
