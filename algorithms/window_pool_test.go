package algorithms

import "testing"

// A WindowPool's handles are never 0, name their own window until freed,
// and are given again, to an empty window, once freed.
func TestWindowPoolHandles(t *testing.T) {
	var p WindowPool
	a, wa := p.New()
	b, wb := p.New()
	if a == 0 || b == 0 || a == b {
		t.Fatalf("handles %d and %d: want two distinct non-zero handles", a, b)
	}
	wa.Add(1, 1)
	wb.Add(2, 5)
	if p.At(a).Sum() != 1 || p.At(b).Sum() != 5 || p.Len() != 2 {
		t.Fatalf("windows by handle hold %d and %d (%d in use), want 1 and 5 (2)", p.At(a).Sum(), p.At(b).Sum(), p.Len())
	}
	p.Free(a)
	if p.Len() != 1 {
		t.Errorf("%d windows in use after a Free, want 1", p.Len())
	}
	c, wc := p.New()
	if c != a || wc.Len() != 0 || p.At(c) != wc {
		t.Errorf("New after Free gave handle %d holding %d entries, want the freed handle %d, empty", c, wc.Len(), a)
	}
	if p.At(b).Sum() != 5 {
		t.Errorf("reusing a handle changed another window: sum %d, want 5", p.At(b).Sum())
	}
}
