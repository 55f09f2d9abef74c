package products

import "strconv"

// itoa formats v in decimal.
func itoa(v int64) string { return strconv.FormatInt(v, 10) }
