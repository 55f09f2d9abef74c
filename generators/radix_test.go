package generators

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// sortKeys sorts, whatever the spread of the keys over its buckets: even,
// all in one bucket (bursts at one instant), or a few crowded ones.
func TestSortKeys(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		name string
		n    int
		key  func() uint64
	}{
		{"even", 200_000, func() uint64 { return r.Uint64N(1 << 40) }},
		{"one bucket", 50_000, func() uint64 { return 1<<39 | r.Uint64N(1<<20) }},
		{"crowded", 100_000, func() uint64 { return r.Uint64N(4)<<37 | r.Uint64N(64) }},
		{"small", 1000, func() uint64 { return r.Uint64N(1 << 40) }},
	} {
		keys := make([]uint64, tc.n)
		for i := range keys {
			keys[i] = tc.key()
		}
		want := slices.Sorted(slices.Values(keys))
		got := sortKeys(keys, make([]uint64, len(keys)), 40)
		if !slices.Equal(got, want) {
			t.Errorf("%s: not sorted", tc.name)
		}
	}
}
