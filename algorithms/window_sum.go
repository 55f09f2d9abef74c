package algorithms

import "iter"

// WindowSum is the cost of the entries of one key that are still inside a
// sliding window: a ring buffer of (time, cost) entries in time order and
// their running sum. The zero value is empty and ready to use. The sliding
// log keeps one per key, and the compare engine uses it to measure the
// largest admitted cost any span (t-W, t] contains (the burst).
type WindowSum struct {
	ts     []int64 // ring of entry times; len is a power of two (or 0)
	costs  []int64 // parallel ring of costs; nil while every cost is 1
	head   int     // index of the oldest entry
	n      int     // number of entries
	sum    int64   // total cost of the entries
	heavy  int     // entries whose cost is not 1
	oldest int64   // ts[head] while n > 0: Expire finds nothing to expire without reading the ring
}

// Sum returns the total cost of the entries held.
func (w *WindowSum) Sum() int64 { return w.sum }

// Newest returns the time of the newest entry; the sum must not be empty.
func (w *WindowSum) Newest() int64 { return w.ts[(w.head+w.n-1)&(len(w.ts)-1)] }

// Len returns the number of entries held.
func (w *WindowSum) Len() int { return w.n }

// Bytes is the analytic size of the entries: 8 bytes per timestamp, 8 more
// per entry whose cost is not 1, and 8 for the running sum.
func (w *WindowSum) Bytes() int64 { return int64(8*w.n + 8*w.heavy + 8) }

// Warm loads what Expire reads first, the oldest entry, and returns it
// (see Warmer).
func (w *WindowSum) Warm() uint64 {
	if w.n == 0 {
		return 0
	}
	return uint64(w.ts[w.head])
}

// Expire drops the entries at or before cutoff; Expire(t-W) leaves the
// entries in (t-W, t].
func (w *WindowSum) Expire(cutoff int64) {
	if w.n == 0 || w.oldest > cutoff {
		return
	}
	mask := len(w.ts) - 1
	for w.n > 0 && w.ts[w.head] <= cutoff {
		c := int64(1)
		if w.costs != nil {
			c = w.costs[w.head]
			if c != 1 {
				w.heavy--
			}
		}
		w.sum -= c
		w.head = (w.head + 1) & mask
		w.n--
	}
	if w.n == 0 {
		w.head = 0
	} else {
		w.oldest = w.ts[w.head]
	}
}

// All yields the entries, time and cost, oldest first.
func (w *WindowSum) All() iter.Seq2[int64, int64] {
	return func(yield func(t, cost int64) bool) {
		mask := len(w.ts) - 1
		for i := range w.n {
			j := (w.head + i) & mask
			c := int64(1)
			if w.costs != nil {
				c = w.costs[j]
			}
			if !yield(w.ts[j], c) {
				return
			}
		}
	}
}

// Clear drops every entry, keeping the ring for the entries to come.
func (w *WindowSum) Clear() { w.head, w.n, w.sum, w.heavy = 0, 0, 0, 0 }

// SumThrough returns the cost of the entries at or before cutoff, without
// dropping them: after Expire(c-1), SumThrough(c) is the cost of the
// entries at exactly c.
func (w *WindowSum) SumThrough(cutoff int64) int64 {
	if w.n == 0 || w.oldest > cutoff {
		return 0
	}
	mask := len(w.ts) - 1
	var s int64
	for i := 0; i < w.n; i++ {
		j := (w.head + i) & mask
		if w.ts[j] > cutoff {
			break
		}
		c := int64(1)
		if w.costs != nil {
			c = w.costs[j]
		}
		s += c
	}
	return s
}

// Add appends an entry at time t, which must not be before the newest entry.
// A cost may be negative, for a signed sum (compare's burst accounting keeps
// the difference of two sets of entries in one window); Bytes counts such
// an entry as one whose cost is not 1.
func (w *WindowSum) Add(t, cost int64) {
	if w.n == len(w.ts) {
		w.resize()
	}
	if cost != 1 && w.costs == nil {
		w.costs = make([]int64, len(w.ts))
		for i := range w.costs {
			w.costs[i] = 1
		}
	}
	i := (w.head + w.n) & (len(w.ts) - 1)
	w.ts[i] = t
	if w.n == 0 {
		w.oldest = t
	}
	if w.costs != nil {
		w.costs[i] = cost
		if cost != 1 {
			w.heavy++
		}
	}
	w.n++
	w.sum += cost
}

// resize doubles the ring (from 4 entries), unrolling it to start at 0.
func (w *WindowSum) resize() {
	size := 2 * len(w.ts)
	if size == 0 {
		size = 4
	}
	ts := make([]int64, size)
	var costs []int64
	if w.costs != nil {
		costs = make([]int64, size)
	}
	mask := len(w.ts) - 1
	for i := 0; i < w.n; i++ {
		j := (w.head + i) & mask
		ts[i] = w.ts[j]
		if costs != nil {
			costs[i] = w.costs[j]
		}
	}
	w.ts, w.costs, w.head = ts, costs, 0
}
