package algorithms_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"ratebench/algorithms"
)

// benchTrace is 1M requests over 100,000 keys in global time order, spanning
// about a minute: each key sends about 10 a minute, so under the benchmark
// rule 10/1m keys run at their limit and decisions go both ways.
var benchTrace = func() []req {
	const keys, n = 100_000, 1 << 20
	rng := rand.New(rand.NewPCG(11, 12))
	out := make([]req, n)
	t := int64(1_700_000_000_000_000_000)
	for i := range out {
		t += int64(rng.ExpFloat64() * 60_000) // 16,667 requests/s: ~10 per key per minute
		out[i] = req{Key: rng.IntN(keys), T: t, Cost: 1}
	}
	return out
}()

// benchSpecs are the algorithms BenchmarkDecide measures: the textbook
// ones, every product of the catalogue with its defaults, and a few
// products with a deviation off (float arithmetic, the refusal cache).
func benchSpecs(b *testing.B, r algorithms.Rule) []string {
	specs := []string{"log", "counter", "counter-lt", "counter-floor", "fixed", "token", "gcra", "buckets:4", "buckets:16", "leaky", "xrate"}
	for _, p := range products(b, r) {
		specs = append(specs, p.Name())
	}
	return append(specs, "redis_rate:without=float", "upstash:without=cache", "upstash-token:without=interval", "counter:block")
}

// BenchmarkDecide measures one decision plus the record of an admitted
// request (of every request, for a product that counts every request, as
// the harness does), per algorithm, over 100,000 interned keys.
func BenchmarkDecide(b *testing.B) {
	r := algorithms.Rule{L: 10, W: int64(time.Minute)}
	span := benchTrace[len(benchTrace)-1].T - benchTrace[0].T + 1
	for _, spec := range benchSpecs(b, r) {
		b.Run(spec, func(b *testing.B) {
			lim, _ := algorithms.New(spec, r)
			lim.Grow(100_000)
			every := algorithms.CountsEvery(lim)
			var shift int64
			i, admitted := 0, 0
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				q := &benchTrace[i]
				t := q.T + shift
				id := int32(q.Key)
				ok := lim.Decide(id, t, q.Cost)
				if ok || every {
					lim.Record(id, t, q.Cost)
				}
				if ok {
					admitted++
				}
				if i++; i == len(benchTrace) {
					i, shift = 0, shift+span
				}
			}
			b.ReportMetric(float64(admitted)/float64(b.N), "admit/op")
		})
	}
}
