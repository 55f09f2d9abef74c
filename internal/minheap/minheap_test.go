package minheap

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestPopsInOrder pushes and pops at random and checks that every pop is
// the least element pushed and not yet popped, ties broken by the order.
func TestPopsInOrder(t *testing.T) {
	type event struct{ at, seq int64 }
	less := func(a, b event) bool { return a.at < b.at || (a.at == b.at && a.seq < b.seq) }
	r := rand.New(rand.NewPCG(1, 2))
	var h, want []event
	for seq := range int64(5000) {
		if len(h) > 0 && r.IntN(3) == 0 {
			var got event
			got, h = Pop(h, less)
			least := slices.MinFunc(want, func(a, b event) int {
				return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.seq, b.seq))
			})
			if got != least {
				t.Fatalf("pop %v, want the least %v", got, least)
			}
			want = slices.DeleteFunc(want, func(e event) bool { return e == got })
			continue
		}
		e := event{at: r.Int64N(50), seq: seq} // many equal times
		h = Push(h, e, less)
		want = append(want, e)
	}
	var rest []event
	for len(h) > 0 {
		var e event
		e, h = Pop(h, less)
		rest = append(rest, e)
	}
	if !slices.IsSortedFunc(rest, func(a, b event) int { return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.seq, b.seq)) }) || len(rest) != len(want) {
		t.Fatalf("drained %d elements (want %d), sorted: %v", len(rest), len(want), slices.IsSortedFunc(rest, func(a, b event) int { return cmp.Compare(a.at, b.at) }))
	}
}

// TestEqualValues: values that are all equal come out all the same.
func TestEqualValues(t *testing.T) {
	var h []int64
	for range 10 {
		h = Push(h, 7, cmp.Less[int64])
	}
	h = Push(h, 3, cmp.Less[int64])
	for i := range 11 {
		var v int64
		v, h = Pop(h, cmp.Less[int64])
		if want := map[bool]int64{true: 3, false: 7}[i == 0]; v != want {
			t.Fatalf("pop %d = %d, want %d", i, v, want)
		}
	}
	if len(h) != 0 {
		t.Fatalf("%d left", len(h))
	}
}
