// Package mix holds the random helpers of the simulations: the bit mixer
// that seeds their per-key and per-node random streams, and the uniform
// draw they take from a stream.
package mix

import (
	"math/bits"
	"math/rand/v2"
)

// Mix64 is SplitMix64's finalizer: a bijection of 64-bit words that
// spreads every input bit over the output.
func Mix64(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Uniform returns an integer drawn uniformly from [0, n), n > 0, from p.
// It avoids the modulo bias of x%n by Lemire's multiply-and-reject: the
// draw is the high word of the 128-bit product x*n of a 64-bit word x,
// and a product whose low word falls below 2^64 mod n (the values that
// would make some results one more likely than others) is drawn again.
// It reads one word of p, rarely more, and, for any n, the same words give
// the same result (so the figures seeded through it are reproducible).
func Uniform(p *rand.PCG, n uint64) uint64 {
	hi, lo := bits.Mul64(p.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(p.Uint64(), n)
		}
	}
	return hi
}
