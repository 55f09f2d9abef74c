package compare

import (
	"slices"
	"testing"

	"ratebench/algorithms"
	"ratebench/summary"
)

// atRepeat returns n requests of key k at time at.
func atRepeat(k string, at int64, n int) []rq {
	var reqs []rq
	for range n {
		reqs = append(reqs, rq{k, at, 1})
	}
	return reqs
}

func countAllRun(t *testing.T, rule, alg string, reqs []rq) *summary.RateError {
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
// L/1000 (and errors below that edge read the maximum: see package
// summary).
func TestRateErrorZeroReadsZero(t *testing.T) {
	t.Parallel()
	reqs := append(atRepeat("k", 10*sec, 7), atRepeat("k", 20*sec, 5)...)
	re := countAllRun(t, "10/1m", "fixed", reqs)
	if re.P50 != 0 || re.P99 != 0 || re.P50Frac != 0 || re.P99Frac != 0 || re.MaxAbs != 0 || re.Histogram.Zero != 12 {
		t.Errorf("all errors 0: p50 %v (%v L), p99 %v (%v L), max %v, zero %d", re.P50, re.P50Frac, re.P99, re.P99Frac, re.MaxAbs, re.Histogram.Zero)
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
