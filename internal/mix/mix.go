// Package mix holds the bit mixer that the simulations seed their
// per-key and per-node random streams with.
package mix

// Mix64 is SplitMix64's finalizer: a bijection of 64-bit words that
// spreads every input bit over the output.
func Mix64(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}
