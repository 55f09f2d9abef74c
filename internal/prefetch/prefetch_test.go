package prefetch

import (
	"testing"
	"unsafe"
)

// TestLineChangesNothing prefetches lines of a slice, its ends included,
// and checks that no value changed.
func TestLineChangesNothing(t *testing.T) {
	s := make([]uint64, 1024)
	for i := range s {
		s[i] = uint64(i) * 7
	}
	for i := range s {
		Line(unsafe.Pointer(&s[i]))
	}
	for i := range s {
		if s[i] != uint64(i)*7 {
			t.Fatalf("s[%d] = %d after prefetching, want %d", i, s[i], uint64(i)*7)
		}
	}
}
