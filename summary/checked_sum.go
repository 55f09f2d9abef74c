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
	if !s.added(dst, v) {
		s.overflow(field, *dst, v)
	}
}

// addAt adds v into *dst, element i of the field named field (whose name
// is written only for an error).
func (s *sums) addAt(field string, i int64, dst *int64, v int64) {
	if !s.added(dst, v) {
		s.overflow(fmt.Sprintf("%s[%d]", field, i), *dst, v)
	}
}

// added adds v into *dst and reports whether it could: false after an
// earlier overflow, or if the sum would leave int64 (*dst unchanged).
func (s *sums) added(dst *int64, v int64) bool {
	if s.err != nil {
		return true // nothing more is added, and the first error stays
	}
	sum, ok := addInt64(*dst, v)
	if ok {
		*dst = sum
	}
	return ok
}

func (s *sums) overflow(field string, a, b int64) {
	s.err = fmt.Errorf("%s: %d + %d overflows a 64-bit integer (at most %d)", field, a, b, int64(math.MaxInt64))
}

// addAll adds src into dst element by element, growing dst to src's length.
func (s *sums) addAll(field string, dst, src []int64) []int64 {
	dst = slicesx.Grow(dst, len(src))
	for i := range src {
		s.addAt(field, int64(i), &dst[i], src[i])
	}
	return dst
}

// addDisagreement adds o into *d.
func (s *sums) addDisagreement(field string, d *Disagreement, o Disagreement) {
	s.add(field+".over", &d.Over, o.Over)
	s.add(field+".under", &d.Under, o.Under)
}
