package algorithms

import "strconv"

// Limiter is one rate-limiting algorithm applied to every key of a trace
// under one rule. Keys are dense ids in [0, n) after Grow(n). A Limiter is
// not safe for concurrent use; run one per goroutine (keys never interact,
// so a trace can be split by key).
type Limiter interface {
	// Name is the canonical spec of the limiter, as New reads it:
	// "counter", "token:B=20", "buckets:4".
	Name() string
	// Decide advances key id's state to time t and reports whether a request
	// of the given cost at t would be admitted. It does not count the request.
	Decide(id int32, t, cost int64) bool
	// Record counts a request in key id's state; call it after Decide with
	// the same t. Whether it is called for admitted, reference-admitted or
	// all requests is the caller's counting policy.
	Record(id int32, t, cost int64)
	// Grow makes every id below n valid; new keys start in the initial state.
	Grow(n int)
	// Bytes returns the analytic state size of key id now: the bytes a
	// compact implementation of this algorithm must keep for the key (see
	// each algorithm's doc), not what this harness happens to use.
	Bytes(id int32) int64
	// FixedSize reports whether Bytes is the same for every key at every
	// instant (all but the log).
	FixedSize() bool
	// CountsRejected reports whether the --count all policy applies: true
	// for the window algorithms, false for those that by construction count
	// only what they admit (token, gcra).
	CountsRejected() bool
}

// Estimator is implemented by the window algorithms, whose decision compares
// an estimate of the cost in the sliding window (t-W, t] with the limit.
type Estimator interface {
	// Estimate returns the algorithm's estimate of the cost in (t-W, t] for
	// key id, after Decide(id, t, ...) and before Record: the exact rational
	// the decision compares with the limit.
	Estimate(id int32, t int64) Rational
}

// Rational is an exact non-negative rational Whole + Frac/Den, with
// 0 <= Frac < Den: a window algorithm's estimate of a cost. Whole is
// unsigned because an estimate may add two counts, each below 2^63.
type Rational struct {
	Whole     uint64
	Frac, Den int64
}

// Whole returns the integer v >= 0 as a Rational.
func Whole(v int64) Rational { return Rational{Whole: uint64(v), Den: 1} }

// weighted returns base + p*num/den exactly, for base, p >= 0 and
// 0 <= num <= den, den > 0: a count plus a count weighted by num/den.
func weighted(base, p, num, den int64) Rational {
	q, r, _ := DivMod(p, num, den) // q <= p: always fits
	return Rational{Whole: uint64(base) + uint64(q), Frac: r, Den: den}
}

// grow extends s to n elements of zero value, keeping its contents.
func grow[T any](s []T, n int) []T {
	if n <= len(s) {
		return s
	}
	if n <= cap(s) {
		return s[:n]
	}
	c := 2 * cap(s)
	if c < n {
		c = n
	}
	ns := make([]T, n, c)
	copy(ns, s)
	return ns
}

// MaxCost is the largest cost of one request the limiters accept (the range
// of Parquet's INT32 cost column). It keeps every running sum of a window far
// from int64 overflow: a window would need 2^32 requests of MaxCost. It is
// traces.MaxCost, the largest cost a trace reader accepts, kept here too as
// the two packages import nothing of each other; a test of package compare
// checks that they are equal.
const MaxCost = 1<<31 - 1

func itoa(v int64) string { return strconv.FormatInt(v, 10) }
