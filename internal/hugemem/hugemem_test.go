package hugemem

import (
	"runtime"
	"testing"
	"unsafe"
)

// Words hands out zeroed, disjoint, cache-line-aligned slices of the
// length asked, across regions and for requests larger than one, and they
// keep what is written to them until Free.
func TestWords(t *testing.T) {
	var a Arena
	defer a.Free()
	sizes := []int{1, 7, 8, 1000, regionBytes/8 - 3, 5, 3 * regionBytes / 8, 64}
	var got [][]uint64
	for i, n := range sizes {
		w := a.Words(n)
		if len(w) != n || cap(w) != n {
			t.Fatalf("Words(%d): len %d cap %d", n, len(w), cap(w))
		}
		for j, v := range w {
			if v != 0 {
				t.Fatalf("Words(%d)[%d] = %d, not zeroed", n, j, v)
			}
		}
		for j := range w {
			w[j] = uint64(i)<<40 | uint64(j)
		}
		if runtime.GOOS == "linux" && uintptr(unsafe.Pointer(&w[0]))%64 != 0 {
			t.Errorf("Words(%d) at %p: not aligned to a cache line", n, &w[0])
		}
		got = append(got, w)
	}
	for i, w := range got {
		for j, v := range w {
			if v != uint64(i)<<40|uint64(j) {
				t.Fatalf("slice %d, word %d = %#x: slices overlap", i, j, v)
			}
		}
	}
	if runtime.GOOS == "linux" && a.Mapped() < 4*regionBytes {
		t.Errorf("%d bytes mapped for %d words: the large request did not get a region of its own", a.Mapped(), 3*regionBytes/8)
	}
	if a.Words(0) != nil {
		t.Errorf("Words(0) is not nil")
	}
}

// A region is aligned to a huge page, so that the system can back it with
// them.
func TestRegionsAreAligned(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("regions are mapped on Linux only; elsewhere the arena uses the Go heap")
	}
	var a Arena
	defer a.Free()
	a.Words(1)
	for _, r := range a.regions {
		if p := uintptr(unsafe.Pointer(unsafe.SliceData(r))); p%hugePage != 0 || len(r)%hugePage != 0 {
			t.Errorf("region at %#x of %d bytes: not aligned to %d", p, len(r), hugePage)
		}
	}
}
