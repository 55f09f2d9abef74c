package summary

import (
	"math"
	"math/big"
	"math/rand/v2"
	"reflect"
	"testing"

	"ratebench/algorithms"
)

// binOf returns the one histogram bin holding an error, or -1 below and
// rateErrBins above the range.
func binOf(t *testing.T, l int64, est algorithms.Rational, exact int64) int {
	t.Helper()
	a := NewRateErrors(l)
	a.Add(est, exact)
	switch {
	case a.below == 1:
		return -1
	case a.above == 1:
		return rateErrBins
	}
	for i, c := range a.bins {
		if c == 1 {
			return i
		}
	}
	t.Fatalf("no bin holds the error")
	return 0
}

func whole(v uint64) algorithms.Rational { return algorithms.Rational{Whole: v, Den: 1} }

// An error exactly on a bin's lower edge is in that bin: bin i covers
// [-2 + i/1000, -2 + (i+1)/1000) of L, on the exact error, integer or not.
func TestRateErrorBinsAnEdgeInTheBinItStarts(t *testing.T) {
	for _, c := range []struct {
		l     int64
		est   algorithms.Rational
		exact int64
		want  int
	}{
		{10, whole(0), 18, 200},  // -1.8 L
		{10, whole(0), 16, 400},  // -1.6 L
		{10, whole(0), 11, 900},  // -1.1 L
		{100, whole(1), 0, 2010}, // +0.01 L
		{100, whole(0), 1, 1990}, // -0.01 L
		{10, whole(0), 20, 0},    // -2 L: the first bin
		{10, whole(20), 0, 4000}, // +2 L: above
		{10, algorithms.Rational{Whole: 19, Frac: 999, Den: 1000}, 0, 3999},
		{10, algorithms.Rational{Whole: 0, Frac: 1, Den: 1000}, 20, 0},    // -1.9999 L
		{10, algorithms.Rational{Whole: 0, Frac: 999, Den: 1000}, 21, -1}, // -2.0001 L: below
		{500, algorithms.Rational{Whole: 0, Frac: 1, Den: 2}, 0, 2001},    // +0.5 = 0.001 L
		{500, algorithms.Rational{Whole: 2, Frac: 1, Den: 2}, 3, 1999},    // -0.5 = -0.001 L
		{3, algorithms.Rational{Whole: 1, Frac: 1, Den: 3}, 0, 2444},      // 4/9 L: not on an edge
		{3, algorithms.Rational{Whole: 0, Frac: 2, Den: 3}, 2, 1555},      // -4/9 L
		{1 << 62, whole(1<<62 + 1<<61), 0, 3500},                          // 1.5 L, L = 2^62
		{math.MaxInt64, whole(1 << 63), 0, 3000},                          // L + 1: an estimate above 2^63-1
		{math.MaxInt64, whole(0), math.MaxInt64, 1000},                    // -L
	} {
		if got := binOf(t, c.l, c.est, c.exact); got != c.want {
			t.Errorf("L=%d, estimate %+v, exact %d: bin %d, want %d", c.l, c.est, c.exact, got, c.want)
		}
	}
}

// Errors that are not 0 but below the first bin's edge read the maximum,
// not the edge.
func TestRateErrorBelowTheFirstEdgeReadsTheMaximum(t *testing.T) {
	a := NewRateErrors(1000)
	small := algorithms.Rational{Whole: 0, Frac: 1, Den: 4} // 0.25, in the bin [0, 1) of 1000
	for range 10 {
		a.Add(small, 0)
	}
	if s := a.RateError(); s.P50 != 0.25 || s.P99 != 0.25 || s.P50Frac != 0.00025 || s.MaxAbs != 0.25 {
		t.Errorf("errors of 0.25 with L = 1000: p50 %v (%v L), p99 %v, max %v; want 0.25 (0.00025 L)", s.P50, s.P50Frac, s.P99, s.MaxAbs)
	}
}

// Merging the summaries of parts gives the bits of one pass, exact maximum
// and quantiles included, and a summary without the zero count (written
// before it existed) still merges.
func TestRateErrorMergeIsOnePass(t *testing.T) {
	l := int64(7)
	ests := []algorithms.Rational{whole(0), {Whole: 3, Frac: 2, Den: 3}, {Whole: 1, Frac: 1, Den: 7}, whole(30), {Frac: 5, Den: 9}}
	one := NewRateErrors(l)
	parts := []*RateErrors{NewRateErrors(l), NewRateErrors(l)}
	for i := range 40 {
		est, exact := ests[i%len(ests)], int64(i%6)
		one.Add(est, exact)
		parts[i%2].Add(est, exact)
	}
	a, err := rateErrorsOf(parts[0].RateError(), l)
	if err != nil {
		t.Fatal(err)
	}
	b, err := rateErrorsOf(parts[1].RateError(), l)
	if err != nil {
		t.Fatal(err)
	}
	a.merge(b)
	if got, want := *a.RateError(), *one.RateError(); !sameRateError(got, want) {
		t.Errorf("merged %+v\none pass %+v", got, want)
	}
	old := parts[0].RateError()
	old.Histogram.Zero = 0
	if _, err := rateErrorsOf(old, l); err != nil {
		t.Errorf("a summary without zero count: %v", err)
	}
	old.Histogram.Zero = 1 << 40
	if _, err := rateErrorsOf(old, l); err == nil {
		t.Error("more errors of 0 than their bin holds: no error")
	}
}

func sameRateError(a, b RateError) bool { return reflect.DeepEqual(a, b) }

// Each sample adds to the sums its exact error times the scale, rounded
// half up: checked against math/big on random errors, small and huge.
func TestRateErrorFixedPointIsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 34))
	u64 := func(bits uint) uint64 { return rng.Uint64() >> (64 - bits) }
	big64 := func(v uint64) *big.Int { return new(big.Int).SetUint64(v) }
	roundHalfUp := func(x *big.Rat) *big.Int {
		n := new(big.Int).Mul(x.Num(), big.NewInt(2))
		n.Add(n, x.Denom())
		return n.Div(n, new(big.Int).Mul(x.Denom(), big.NewInt(2)))
	}
	wide := func(s wideSum) *big.Int {
		v := new(big.Int).Lsh(big64(s.hi), 64)
		return v.Add(v, big64(s.lo))
	}
	cases := []errMag{{ip: 0, fr: 1, den: 2_000_000}, {ip: 0, fr: 1, den: 2_000_000_000}, {ip: 1<<64 - 1, fr: 1<<63 - 2, den: 1<<63 - 1}}
	for range 2000 {
		b := uint(1 + rng.IntN(64))
		den := max(u64(uint(1+rng.IntN(63))), 1)
		cases = append(cases, errMag{ip: u64(b), fr: rng.Uint64N(den), den: den})
	}
	for _, m := range cases {
		x := new(big.Rat).SetFrac(new(big.Int).Add(new(big.Int).Mul(big64(m.ip), big64(m.den)), big64(m.fr)), big64(m.den))
		if got, want := wide(m.fixedAbs(absScale)), roundHalfUp(new(big.Rat).Mul(x, big.NewRat(absScale, 1))); got.Cmp(want) != 0 {
			t.Fatalf("%+v: abs %v, want %v", m, got, want)
		}
		for _, exact := range []int64{1, 3, int64(1 + u64(20)), int64(1 + u64(63)), math.MaxInt64} {
			want := roundHalfUp(new(big.Rat).Mul(x, big.NewRat(relScale, exact)))
			if got := wide(m.fixedRel(relScale, exact)); got.Cmp(want) != 0 {
				t.Fatalf("%+v / %d: rel %v, want %v", m, exact, got, want)
			}
		}
	}
}

// Add's path for an error of exactly 0 counts the sample as the path for
// any error does: the same distribution, field by field, over samples
// half of which are exact.
func TestRateErrorsZeroPathIsTheGeneralOne(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	fast, slow := NewRateErrors(10), NewRateErrors(10)
	zeros := 0
	for range 20000 {
		exact := rng.Int64N(25)
		est := algorithms.Rational{Whole: uint64(exact), Den: 1}
		if rng.IntN(2) == 0 {
			den := 1 + rng.Int64N(60)
			est = algorithms.Rational{Whole: uint64(rng.Int64N(25)), Frac: rng.Int64N(den), Den: den}
		}
		if est.Frac == 0 && est.Whole == uint64(exact) {
			zeros++
		}
		fast.Add(est, exact)
		slow.addError(est, exact)
	}
	if zeros < 5000 || !reflect.DeepEqual(fast, slow) {
		t.Errorf("%d exact samples; the distributions differ:\n%+v\n%+v", zeros, fast, slow)
	}
}

// addError reads both fixed-point sums and the bin from one scaling,
// m*relScale: they are those fixedAbs, fixedRel and bin compute on their
// own, for integer and fractional errors, near and on the rounding and
// bin edges, of either sign, in and out of the histogram.
func TestRateErrorOneScalingReadsWhatEachComputes(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	dens := []uint64{1, 2, 3, 7, 1000, 2000, 1e9, 60e9, 3600e9, 1<<63 - 1}
	for range 200000 {
		den := dens[rng.IntN(len(dens))]
		m := errMag{ip: rng.Uint64N(300), den: den}
		switch rng.IntN(4) {
		case 0: // integer
		case 1: // on a thousandth of the den, where rounding and bins turn
			m.fr = den / 1000 * rng.Uint64N(1000) % den
		case 2: // just past half a millionth
			m.fr = min(den-1, den/2000000+rng.Uint64N(3))
		default:
			m.fr = rng.Uint64N(den)
		}
		if rng.IntN(50) == 0 {
			m.ip = rng.Uint64()>>rng.IntN(64) + 1
		}
		neg := rng.IntN(2) == 0
		l := []int64{1, 3, 10, 100, 500, 1 << 40}[rng.IntN(6)]
		exact := 1 + rng.Int64N(1000)
		p, r := m.scaled(relScale)
		if got, want := m.absFrom(p, r), m.fixedAbs(absScale); got != want {
			t.Fatalf("%+v: abs %+v from the one scaling, %+v alone", m, got, want)
		}
		if got, want := m.relFrom(p, r, exact), m.fixedRel(relScale, exact); got != want {
			t.Fatalf("%+v, exact %d: rel %+v from the one scaling, %+v alone", m, exact, got, want)
		}
		if got, want := binFrom(neg, m, l, p, r), bin(neg, m, l); got != want {
			t.Fatalf("%+v, neg %v, L %d: bin %d from the one scaling, %d alone", m, neg, l, got, want)
		}
	}
}
