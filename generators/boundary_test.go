package generators

import (
	"testing"
	"time"
)

func TestBoundaryEdges(t *testing.T) {
	const keys, windows = 50, 100
	w := int64(30 * time.Second)
	for _, c := range []struct {
		spec   string
		spread float64
		burst  int
	}{
		{"boundary", 0.05, 3}, // default burst: round(0.2/s * 30 s / 2)
		{"boundary:burst=7,spread=0.01", 0.01, 7},
	} {
		tr := generate(t, c.spec, longRun(keys, 0, time.Duration(windows*w)))
		spread := int64(c.spread * float64(w))
		// before[k*(windows+1)+j], after[...]: requests of key k just before
		// and just after the edge at the end of window j-1 (j = 1..windows).
		before := make([]int, keys*(windows+1))
		after := make([]int, keys*(windows+1))
		for i, ti := range tr.t {
			off := (ti - DefaultStart) % w
			j := int((ti - DefaultStart) / w)
			switch {
			case off < spread: // just after the edge starting window j
				after[tr.key[i]*(windows+1)+j]++
			case off >= w-spread: // just before the edge ending window j
				before[tr.key[i]*(windows+1)+j+1]++
			default:
				t.Fatalf("%s: request %d ns into its window, more than %d ns from an edge", c.spec, off, spread)
			}
		}
		// Exact: burst on each side of every edge (the first edge is at
		// Start+window; the duration cuts off the after side of the last).
		for k := range keys {
			for j := 1; j <= windows; j++ {
				wantAfter := c.burst
				if j == windows {
					wantAfter = 0
				}
				if b, a := before[k*(windows+1)+j], after[k*(windows+1)+j]; b != c.burst || a != wantAfter {
					t.Fatalf("%s: key %d edge %d: %d before, %d after, want %d, %d", c.spec, k, j, b, a, c.burst, wantAfter)
				}
			}
			if a := after[k*(windows+1)]; a != 0 {
				t.Fatalf("%s: key %d: %d requests at the start, which is no edge", c.spec, k, a)
			}
		}
	}
}
