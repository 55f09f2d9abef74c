package summary

import (
	"fmt"
	"math"

	"ratebench/internal/slicesx"
)

// addInt64 returns a + b, and false if the sum leaves int64.
func addInt64(a, b int64) (int64, bool) {
	s := a + b
	if (b > 0 && s < a) || (b < 0 && s > a) {
		return 0, false
	}
	return s, true
}

// sums adds the counts of the parts of a merge, field by field, and keeps
// the first sum that would leave int64: two shards of 2^62 admissions each
// merge into an error naming the field, never into a wrapped negative
// count. After an overflow it adds nothing more; err says which.
type sums struct{ err error }

// add adds v into *dst, the field named field.
func (s *sums) add(field string, dst *int64, v int64) {
	if s.err != nil {
		return
	}
	sum, ok := addInt64(*dst, v)
	if !ok {
		s.err = fmt.Errorf("%s: %d + %d overflows a 64-bit integer (at most %d)", field, *dst, v, int64(math.MaxInt64))
		return
	}
	*dst = sum
}

// addAll adds src into dst element by element, growing dst to src's length.
func (s *sums) addAll(field string, dst, src []int64) []int64 {
	dst = slicesx.Grow(dst, len(src))
	for i := range src {
		s.add(fmt.Sprintf("%s[%d]", field, i), &dst[i], src[i])
	}
	return dst
}

// addDisagreement adds o into *d.
func (s *sums) addDisagreement(field string, d *Disagreement, o Disagreement) {
	s.add(field+".over", &d.Over, o.Over)
	s.add(field+".under", &d.Under, o.Under)
}
