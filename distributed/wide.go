package distributed

import "math/bits"

// u128 is an unsigned 128-bit integer, for exact products of two
// non-negative int64 values and sums of a few of them (as in package
// algorithms, whose helpers are unexported).
type u128 struct{ hi, lo uint64 }

// mul returns a*b for a, b >= 0.
func mul(a, b int64) u128 {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	return u128{hi, lo}
}

// add returns x+y; the operands are products of int64 values below 2^63,
// so the sum of up to four of them cannot wrap.
func (x u128) add(y u128) u128 {
	lo, c := bits.Add64(x.lo, y.lo, 0)
	hi, _ := bits.Add64(x.hi, y.hi, c)
	return u128{hi, lo}
}

// le reports whether x <= y.
func (x u128) le(y u128) bool { return x.hi < y.hi || (x.hi == y.hi && x.lo <= y.lo) }

// lt reports whether x < y.
func (x u128) lt(y u128) bool { return x.hi < y.hi || (x.hi == y.hi && x.lo < y.lo) }

// floorMulDiv returns floor(a*b/d) for a, b >= 0 and d > 0 when b <= d, so
// that the quotient is at most a and fits.
func floorMulDiv(a, b, d int64) int64 {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	q, _ := bits.Div64(hi, lo, uint64(d))
	return int64(q)
}

// satAdd returns a+b for a, b >= 0, saturating at the largest int64: a
// count that large already exceeds every limit.
func satAdd(a, b int64) int64 {
	if s := a + b; s >= a {
		return s
	}
	return 1<<63 - 1
}
