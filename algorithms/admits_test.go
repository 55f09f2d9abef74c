package algorithms_test

import (
	"math/big"
	"testing"

	"ratebench/algorithms"
)

// TestAdmitsExact checks the counters' exported decisions (which package
// distributed and the non-atomic Redis counter decide by) against exact
// integers, at the extremes of every operand: counts up to 2^63-1, L and W
// up to 2^63-1, every part of a window.
func TestAdmitsExact(t *testing.T) {
	const top = 1<<63 - 1
	big64 := func(v int64) *big.Int { return big.NewInt(v) }
	mulAdd := func(a, b, c, d int64) *big.Int { // a*b + c*d
		x := new(big.Int).Mul(big64(a), big64(b))
		return x.Add(x, new(big.Int).Mul(big64(c), big64(d)))
	}
	counts := []int64{0, 1, 2, 9, 10, 11, algorithms.MaxCost, 1 << 40, 1 << 62, top - 1, top}
	costs := []int64{1, 2, 10, algorithms.MaxCost}
	n := 0
	for _, r := range []algorithms.Rule{{L: 10, W: 60e9}, {L: 1, W: 1}, {L: 10, W: 3}, {L: top, W: top}, {L: 1 << 40, W: top}, {L: top, W: 7}} {
		le, lt, fl := algorithms.NewCounter(r), algorithms.NewCounterLT(r), algorithms.NewCounterFloor(r)
		fixed := algorithms.NewFixed(r)
		b, err := algorithms.NewBuckets(r, 1)
		if err != nil {
			t.Fatal(err)
		}
		LW := new(big.Int).Mul(big64(r.L), big64(r.W))
		for _, e := range []int64{0, 1, r.W / 2, r.W - 1} {
			if e < 0 || e >= r.W {
				continue
			}
			for _, prev := range counts {
				for _, curr := range counts {
					for _, cost := range costs {
						n++
						// prev*(W-e) + (curr+cost)*W <= L*W
						x := mulAdd(prev, r.W-e, curr, r.W)
						x.Add(x, new(big.Int).Mul(big64(cost), big64(r.W)))
						if got, want := le.Admits(prev, curr, e, cost), x.Cmp(LW) <= 0; got != want {
							t.Fatalf("counter %v: Admits(%d, %d, %d, %d) = %v, want %v", r, prev, curr, e, cost, got, want)
						}
						if got, want := b.Admits(curr, prev, e, cost), x.Cmp(LW) <= 0; got != want {
							t.Fatalf("buckets:1 %v: Admits(%d, %d, %d, %d) = %v, want %v", r, curr, prev, e, cost, got, want)
						}
						// prev*(W-e) + curr*W < L*W
						if got, want := lt.Admits(prev, curr, e, cost), mulAdd(prev, r.W-e, curr, r.W).Cmp(LW) < 0; got != want {
							t.Fatalf("counter-lt %v: Admits(%d, %d, %d, %d) = %v, want %v", r, prev, curr, e, cost, got, want)
						}
						// floor(prev*(W-e)/W) + curr + cost <= L
						q := new(big.Int).Mul(big64(prev), big64(r.W-e))
						q.Quo(q, big64(r.W))
						q.Add(q, big64(curr)).Add(q, big64(cost))
						if got, want := fl.Admits(prev, curr, e, cost), q.Cmp(big64(r.L)) <= 0; got != want {
							t.Fatalf("counter-floor %v: Admits(%d, %d, %d, %d) = %v, want %v", r, prev, curr, e, cost, got, want)
						}
						s := new(big.Int).Add(big64(curr), big64(cost))
						if got, want := fixed.Admits(curr, cost), s.Cmp(big64(r.L)) <= 0; got != want {
							t.Fatalf("fixed %v: Admits(%d, %d) = %v, want %v", r, curr, cost, got, want)
						}
					}
				}
			}
		}
	}
	if n < 10000 {
		t.Fatalf("only %d cases", n)
	}
}
