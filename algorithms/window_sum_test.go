package algorithms

import "testing"

// SumThrough adds the costs of the entries at or before the cutoff and
// drops none; after Expire(c-1) it is the cost of the entries at c.
func TestWindowSumSumThrough(t *testing.T) {
	var w WindowSum
	if w.SumThrough(10) != 0 {
		t.Fatal("an empty sum holds something")
	}
	for _, e := range [][2]int64{{5, 1}, {5, 3}, {7, 1}, {9, 2}, {12, 1}} {
		w.Add(e[0], e[1])
	}
	for cut, want := range map[int64]int64{4: 0, 5: 4, 6: 4, 7: 5, 9: 7, 11: 7, 12: 8, 100: 8} {
		if got := w.SumThrough(cut); got != want {
			t.Errorf("SumThrough(%d) = %d, want %d", cut, got, want)
		}
	}
	if w.Len() != 5 || w.Sum() != 8 {
		t.Errorf("SumThrough dropped entries: %d entries, sum %d", w.Len(), w.Sum())
	}
	w.Expire(6)
	if got := w.SumThrough(7); got != 1 {
		t.Errorf("after Expire(6), SumThrough(7) = %d, want the entry at 7, 1", got)
	}
}
