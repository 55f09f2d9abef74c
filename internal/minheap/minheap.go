// Package minheap keeps a slice as a binary min-heap under an order the
// caller gives: the queues of pending events of the simulations (the
// retries a client has scheduled, the attempts of a retry storm), whose
// next event is always the least.
//
// The order less must be a strict weak order; elements it does not order
// (neither is less than the other) come out in no particular order among
// themselves, so a caller that needs a reproducible sequence breaks ties
// itself (by a sequence number) or keeps only values whose ties are
// indistinguishable.
package minheap

// Push adds x to the heap h and returns the heap.
func Push[T any](h []T, x T, less func(a, b T) bool) []T {
	h = append(h, x)
	for i := len(h) - 1; i > 0; {
		up := (i - 1) / 2
		if !less(h[i], h[up]) {
			break
		}
		h[i], h[up] = h[up], h[i]
		i = up
	}
	return h
}

// Pop removes the least element of the heap h, which must not be empty,
// and returns it and the heap.
func Pop[T any](h []T, less func(a, b T) bool) (T, []T) {
	top := h[0]
	n := len(h) - 1
	h[0] = h[n]
	h = h[:n]
	for i := 0; ; {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && less(h[c+1], h[c]) {
			c++
		}
		if !less(h[c], h[i]) {
			break
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
	return top, h
}
