package slicesx

import (
	"slices"
	"testing"
)

// Grow keeps the contents, zeroes what it adds even where the backing array
// held older values, and never shrinks.
func TestGrow(t *testing.T) {
	s := []int{1, 2, 3, 4}[:2] // 3 and 4 stay in the backing array
	s = Grow(s, 4)
	if !slices.Equal(s, []int{1, 2, 0, 0}) {
		t.Errorf("Grow = %v, want [1 2 0 0]", s)
	}
	if s = Grow(s, 1); len(s) != 4 {
		t.Errorf("Grow to fewer elements gave length %d", len(s))
	}
	if s = Grow(s, 100); len(s) != 100 || s[0] != 1 || s[99] != 0 {
		t.Errorf("Grow past the capacity: len %d, %v...", len(s), s[:2])
	}
}
