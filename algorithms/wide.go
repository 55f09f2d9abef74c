package algorithms

import (
	"math"
	"math/bits"
)

// The limiters' 128-bit arithmetic: exact products of non-negative int64
// values, sums of a few, and their quotients. Packages distributed and
// live/redis decide through this package's limiters (Counter.Admits and
// the like) and need none of their own. The counter's admission rules
// (counter.go) use math/bits directly, to stay within the inliner's budget.

// U128 is an unsigned 128-bit integer, used for exact products of two
// non-negative int64 values and sums of a few such products.
type U128 struct{ Hi, Lo uint64 }

// Mul returns a*b for a, b >= 0.
func Mul(a, b int64) U128 {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	return U128{hi, lo}
}

// MulOK returns a*b for a, b >= 0; ok is false when it overflows int64.
func MulOK(a, b int64) (int64, bool) {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	return int64(lo), hi == 0 && lo <= math.MaxInt64
}

// Add returns x+y; the callers' operands are products of int64 values below
// 2^63, so the sum of up to four of them cannot wrap.
func (x U128) Add(y U128) U128 {
	lo, c := bits.Add64(x.Lo, y.Lo, 0)
	hi, _ := bits.Add64(x.Hi, y.Hi, c)
	return U128{hi, lo}
}

// AddInt returns x+v for v >= 0.
func (x U128) AddInt(v int64) U128 { return x.Add(U128{0, uint64(v)}) }

// Le reports whether x <= y.
func (x U128) Le(y U128) bool { return x.Hi < y.Hi || (x.Hi == y.Hi && x.Lo <= y.Lo) }

// le128 reports whether the 128-bit (xh, xl) <= (yh, yl), by the borrow of
// y-x: no branch, which a decision on a key's freshly loaded state could
// only mispredict.
func le128(xh, xl, yh, yl uint64) bool {
	_, b := bits.Sub64(yl, xl, 0)
	_, b = bits.Sub64(yh, xh, b)
	return b == 0
}

// Lt reports whether x < y.
func (x U128) Lt(y U128) bool { return x.Hi < y.Hi || (x.Hi == y.Hi && x.Lo < y.Lo) }

// QuoRemWide returns x/d and x%d for d > 0, the quotient in 128 bits.
func (x U128) QuoRemWide(d int64) (U128, int64) {
	qh, r := bits.Div64(0, x.Hi, uint64(d))
	ql, r := bits.Div64(r, x.Lo, uint64(d))
	return U128{qh, ql}, int64(r)
}

// Minus returns x-y for x >= y.
func (x U128) Minus(y U128) U128 {
	lo, b := bits.Sub64(x.Lo, y.Lo, 0)
	hi, _ := bits.Sub64(x.Hi, y.Hi, b)
	return U128{hi, lo}
}

// quoFloor returns floor(x/d) for d > 0; ok is false when it does not fit
// in int64.
func (x U128) quoFloor(d int64) (int64, bool) {
	q, _, ok := x.quoRem(d)
	return q, ok
}

// QuoCeil returns ceil(x/d) for d > 0; ok is false when it does not fit in
// int64.
func (x U128) QuoCeil(d int64) (int64, bool) {
	q, r, ok := x.quoRem(d)
	if !ok {
		return 0, false
	}
	if r > 0 {
		if q == 1<<63-1 {
			return 0, false
		}
		q++
	}
	return q, true
}

// quoRem returns x/d and x%d for d > 0; ok is false when the quotient does
// not fit in int64.
func (x U128) quoRem(d int64) (q, r int64, ok bool) {
	if x.Hi >= uint64(d) {
		return 0, 0, false
	}
	uq, ur := bits.Div64(x.Hi, x.Lo, uint64(d))
	if uq > 1<<63-1 {
		return 0, 0, false
	}
	return int64(uq), int64(ur), true
}

// float returns x as a float64, for reported (never decided-on) estimates.
func (x U128) float() float64 { return float64(x.Hi)*0x1p64 + float64(x.Lo) }

// DivMod returns (a*b)/d and (a*b)%d for a, b >= 0 and d > 0. ok is false
// when the quotient does not fit in int64.
func DivMod(a, b, d int64) (q, r int64, ok bool) {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi >= uint64(d) {
		return 0, 0, false
	}
	uq, ur := bits.Div64(hi, lo, uint64(d))
	if uq > 1<<63-1 {
		return 0, 0, false
	}
	return int64(uq), int64(ur), true
}

// SatAdd returns a+b for a, b >= 0, saturating at the largest int64 rather
// than wrapping: a count that large already exceeds every limit. The
// distributed simulation's counts saturate by it too.
func SatAdd(a, b int64) int64 {
	if s := a + b; s >= a {
		return s
	}
	return 1<<63 - 1
}
