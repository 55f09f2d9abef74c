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
