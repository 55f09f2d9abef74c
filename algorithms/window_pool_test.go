package algorithms

import "testing"

// Windows made past one chunk keep their entries and their addresses as
// the pool grows; a handle freed comes back from New empty.
func TestWindowPoolKeepsWindowsAndEmptiesThoseFreed(t *testing.T) {
	var p WindowPool
	n := 3<<poolShift + 7
	addr := make([]*WindowSum, n+1)
	for i := 1; i <= n; i++ {
		h, w := p.New()
		if int(h) != i {
			t.Fatalf("window %d has handle %d", i, h)
		}
		w.Add(int64(i), int64(i%5+1))
		addr[h] = w
	}
	for h := 1; h <= n; h++ {
		if w := p.At(uint32(h)); w != addr[h] || w.Sum() != int64(h%5+1) || w.Newest() != int64(h) {
			t.Fatalf("window %d moved or lost its entry", h)
		}
	}
	p.Free(5)
	p.Free(1 << poolShift)
	if p.Len() != n-2 {
		t.Fatalf("%d windows in use, want %d", p.Len(), n-2)
	}
	for range 2 {
		h, w := p.New()
		if h != 5 && h != 1<<poolShift {
			t.Fatalf("New made handle %d with two freed", h)
		}
		if w.Len() != 0 || w.Sum() != 0 {
			t.Fatalf("handle %d came back holding %d entries", h, w.Len())
		}
	}
	if h, _ := p.New(); int(h) != n+1 {
		t.Fatalf("with none freed, New made handle %d, want %d", h, n+1)
	}
}
