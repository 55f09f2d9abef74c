package products

import "strconv"

// itoa formats v in decimal.
func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// oneHit is what a request of cost counts in a product whose API takes no
// cost, so that it counts one per request: 1 with its deviation one-hit
// on, the cost with it off (the twin's reading of a request of cost c).
func oneHit(on bool, cost int64) int64 {
	if on {
		return 1
	}
	return cost
}

// pushLive appends v to a list whose live entries are s[head:] (those
// before head forgotten), and returns the list and its head. A full list
// with forgotten entries at its start moves its live ones there first, so
// that it grows (and copies itself into a new array) only when its live
// entries fill it.
func pushLive[T any](s []T, head int, v T) ([]T, int) {
	if len(s) == cap(s) && head > 0 {
		s, head = s[:copy(s, s[head:])], 0
	}
	return append(s, v), head
}
