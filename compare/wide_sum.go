package compare

import (
	"math"
	"math/bits"
)

// wideSum is an exact 128-bit sum of non-negative integers. Sums of
// reported float quantities are accumulated as fixed-point integers in it,
// so that they do not depend on the order of addition: merging shards or
// workers gives the same bits as one pass.
type wideSum struct{ hi, lo uint64 }

func (s *wideSum) add(v uint64) {
	var c uint64
	s.lo, c = bits.Add64(s.lo, v, 0)
	s.hi += c
}

func (s *wideSum) merge(o wideSum) {
	var c uint64
	s.lo, c = bits.Add64(s.lo, o.lo, 0)
	s.hi += o.hi + c
}

// fixed converts a non-negative reported value to fixed point with the
// given scale, saturating (a value that large is reported as such anyway).
func fixed(v, scale float64) uint64 {
	f := math.Round(v * scale)
	if f >= 0x1p64 {
		return math.MaxUint64
	}
	return uint64(f)
}

// div returns s/(n*scale) as a float64.
func (s wideSum) div(n int64, scale float64) float64 {
	if n == 0 {
		return 0
	}
	return (float64(s.hi)*0x1p64 + float64(s.lo)) / float64(n) / scale
}

func (s wideSum) pair() [2]uint64 { return [2]uint64{s.hi, s.lo} }

func wideFrom(p [2]uint64) wideSum { return wideSum{hi: p[0], lo: p[1]} }
