package algorithms

// GCD returns the greatest common divisor of a and b >= 0, not both 0
// (GCD(a, 0) = a): the step of the exact mappings of a rule L/W onto a
// product's tokens and intervals, and the coarsest unit a trace's times
// are all multiples of.
func GCD(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
