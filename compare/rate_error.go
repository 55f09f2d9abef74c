package compare

import (
	"fmt"
	"math"
)

// The rate error histogram has fixed bins so that histograms of shards and
// workers merge exactly: the signed error as a fraction of L, from
// -rateErrSpan to +rateErrSpan in bins of 1/rateErrPerL, with one bin
// below and one above for what falls outside.
const (
	rateErrPerL = 1000
	rateErrSpan = 2
	rateErrBins = 2 * rateErrSpan * rateErrPerL
)

// Fixed-point scales of the exact sums: errors in units of 10^-6 requests,
// relative errors in units of 10^-9.
const (
	absScale = 1e6
	relScale = 1e9
)

// rateErrorAcc accumulates, at each request, the signed difference
// estimate - exact between a window algorithm's estimate of the cost in
// (t-W, t] and the log's exact count, both taken before the request is
// recorded (SPEC 5, rate_error).
type rateErrorAcc struct {
	l            int64
	n, nRel      int64
	pos, neg     wideSum // sums of positive and of negative errors (magnitudes)
	rel          wideSum // sum of |error|/exact where exact > 0
	maxAbs       float64
	bins         []int64
	below, above int64
}

func newRateErrorAcc(l int64) *rateErrorAcc {
	return &rateErrorAcc{l: l, bins: make([]int64, rateErrBins)}
}

func (a *rateErrorAcc) add(estimate float64, exact int64) {
	err := estimate - float64(exact)
	a.n++
	mag := math.Abs(err)
	if err >= 0 {
		a.pos.add(fixed(mag, absScale))
	} else {
		a.neg.add(fixed(mag, absScale))
	}
	if exact > 0 {
		a.nRel++
		a.rel.add(fixed(mag/float64(exact), relScale))
	}
	a.maxAbs = math.Max(a.maxAbs, mag)
	b := math.Floor((err/float64(a.l) + rateErrSpan) * rateErrPerL)
	switch {
	case b < 0:
		a.below++
	case b >= rateErrBins:
		a.above++
	default:
		a.bins[int(b)]++
	}
}

// absQuantile returns the q-quantile of |error| as a fraction of L, as the
// upper edge of the histogram bin that holds it.
func (a *rateErrorAcc) absQuantile(q float64) float64 {
	if a.n == 0 {
		return 0
	}
	half := rateErrBins / 2
	abs := make([]int64, half)
	for i, c := range a.bins {
		if i < half {
			abs[half-1-i] += c
		} else {
			abs[i-half] += c
		}
	}
	rank := int64(math.Ceil(q * float64(a.n)))
	var seen int64
	for i, c := range abs {
		if seen += c; seen >= rank {
			return float64(i+1) / rateErrPerL
		}
	}
	return a.maxAbs / float64(a.l) // in the outside bins: the exact maximum bounds it
}

func (a *rateErrorAcc) summary() *RateError {
	if a == nil {
		return nil
	}
	l := float64(a.l)
	meanAbs := a.pos
	meanAbs.merge(a.neg)
	r := &RateError{
		Samples:    a.n,
		Mean:       a.pos.div(a.n, absScale) - a.neg.div(a.n, absScale),
		MeanAbs:    meanAbs.div(a.n, absScale),
		MeanRel:    a.rel.div(a.nRel, relScale),
		SamplesRel: a.nRel,
		P50Frac:    a.absQuantile(0.50),
		P99Frac:    a.absQuantile(0.99),
		MaxAbs:     a.maxAbs,
		Sums:       RateErrorSums{Pos: a.pos.pair(), Neg: a.neg.pair(), Rel: a.rel.pair()},
		Histogram: ErrorHistogram{
			Lo:    -rateErrSpan,
			Width: 1.0 / rateErrPerL,
			Below: a.below,
			Above: a.above,
		},
	}
	r.MeanAbsFrac = r.MeanAbs / l
	r.P50 = r.P50Frac * l
	r.P99 = r.P99Frac * l
	r.MaxAbsFrac = r.MaxAbs / l
	for i, c := range a.bins {
		if c != 0 {
			r.Histogram.Counts = append(r.Histogram.Counts, [2]int64{int64(i), c})
		}
	}
	return r
}

// rateErrorFrom rebuilds the accumulator a RateError was closed from.
func rateErrorFrom(r *RateError, l int64) (*rateErrorAcc, error) {
	a := newRateErrorAcc(l)
	a.n, a.nRel, a.maxAbs = r.Samples, r.SamplesRel, r.MaxAbs
	a.pos, a.neg, a.rel = wideFrom(r.Sums.Pos), wideFrom(r.Sums.Neg), wideFrom(r.Sums.Rel)
	a.below, a.above = r.Histogram.Below, r.Histogram.Above
	for _, c := range r.Histogram.Counts {
		if c[0] < 0 || c[0] >= rateErrBins {
			return nil, fmt.Errorf("rate error histogram: bin %d out of range", c[0])
		}
		a.bins[c[0]] += c[1]
	}
	return a, nil
}

// merge adds o's samples to a.
func (a *rateErrorAcc) merge(o *rateErrorAcc) {
	a.n += o.n
	a.nRel += o.nRel
	a.pos.merge(o.pos)
	a.neg.merge(o.neg)
	a.rel.merge(o.rel)
	a.maxAbs = math.Max(a.maxAbs, o.maxAbs)
	for i, c := range o.bins {
		a.bins[i] += c
	}
	a.below += o.below
	a.above += o.above
}
