package summary

import (
	"slices"
	"strings"
)

// compareKeyStats orders keys as Run.TopKeys lists them: by disagreement,
// most first, then by name.
func compareKeyStats(a, b KeyStat) int {
	if a.Disagree != b.Disagree {
		if a.Disagree > b.Disagree {
			return -1
		}
		return 1
	}
	return strings.Compare(a.Key, b.Key)
}

// SortTopKeys orders keys by disagreement, most first, then by name, as
// Run.TopKeys lists them.
func SortTopKeys(ks []KeyStat) { slices.SortFunc(ks, compareKeyStats) }

// TopKeys keeps, of the keys offered to it, the first n in Run.TopKeys's
// order, in that order: a run's list is picked from a million keys while
// holding only n of them. It keeps what sorting every key offered and
// cutting the list at n would keep (names are unique).
type TopKeys struct {
	n  int
	ks []KeyStat // sorted, at most n
}

// NewTopKeys returns a TopKeys keeping n keys (none for n <= 0).
func NewTopKeys(n int) *TopKeys { return &TopKeys{n: max(n, 0)} }

// Admits reports whether a key of disagree disagreements named key would
// be kept if offered now: the caller builds its KeyStat only then.
func (t *TopKeys) Admits(disagree int64, key string) bool {
	if len(t.ks) < t.n {
		return true
	}
	return t.n > 0 && compareKeyStats(KeyStat{Key: key, Disagree: disagree}, t.ks[t.n-1]) < 0
}

// Offer keeps k if it is among the first n offered so far, dropping the
// last kept when the list is full.
func (t *TopKeys) Offer(k KeyStat) {
	if !t.Admits(k.Disagree, k.Key) {
		return
	}
	i, _ := slices.BinarySearchFunc(t.ks, k, compareKeyStats)
	if len(t.ks) == t.n {
		t.ks = t.ks[:t.n-1]
	}
	t.ks = slices.Insert(t.ks, i, k)
}

// Keys returns the keys kept, in order; never nil.
func (t *TopKeys) Keys() []KeyStat {
	if t.ks == nil {
		return []KeyStat{}
	}
	return t.ks
}
