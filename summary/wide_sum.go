package summary

import "math/bits"

// wideSum is an exact 128-bit sum of non-negative integers. Sums of
// reported quantities are accumulated as fixed-point integers in it, so
// that they do not depend on the order of addition: merging shards or
// workers gives the same bits as one pass.
type wideSum struct{ hi, lo uint64 }

func (s *wideSum) add(v uint64) {
	var c uint64
	s.lo, c = bits.Add64(s.lo, v, 0)
	s.hi += c
}

// mergeChecked adds o into s, false (s unchanged) if the sum leaves 128
// bits.
func (s *wideSum) mergeChecked(o wideSum) bool {
	lo, c := bits.Add64(s.lo, o.lo, 0)
	hi, c := bits.Add64(s.hi, o.hi, c)
	if c != 0 {
		return false
	}
	s.hi, s.lo = hi, lo
	return true
}

func (s *wideSum) merge(o wideSum) {
	var c uint64
	s.lo, c = bits.Add64(s.lo, o.lo, 0)
	s.hi += o.hi + c
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
