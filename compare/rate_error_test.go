package compare

import (
	"math"
	"math/big"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"ratebench/algorithms"
)

// binOf returns the one histogram bin holding an error, or -1 below and
// rateErrBins above the range.
func binOf(t *testing.T, l int64, est algorithms.Rational, exact int64) int {
	t.Helper()
	a := newRateErrorAcc(l)
	a.add(est, exact)
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
	t.Parallel()
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

// atRepeat returns n requests of key k at time at.
func atRepeat(k string, at int64, n int) []rq {
	var reqs []rq
	for range n {
		reqs = append(reqs, rq{k, at, 1})
	}
	return reqs
}

func countAllRun(t *testing.T, rule, alg string, reqs []rq) *RateError {
	t.Helper()
	cfg := Config{Rules: []algorithms.Rule{mustRule(t, rule)}, Algorithms: []string{alg}, Modes: []Mode{Independent}, Counts: []Count{CountAll}}
	re := findRun(t, replay(t, cfg, reqs), "independent", alg).RateError
	if re == nil {
		t.Fatalf("%s under count all: no rate error", alg)
	}
	return re
}

// n requests late in a window and one at the next window's start: under
// count all the fixed window's estimate there is 0 and the log's count n,
// an error of -n.
func TestRateErrorIntegerErrorsOnEdges(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		n    int
		bin  int64 // -n/10 of L
		p99  float64
		frac float64
	}{{18, 200, 18, 1.8}, {16, 400, 16, 1.6}, {11, 900, 11, 1.1}} {
		reqs := append(atRepeat("k", 59*sec, c.n), rq{"k", 60 * sec, 1})
		re := countAllRun(t, "10/1m", "fixed", reqs)
		want := [][2]int64{{c.bin, 1}, {2000, int64(c.n)}}
		if !slices.Equal(re.Histogram.Counts, want) || re.Histogram.Zero != int64(c.n) {
			t.Errorf("n=%d: histogram %v (zero %d), want %v", c.n, re.Histogram.Counts, re.Histogram.Zero, want)
		}
		if re.P99 != c.p99 || re.P99Frac != c.frac || re.MaxAbs != c.p99 || re.P50 != 0 {
			t.Errorf("n=%d: p50 %v, p99 %v (%v L), max %v; want p99 = max = %v (%v L), p50 0", c.n, re.P50, re.P99, re.P99Frac, re.MaxAbs, c.p99, c.frac)
		}
	}
	// The counter at the start of a window after one request at 0: it
	// estimates 1, the log's window (0, 60s] is empty: +1, 0.01 of L.
	re := countAllRun(t, "100/1m", "counter", []rq{{"k", 0, 1}, {"k", 60 * sec, 1}})
	if want := [][2]int64{{2000, 1}, {2010, 1}}; !slices.Equal(re.Histogram.Counts, want) {
		t.Errorf("counter: histogram %v, want %v", re.Histogram.Counts, want)
	}
	if re.P99 != 1 || re.P99Frac != 0.01 || re.MaxAbs != 1 || re.Mean != 0.5 {
		t.Errorf("counter: p99 %v (%v L), max %v, mean %v; want 1 (0.01 L), 1, 0.5", re.P99, re.P99Frac, re.MaxAbs, re.Mean)
	}
}

// Eight requests at 59 s and one at 60 s under 5/1m: the fixed window's
// errors are eight 0 and one -8 = -1.6 L, so p99 = max = 8 and p50 = 0.
func TestRateErrorQuantileOfAnEdgeErrorIsTheError(t *testing.T) {
	t.Parallel()
	reqs := append(atRepeat("k", 59*sec, 8), rq{"k", 60 * sec, 1})
	re := countAllRun(t, "5/1m", "fixed", reqs)
	if re.P99 != 8 || re.P99Frac != 1.6 || re.MaxAbs != 8 || re.MaxAbsFrac != 1.6 {
		t.Errorf("p99 %v (%v L), max %v (%v L); want 8 (1.6 L) both", re.P99, re.P99Frac, re.MaxAbs, re.MaxAbsFrac)
	}
	if re.P50 != 0 || re.P50Frac != 0 || re.P50AtLeast || re.P99AtLeast {
		t.Errorf("p50 %v (%v L), bounds %v %v; want 0 and no bound", re.P50, re.P50Frac, re.P50AtLeast, re.P99AtLeast)
	}
	if re.Sums.Neg != [2]uint64{0, 8_000_000} || re.Sums.Pos != [2]uint64{} || re.Sums.Rel != [2]uint64{0, 1_000_000_000} {
		t.Errorf("sums %+v", re.Sums)
	}
}

// A run whose every error is 0 reads 0, not the first bin's upper edge
// L/1000; the quantiles are never above the maximum.
func TestRateErrorZeroReadsZero(t *testing.T) {
	t.Parallel()
	reqs := append(atRepeat("k", 10*sec, 7), atRepeat("k", 20*sec, 5)...)
	re := countAllRun(t, "10/1m", "fixed", reqs)
	if re.P50 != 0 || re.P99 != 0 || re.P50Frac != 0 || re.P99Frac != 0 || re.MaxAbs != 0 || re.Histogram.Zero != 12 {
		t.Errorf("all errors 0: p50 %v (%v L), p99 %v (%v L), max %v, zero %d", re.P50, re.P50Frac, re.P99, re.P99Frac, re.MaxAbs, re.Histogram.Zero)
	}
	// Errors that are not 0 but below the first bin's edge: the quantile
	// is the maximum, not the edge.
	a := newRateErrorAcc(1000)
	small := algorithms.Rational{Whole: 0, Frac: 1, Den: 4} // 0.25, in the bin [0, 1) of 1000
	for range 10 {
		a.add(small, 0)
	}
	if s := a.summary(); s.P50 != 0.25 || s.P99 != 0.25 || s.P50Frac != 0.00025 || s.MaxAbs != 0.25 {
		t.Errorf("errors of 0.25 with L = 1000: p50 %v (%v L), p99 %v, max %v; want 0.25 (0.00025 L)", s.P50, s.P50Frac, s.P99, s.MaxAbs)
	}
}

// A quantile beyond the histogram's ±2L is reported as its lower bound 2L,
// marked, not as the maximum.
func TestRateErrorQuantileBeyondTheRangeIsABound(t *testing.T) {
	t.Parallel()
	// 3 requests at 59 s, 6 at 60 s under 1/1m: errors 0, 0, 0, then -3
	// six times (the fixed window restarts at 60 s, the log still holds
	// the three at 59 s).
	reqs := append(atRepeat("k", 59*sec, 3), atRepeat("k", 60*sec, 6)...)
	re := countAllRun(t, "1/1m", "fixed", reqs)
	if re.Histogram.Below != 6 || re.MaxAbs != 3 {
		t.Fatalf("histogram %+v, max %v", re.Histogram, re.MaxAbs)
	}
	if !re.P50AtLeast || re.P50 != 2 || re.P50Frac != 2 || !re.P99AtLeast || re.P99 != 2 || re.P99Frac != 2 {
		t.Errorf("p50 %v (%v L, at least %v), p99 %v (%v L, at least %v); want both at least 2 (2 L)",
			re.P50, re.P50Frac, re.P50AtLeast, re.P99, re.P99Frac, re.P99AtLeast)
	}
	// With half the errors inside, p50 is read from the bins, p99 a bound.
	reqs = append(atRepeat("k", 59*sec, 3), atRepeat("k", 60*sec, 2)...)
	re = countAllRun(t, "1/1m", "fixed", reqs)
	if re.P50AtLeast || re.P50 != 0 || !re.P99AtLeast || re.P99 != 2 {
		t.Errorf("p50 %v (at least %v), p99 %v (at least %v)", re.P50, re.P50AtLeast, re.P99, re.P99AtLeast)
	}
}

// Merging the summaries of parts gives the bits of one pass, exact maximum
// and quantiles included, and a summary without the zero count (written
// before it existed) still merges.
func TestRateErrorMergeIsOnePass(t *testing.T) {
	t.Parallel()
	l := int64(7)
	ests := []algorithms.Rational{whole(0), {Whole: 3, Frac: 2, Den: 3}, {Whole: 1, Frac: 1, Den: 7}, whole(30), {Frac: 5, Den: 9}}
	one := newRateErrorAcc(l)
	parts := []*rateErrorAcc{newRateErrorAcc(l), newRateErrorAcc(l)}
	for i := range 40 {
		est, exact := ests[i%len(ests)], int64(i%6)
		one.add(est, exact)
		parts[i%2].add(est, exact)
	}
	a, err := rateErrorFrom(parts[0].summary(), l)
	if err != nil {
		t.Fatal(err)
	}
	b, err := rateErrorFrom(parts[1].summary(), l)
	if err != nil {
		t.Fatal(err)
	}
	a.merge(b)
	if got, want := *a.summary(), *one.summary(); !sameRateError(got, want) {
		t.Errorf("merged %+v\none pass %+v", got, want)
	}
	old := parts[0].summary()
	old.Histogram.Zero = 0
	if _, err := rateErrorFrom(old, l); err != nil {
		t.Errorf("a summary without zero count: %v", err)
	}
	old.Histogram.Zero = 1 << 40
	if _, err := rateErrorFrom(old, l); err == nil {
		t.Error("more errors of 0 than their bin holds: no error")
	}
}

func sameRateError(a, b RateError) bool { return reflect.DeepEqual(a, b) }

// Each sample adds to the sums its exact error times the scale, rounded
// half up: checked against math/big on random errors, small and huge.
func TestRateErrorFixedPointIsExact(t *testing.T) {
	t.Parallel()
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
