package summary

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TopKeys keeps what sorting every key offered and cutting at n keeps, in
// the same order, whatever the order of the offers, ties on disagreement
// included (they are broken by name).
func TestTopKeysKeepsWhatSortingAllAndCuttingKeeps(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		all := make([]KeyStat, rng.IntN(60))
		for i := range all {
			all[i] = KeyStat{Key: fmt.Sprintf("k%03d", rng.IntN(1000)*1000+i), Disagree: rng.Int64N(5)}
		}
		for _, n := range []int{-1, 0, 1, 3, 10, 100} {
			top := NewTopKeys(n)
			for _, k := range all {
				if top.Admits(k.Disagree, k.Key) {
					top.Offer(k)
				}
			}
			want := slices.Clone(all)
			SortTopKeys(want)
			want = want[:min(max(n, 0), len(want))]
			if got := top.Keys(); !slices.Equal(got, want) {
				t.Fatalf("trial %d, n %d: kept %v, want %v", trial, n, got, want)
			}
		}
	}
}

// A key Admits refuses is one Offer would drop, and Offer ignores it.
func TestTopKeysOfferDropsWhatAdmitsRefuses(t *testing.T) {
	top := NewTopKeys(2)
	top.Offer(KeyStat{Key: "b", Disagree: 5})
	top.Offer(KeyStat{Key: "a", Disagree: 5})
	if top.Admits(5, "c") || top.Admits(4, "a") {
		t.Fatal("admits a key that ranks after the two kept")
	}
	top.Offer(KeyStat{Key: "c", Disagree: 5})
	if !top.Admits(6, "z") {
		t.Fatal("refuses a key with more disagreements than any kept")
	}
	top.Offer(KeyStat{Key: "z", Disagree: 6})
	if got := top.Keys(); len(got) != 2 || got[0].Key != "z" || got[1].Key != "a" {
		t.Fatalf("kept %v, want z then a", got)
	}
	if NewTopKeys(3).Keys() == nil {
		t.Fatal("an empty list is nil; a summary writes it as []")
	}
}
