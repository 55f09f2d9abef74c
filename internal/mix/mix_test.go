package mix

import (
	"math/rand/v2"
	"testing"
)

// TestMix64 pins the mixer's values: the simulations' seeds, and so every
// committed figure of the closed-loop clients and the distributed
// deployments, depend on them.
func TestMix64(t *testing.T) {
	for _, c := range []struct{ in, want uint64 }{
		// SplitMix64's first outputs from seed 0 (the state advances by the
		// golden gamma before each output, as Mix64 adds it).
		{0, 0xe220a8397b1dcdaf},
		{0x9e3779b97f4a7c15, 0x6e789e6aa1b965f4},
		{1, 0x910a2dec89025cc1},
	} {
		if got := Mix64(c.in); got != c.want {
			t.Errorf("Mix64(%#x) = %#x, want %#x", c.in, got, c.want)
		}
	}
}

// TestUniformIsLemire checks Uniform against the standard library's
// Uint64N, which draws by the same multiply-and-reject for every n but a
// power of two (it masks those): the same stream gives the same values,
// rejections included (n just above 2^63 rejects about half the words).
func TestUniformIsLemire(t *testing.T) {
	for _, n := range []uint64{1<<63 + 1, 3, 7, 1000, 1<<64 - 1, 2*1e9 + 1} {
		p, q := rand.NewPCG(1, 2), rand.NewPCG(1, 2)
		r := rand.New(q)
		for i := range 1000 {
			got, want := Uniform(p, n), r.Uint64N(n)
			if got != want || got >= n {
				t.Fatalf("n=%d draw %d: Uniform = %d, Uint64N = %d", n, i, got, want)
			}
		}
		if p.Uint64() != q.Uint64() {
			t.Fatalf("n=%d: Uniform and Uint64N read different numbers of words", n)
		}
	}
}

// TestUniformPowerOfTwo pins Uniform on a power of two, where it takes the
// high bits of the word (the standard library takes the low ones): the
// backoff jitter of the closed-loop clients draws from such spans.
func TestUniformPowerOfTwo(t *testing.T) {
	p, q := rand.NewPCG(3, 4), rand.NewPCG(3, 4)
	for range 100 {
		if got, want := Uniform(p, 1<<20), q.Uint64()>>44; got != want {
			t.Fatalf("Uniform(2^20) = %d, want the word's high 20 bits %d", got, want)
		}
	}
}
