package generators

import (
	"testing"
	"time"
)

func TestEarlyWindows(t *testing.T) {
	const keys, windows = 50, 100
	for _, c := range []struct {
		spec   string
		window time.Duration
		head   float64
		burst  int
	}{
		{"early", 30 * time.Second, 0.1, 6}, // default burst: round(0.2/s * 30 s)
		{"early:head=0.5,burst=3", 30 * time.Second, 0.5, 3},
		{"early:head=0.01,burst=40,window=10s", 10 * time.Second, 0.01, 40},
	} {
		p := longRun(keys, 0, time.Duration(windows)*c.window)
		tr := generate(t, c.spec, p)
		w := int64(c.window)
		head := int64(c.head * float64(w))
		count := make([]int, keys*windows)
		for i, ti := range tr.t {
			// Exact: every request in the first head of its window.
			if off := (ti - DefaultStart) % w; off >= head {
				t.Fatalf("%s: request %d ns into its window, head is %d ns", c.spec, off, head)
			}
			count[tr.key[i]*windows+int((ti-DefaultStart)/w)]++
		}
		// Exact: burst requests per key per window.
		for i, n := range count {
			if n != c.burst {
				t.Fatalf("%s: key %d window %d has %d requests, want %d", c.spec, i/windows, i%windows, n, c.burst)
			}
		}
	}
}
