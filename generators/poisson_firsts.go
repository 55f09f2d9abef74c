package generators

import (
	"math/rand/v2"
	"slices"
)

// firstsStream is the number of the random stream that draws the first
// requests of addPoissonFirsts: beyond every source's (a source's stream
// is its index, below 2^31).
const firstsStream = 1 << 63

// addPoissonFirsts builds, of a Poisson scenario with more keys than
// requests, only the sources that send, without visiting the others, so
// that time as well as memory grows with the requests and not the keys.
//
// The model: K keys each a Poisson process of rate r from Start. The
// earliest first request of all is one exponential gap of rate K·r after
// Start, and, the process being memoryless, each next earliest first
// request is one gap of rate (K-i)·r after the i-th, from a key drawn
// uniformly among the K-i that have not sent yet. Given its first request,
// a key sends on as a Poisson process of rate r, on its own random stream.
// So the sources that can send one of the Requests (the Requests earliest
// first requests, as in addSending) are drawn in as many steps, with the
// distribution of the trace addAll's would give; not the same draws.
func (g *Generator) addPoissonFirsts() {
	k := g.p.Keys
	rate := g.p.Rate / 1e9 // per ns
	rng := rand.New(rand.NewPCG(g.p.Seed, firstsStream))
	taken := make(map[int32]struct{}, min(int64(k), g.p.Requests))
	off := 0.0 // ns since Start of the latest first request drawn
	var fs []first
	for i := int64(0); i < g.p.Requests && i < int64(k); i++ {
		off += expGap(rng, float64(int64(k)-i)*rate)
		t := offsetTime(g.p.Start, off)
		if t >= g.stopT {
			break
		}
		idx := int32(rng.IntN(k))
		for _, ok := taken[idx]; ok; _, ok = taken[idx] {
			idx = int32(rng.IntN(k))
		}
		taken[idx] = struct{}{}
		src := &expArrivals{rng: g.newRand(int(idx)), rate: rate, base: g.p.Start, off: off}
		fs = append(fs, first{t: src.next(), idx: idx, src: src})
	}
	slices.SortFunc(fs, func(a, b first) int { return int(a.idx) - int(b.idx) })
	for _, f := range fs {
		g.srcs = append(g.srcs, f.src)
		g.due = append(g.due, f.t)
		g.ids = append(g.ids, f.idx)
	}
}

// drawsFirsts reports whether a generator of these parts, of more keys
// than requests, draws its sending sources with addPoissonFirsts: a lone
// Poisson scenario (in a mix, the sources of the other scenarios have to
// be visited anyway).
func drawsFirsts(parts []part, p Params) bool {
	return len(parts) == 1 && parts[0].sc.memoryless
}
