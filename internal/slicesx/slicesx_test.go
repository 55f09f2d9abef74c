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

// A Chunked keeps every element where it was across growth (addresses
// included), zeroes what it adds and never shrinks.
func TestChunked(t *testing.T) {
	var c Chunked[int64]
	if c.Len() != 0 {
		t.Fatalf("the zero Chunked holds %d elements", c.Len())
	}
	c.Grow(3)
	first := c.At(0)
	for i := range 3 {
		*c.At(i) = int64(i + 1)
	}
	n := 3*(1<<chunkBits) + 5
	c.Grow(n)
	if c.Len() != n {
		t.Fatalf("Len = %d after Grow(%d)", c.Len(), n)
	}
	if c.At(0) != first {
		t.Errorf("growing moved element 0")
	}
	for i := range n {
		want := int64(0)
		if i < 3 {
			want = int64(i + 1)
		}
		if *c.At(i) != want {
			t.Fatalf("element %d = %d, want %d", i, *c.At(i), want)
		}
		*c.At(i) = int64(i) // every element is its own
	}
	if *c.At(1 << chunkBits) != 1<<chunkBits || *c.At(n - 1) != int64(n-1) {
		t.Errorf("elements across chunks alias each other")
	}
	if c.Grow(1); c.Len() != n {
		t.Errorf("Grow to fewer elements gave length %d", c.Len())
	}
}

// Make returns n zero elements, of any size, and Touch leaves them zero:
// it writes only the zero value, one element a page.
func TestMakeIsZeroAndTouchChangesNothing(t *testing.T) {
	type wide struct{ a [700]byte }
	for _, n := range []int{0, 1, 511, 512, 513, 5000} {
		s := Make[uint64](n)
		w := Make[wide](n / 10)
		if len(s) != n || len(w) != n/10 {
			t.Fatalf("Make(%d) has %d elements", n, len(s))
		}
		for i := range s {
			if s[i] != 0 {
				t.Fatalf("Make(%d)[%d] = %d", n, i, s[i])
			}
		}
		for i := range w {
			if w[i] != (wide{}) {
				t.Fatalf("Make(%d) of 700-byte values: element %d is not zero", n/10, i)
			}
		}
	}
}
