// Package request checks a request as the simulations take it: a time in
// ns that is not negative, a cost the limiters accept (1 to
// algorithms.MaxCost), and, for a caller that numbers the keys itself, a
// key id in order of first appearance.
package request

import (
	"fmt"

	"ratebench/algorithms"
)

// Check returns an error when the time t is negative or the cost is not
// in [1, algorithms.MaxCost].
func Check(t, cost int64) error {
	if t < 0 {
		return fmt.Errorf("negative time %d", t)
	}
	if cost < 1 || cost > algorithms.MaxCost {
		return fmt.Errorf("cost %d out of range [1, %d]", cost, algorithms.MaxCost)
	}
	return nil
}

// CheckKeyed is Check for a request of key whose dense id the caller
// gives, the keys numbered in order of first appearance: with seen keys
// numbered so far, id must be one of theirs or the next, seen. The error
// names the key.
func CheckKeyed(key []byte, id int32, seen int, t, cost int64) error {
	if err := Check(t, cost); err != nil {
		return fmt.Errorf("key %q: %w", key, err)
	}
	if id < 0 || int(id) > seen {
		return fmt.Errorf("key %q: id %d is not in order of first appearance (%d keys seen)", key, id, seen)
	}
	return nil
}
