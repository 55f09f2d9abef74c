package products

import (
	"slices"
	"testing"
)

// A list pushed to keeps its live entries in order; a full one with
// forgotten entries at its start makes room there rather than grow, and
// grows only when its live entries fill it.
func TestPushLiveGrowsOnlyForLiveEntries(t *testing.T) {
	s, head := make([]int, 0, 4), 0
	for v := range 4 {
		s, head = pushLive(s, head, v)
	}
	head = 3 // 0, 1 and 2 forgotten
	s, head = pushLive(s, head, 4)
	if head != 0 || cap(s) != 4 || !slices.Equal(s[head:], []int{3, 4}) {
		t.Fatalf("full with 3 forgotten: %v from %d, cap %d; want [3 4] from 0 in the same 4", s, head, cap(s))
	}
	for v := 5; v < 7; v++ {
		s, head = pushLive(s, head, v)
	}
	if cap(s) != 4 || !slices.Equal(s[head:], []int{3, 4, 5, 6}) {
		t.Fatalf("filled: %v, cap %d", s[head:], cap(s))
	}
	s, head = pushLive(s, head, 7) // every entry live: the list grows
	if head != 0 || cap(s) <= 4 || !slices.Equal(s[head:], []int{3, 4, 5, 6, 7}) {
		t.Fatalf("grown: %v from %d, cap %d", s, head, cap(s))
	}
	s, head = pushLive(s[:0:0], 0, 9)
	if head != 0 || !slices.Equal(s, []int{9}) {
		t.Fatalf("from empty: %v from %d", s, head)
	}
}
