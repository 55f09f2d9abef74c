package algorithms

// FloorDiv returns floor(a/d) for d > 0.
func FloorDiv(a, d int64) int64 {
	q := a / d
	if a%d < 0 {
		q--
	}
	return q
}

// EveryCounter is implemented by a limiter modelling a product that counts
// every request it is asked about, admitted or refused. The engine records
// every request in its state whatever the count policy and the mode, as
// count all does for the window algorithms.
type EveryCounter interface {
	CountsEvery() bool
}

// CountsEvery reports whether l records every request whatever the count
// policy (an EveryCounter that says so).
func CountsEvery(l Limiter) bool {
	c, ok := l.(EveryCounter)
	return ok && c.CountsEvery()
}
