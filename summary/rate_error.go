package summary

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"

	"ratebench/algorithms"
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

// RateErrors is a run's RateError being taken: at each request, the signed
// difference estimate - exact between a window algorithm's estimate of the cost in
// (t-W, t] and the log's exact count, both taken before the request is
// recorded (docs/definitions.md §16.5). Every sample is taken exactly: the
// estimate is the rational the algorithm decides on, so its bin, the
// maximum and each sample's fixed-point contribution to the sums are those
// of the exact error. The bins and sums are those of the summary, so that
// Merge rebuilds the distribution from a RateError and merges exactly.
type RateErrors struct {
	l            int64
	n, nRel      int64
	pos, neg     wideSum // sums of positive and of negative errors (magnitudes)
	rel          wideSum // sum of |error|/exact where exact > 0
	maxAbs       errMag  // the largest |error| of the samples added here
	maxMerged    float64 // the largest |error| of the summaries merged in
	bins         []int64
	below, above int64
	zero         int64 // errors exactly 0 (also in bin rateErrBins/2)
}

// errMag is the magnitude of an error, ip + fr/den exactly, with
// 0 <= fr < den.
type errMag struct{ ip, fr, den uint64 }

// errorOf returns estimate - exact as its sign (neg: strictly negative) and
// magnitude.
func errorOf(est algorithms.Rational, exact int64) (neg bool, m errMag) {
	m.fr, m.den = uint64(est.Frac), uint64(est.Den)
	x := uint64(exact)
	switch {
	case est.Whole >= x:
		m.ip = est.Whole - x
	case m.fr == 0:
		neg, m.ip = true, x-est.Whole
	default: // -(x - Whole - fr/den) = -((x-Whole-1) + (den-fr)/den)
		neg, m.ip, m.fr = true, x-est.Whole-1, m.den-m.fr
	}
	return neg, m
}

// less reports whether m < o, cross-multiplying the fractions.
func (m errMag) less(o errMag) bool {
	if m.ip != o.ip {
		return m.ip < o.ip
	}
	ah, al := bits.Mul64(m.fr, o.den)
	bh, bl := bits.Mul64(o.fr, m.den)
	return ah < bh || (ah == bh && al < bl)
}

// float returns m rounded to the nearest float64.
func (m errMag) float() float64 {
	num := new(big.Int).SetUint64(m.ip)
	num.Mul(num, new(big.Int).SetUint64(m.den))
	num.Add(num, new(big.Int).SetUint64(m.fr))
	f, _ := new(big.Rat).SetFrac(num, new(big.Int).SetUint64(m.den)).Float64()
	return f
}

// scaled returns s*m as floor and remainder: s*m = q + r/den, 0 <= r < den.
func (m errMag) scaled(s uint64) (q wideSum, r uint64) {
	q.hi, q.lo = bits.Mul64(m.ip, s)
	if m.fr == 0 {
		return q, 0
	}
	hi, lo := bits.Mul64(m.fr, s) // < s*den: the quotient fits
	f, r := bits.Div64(hi, lo, m.den)
	q.add(f)
	return q, r
}

// fixedAbs returns round(m * scale), half up.
func (m errMag) fixedAbs(scale uint64) wideSum {
	q, r := m.scaled(scale)
	if r >= m.den-r { // r/den >= 1/2
		q.add(1)
	}
	return q
}

// fixedRel returns round(m * scale / exact), half up, for exact > 0.
func (m errMag) fixedRel(scale uint64, exact int64) wideSum {
	p, r := m.scaled(scale) // m*scale = p + r/den
	return m.relFrom(p, r, exact)
}

// relFrom is fixedRel from m*scale = p + r/den.
func (m errMag) relFrom(p wideSum, r uint64, exact int64) wideSum {
	e := uint64(exact)
	var q wideSum
	var rem uint64
	if p.hi != 0 {
		q.hi, rem = bits.Div64(0, p.hi, e)
	}
	q.lo, rem = bits.Div64(rem, p.lo, e)
	// m*scale/exact = q + (rem + r/den)/exact: round up iff
	// 2*(rem*den + r) >= exact*den.
	xh, xl := bits.Mul64(rem, m.den)
	var c uint64
	xl, c = bits.Add64(xl, r, 0)
	xh += c
	xh, xl = xh<<1|xl>>63, xl<<1 // rem*den + r < exact*den < 2^127: no carry out
	yh, yl := bits.Mul64(e, m.den)
	if xh > yh || (xh == yh && xl >= yl) {
		q.add(1)
	}
	return q
}

// The fixed-point sums and the histogram's bin of one error are all read
// from m*relScale = p + r/den, one division by den (addError): as relScale
// is absScale*1000 and rateErrPerL*10^6, floor(m*absScale) and
// floor(m*rateErrPerL) are floor(p/1000) and floor(p/10^6) (for integers
// a, n: floor(floor(x)/n) = floor(x/n)), which a division by a constant
// gives, and the remainders that round them follow from p's and r.
const (
	relPerAbs = relScale / absScale    // 1000
	relPerBin = relScale / rateErrPerL // 10^6
)

// absFrom is fixedAbs(absScale) from m*relScale = p + r/den.
func (m errMag) absFrom(p wideSum, r uint64) wideSum {
	if p.hi != 0 {
		return m.fixedAbs(absScale)
	}
	q, k := p.lo/relPerAbs, p.lo%relPerAbs
	// m*absScale = q + (k + r/den)/1000: round up iff
	// (k*den + r) >= 500*den.
	xh, xl := bits.Mul64(k, m.den)
	var c uint64
	xl, c = bits.Add64(xl, r, 0)
	xh += c
	yh, yl := bits.Mul64(relPerAbs/2, m.den)
	if xh > yh || (xh == yh && xl >= yl) {
		q++
	}
	return wideSum{lo: q}
}

// binFrom is bin(neg, m, l) from m*relScale = p + r/den.
func binFrom(neg bool, m errMag, l int64, p wideSum, r uint64) int {
	const half = rateErrBins / 2
	L := uint64(l)
	if p.hi != 0 || m.ip >= rateErrSpan*L {
		return bin(neg, m, l)
	}
	f, k := p.lo/relPerBin, p.lo%relPerBin // floor(1000*|error|), and whether it is whole
	if !neg {
		return half + int(min(f/L, half))
	}
	if k != 0 || r != 0 {
		f++ // ceil(1000*|error|)
	}
	return half - int(min((f+L-1)/L, half+1))
}

// bin returns the histogram bin of the signed error of magnitude m as a
// fraction of l: floor((error/l + rateErrSpan) * rateErrPerL), computed on
// the exact rational, so that an error on a bin's lower edge is in that
// bin. A result below 0 or from rateErrBins on is outside the histogram.
func bin(neg bool, m errMag, l int64) int {
	const half = rateErrBins / 2
	L := uint64(l)
	span := rateErrSpan * L // < 2^64: L < 2^63
	if !neg {
		if m.ip >= span {
			return rateErrBins // error >= 2L
		}
		// floor(1000*error/L) = floor(floor(1000*error)/L)
		hi, lo := bits.Mul64(rateErrPerL, m.ip)
		fh, fl := bits.Mul64(rateErrPerL, m.fr)
		f, _ := bits.Div64(fh, fl, m.den)
		var c uint64
		lo, c = bits.Add64(lo, f, 0)
		hi += c
		k, _ := bits.Div64(hi, lo, L) // < 2*1000 + 1000: fits
		return half + int(min(k, half))
	}
	if m.ip > span {
		return -1 // error < -2L
	}
	// floor(-1000*|error|/L) = -ceil(ceil(1000*|error|)/L)
	hi, lo := bits.Mul64(rateErrPerL, m.ip)
	fh, fl := bits.Mul64(rateErrPerL, m.fr)
	f, r := bits.Div64(fh, fl, m.den)
	if r > 0 {
		f++
	}
	var c uint64
	lo, c = bits.Add64(lo, f, 0)
	hi += c
	k, r := bits.Div64(hi, lo, L)
	if r > 0 {
		k++
	}
	return half - int(min(k, half+1))
}

// NewRateErrors returns an empty distribution of the errors of estimates
// of a rule of limit l.
func NewRateErrors(l int64) *RateErrors {
	return &RateErrors{l: l, bins: make([]int64, rateErrBins), maxAbs: errMag{den: 1}}
}

// Add counts the error of estimate against exact, the log's count.
func (a *RateErrors) Add(estimate algorithms.Rational, exact int64) {
	if estimate.Frac == 0 && estimate.Whole == uint64(exact) {
		// No error, the common case (from 40% of the samples for the
		// counter to most for the others): what addError does for it, no
		// sum or maximum moving.
		a.n++
		if exact > 0 {
			a.nRel++
		}
		a.zero++
		a.bins[rateErrBins/2]++
		return
	}
	a.addError(estimate, exact)
}

// addError counts the error of estimate against exact, any error.
func (a *RateErrors) addError(estimate algorithms.Rational, exact int64) {
	neg, m := errorOf(estimate, exact)
	p, r := m.scaled(relScale)
	a.n++
	if neg {
		a.neg.merge(m.absFrom(p, r))
	} else {
		a.pos.merge(m.absFrom(p, r))
	}
	if exact > 0 {
		a.nRel++
		a.rel.merge(m.relFrom(p, r, exact))
	}
	if a.maxAbs.less(m) {
		a.maxAbs = m
	}
	if m.ip == 0 && m.fr == 0 {
		a.zero++
	}
	switch b := binFrom(neg, m, a.l, p, r); {
	case b < 0:
		a.below++
	case b >= rateErrBins:
		a.above++
	default:
		a.bins[b]++
	}
}

// nearestRank returns ceil(n*num/den), at least 1: the rank of the
// num/den-quantile of n samples.
func nearestRank(n, num, den int64) int64 {
	hi, lo := bits.Mul64(uint64(n), uint64(num))
	q, r := bits.Div64(hi, lo, uint64(den)) // num <= den: q <= n
	if r > 0 {
		q++
	}
	return max(int64(q), 1)
}

// absQuantile returns the bin of |error| that holds the num/den-quantile
// by nearest rank: bin j covers |error|/L from j/rateErrPerL to
// (j+1)/rateErrPerL. zero is true when the quantile is an error exactly 0;
// ok is false when it lies outside the histogram (|error| >= rateErrSpan*L).
func (a *RateErrors) absQuantile(num, den int64) (j int, zero, ok bool) {
	const half = rateErrBins / 2
	rank := nearestRank(a.n, num, den)
	if rank <= a.zero {
		return 0, true, true
	}
	var seen int64
	for j := range half {
		// |error| in bin j: errors in [j, j+1)/1000 of L, and in (j, j+1]
		// below zero.
		if seen += a.bins[half+j] + a.bins[half-1-j]; seen >= rank {
			return j, false, true
		}
	}
	return 0, false, false
}

// quantile is a quantile of |error| as summary reports it, in cost units
// and as a fraction of L: 0 if it is an error exactly 0, else the upper
// edge of the bin holding it, clamped to the maximum; or, when it lies
// beyond the histogram, its lower bound rateErrSpan*L, with atLeast set.
type quantile struct {
	cost, frac float64
	atLeast    bool
}

func (a *RateErrors) quantile(num, den int64, maxAbs, maxFrac float64) quantile {
	if a.n == 0 {
		return quantile{}
	}
	j, zero, ok := a.absQuantile(num, den)
	switch {
	case zero:
		return quantile{}
	case !ok:
		return quantile{cost: rateErrSpan * float64(a.l), frac: rateErrSpan, atLeast: true}
	}
	edge := new(big.Int).Mul(big.NewInt(int64(j+1)), big.NewInt(a.l))
	cost, _ := new(big.Rat).SetFrac(edge, big.NewInt(rateErrPerL)).Float64()
	frac := float64(j+1) / rateErrPerL
	return quantile{cost: math.Min(cost, maxAbs), frac: math.Min(frac, maxFrac)}
}

// RateError closes the distribution into its summary (nil for nil).
func (a *RateErrors) RateError() *RateError {
	if a == nil {
		return nil
	}
	l := float64(a.l)
	meanAbs := a.pos
	meanAbs.merge(a.neg)
	maxAbs := math.Max(a.maxAbs.float(), a.maxMerged)
	maxFrac := maxAbs / l
	p50 := a.quantile(1, 2, maxAbs, maxFrac)
	p99 := a.quantile(99, 100, maxAbs, maxFrac)
	r := &RateError{
		Samples:     a.n,
		Mean:        a.pos.div(a.n, absScale) - a.neg.div(a.n, absScale),
		MeanAbs:     meanAbs.div(a.n, absScale),
		MeanAbsFrac: meanAbs.div(a.n, absScale) / l,
		MeanRel:     a.rel.div(a.nRel, relScale),
		SamplesRel:  a.nRel,
		P50:         p50.cost,
		P50Frac:     p50.frac,
		P50AtLeast:  p50.atLeast,
		P99:         p99.cost,
		P99Frac:     p99.frac,
		P99AtLeast:  p99.atLeast,
		MaxAbs:      maxAbs,
		MaxAbsFrac:  maxFrac,
		Sums:        RateErrorSums{Pos: a.pos.pair(), Neg: a.neg.pair(), Rel: a.rel.pair()},
		Histogram: ErrorHistogram{
			Lo:    -rateErrSpan,
			Width: 1.0 / rateErrPerL,
			Below: a.below,
			Above: a.above,
			Zero:  a.zero,
		},
	}
	for i, c := range a.bins {
		if c != 0 {
			r.Histogram.Counts = append(r.Histogram.Counts, [2]int64{int64(i), c})
		}
	}
	return r
}

// rateErrorsOf rebuilds the distribution a RateError was closed from. The
// exact maximum is not in the summary: its float64 (the nearest to it)
// stands for it, which gives the merged maximum and quantiles the bits one
// pass gives, float64 rounding being monotone.
func rateErrorsOf(r *RateError, l int64) (*RateErrors, error) {
	a := NewRateErrors(l)
	a.n, a.nRel, a.maxMerged = r.Samples, r.SamplesRel, r.MaxAbs
	a.pos, a.neg, a.rel = wideFrom(r.Sums.Pos), wideFrom(r.Sums.Neg), wideFrom(r.Sums.Rel)
	a.below, a.above, a.zero = r.Histogram.Below, r.Histogram.Above, r.Histogram.Zero
	for _, c := range r.Histogram.Counts {
		if c[0] < 0 || c[0] >= rateErrBins {
			return nil, fmt.Errorf("rate error histogram: bin %d out of range", c[0])
		}
		a.bins[c[0]] += c[1]
	}
	if z := a.bins[rateErrBins/2]; a.zero < 0 || a.zero > z {
		return nil, fmt.Errorf("rate error histogram: %d errors of 0, but their bin holds %d", a.zero, z)
	}
	return a, nil
}

// merge adds o's samples to a, or says which sum would overflow (a is
// then partly merged, to be dropped). The bins, below, above and zero of a
// valid distribution count some of its samples, so once the sample count
// fits, they do.
func (a *RateErrors) merge(o *RateErrors) error {
	var add sums
	add.add("samples", &a.n, o.n)
	add.add("samples_rel", &a.nRel, o.nRel)
	if add.err != nil {
		return add.err
	}
	for _, s := range []struct {
		name     string
		dst, src *wideSum
	}{{"pos", &a.pos, &o.pos}, {"neg", &a.neg, &o.neg}, {"rel", &a.rel, &o.rel}} {
		if !s.dst.mergeChecked(*s.src) {
			return fmt.Errorf("sums.%s: the sum overflows a 128-bit integer", s.name)
		}
	}
	if a.maxAbs.less(o.maxAbs) {
		a.maxAbs = o.maxAbs
	}
	a.maxMerged = math.Max(a.maxMerged, o.maxMerged)
	for i, c := range o.bins {
		a.bins[i] += c
	}
	a.below += o.below
	a.above += o.above
	a.zero += o.zero
	return nil
}
