package algorithms_test

import (
	"sync"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"ratebench/algorithms"
)

// peerAgreement replays benchTrace once through token and xrate, each
// recording its own admits (independent mode), and returns the fraction of
// decisions on which they agree and xrate's arithmetic counts.
var peerAgreement = sync.OnceValues(func() (float64, algorithms.XRateArithmetic) {
	r := algorithms.Rule{L: 10, W: int64(time.Minute)}
	tk := algorithms.NewToken(r, 0)
	x := algorithms.NewXRate(r, 0)
	tk.Grow(100_000)
	x.Grow(100_000)
	agree := 0
	for _, q := range benchTrace {
		id := int32(q.Key)
		a, b := tk.Decide(id, q.T, q.Cost), x.Decide(id, q.T, q.Cost)
		if a == b {
			agree++
		}
		if a {
			tk.Record(id, q.T, q.Cost)
		}
		if b {
			x.Record(id, q.T, q.Cost)
		}
	}
	return float64(agree) / float64(len(benchTrace)), x.Arithmetic()
})

// BenchmarkPeerTokenVsXRate compares the exact token bucket with the peer
// library golang.org/x/time/rate on BenchmarkDecide's trace (rule 10/1m,
// 100,000 keys, the same timestamps): token and xrate through the Limiter
// interface (xrate's Decide also checks its exact twin), xrate-lib calling
// rate.Limiter.AllowN directly on one *rate.Limiter per key, as a
// deployment would. ns/op is per decision (plus the record of an admit);
// agree is the fraction of the trace's decisions on which token and xrate
// agree, each recording its own admits.
func BenchmarkPeerTokenVsXRate(b *testing.B) {
	r := algorithms.Rule{L: 10, W: int64(time.Minute)}
	const keys = 100_000
	span := benchTrace[len(benchTrace)-1].T - benchTrace[0].T + 1
	report := func(b *testing.B, admitted int) {
		b.ReportMetric(float64(admitted)/float64(b.N), "admit/op")
		if s := b.Elapsed().Seconds(); s > 0 {
			b.ReportMetric(float64(b.N)/s, "decisions/s")
		}
	}
	for _, spec := range []string{"token", "xrate"} {
		b.Run(spec, func(b *testing.B) {
			lim, err := algorithms.New(spec, r)
			if err != nil {
				b.Fatal(err)
			}
			lim.Grow(keys)
			var shift int64
			i, admitted := 0, 0
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				q := &benchTrace[i]
				t := q.T + shift
				id := int32(q.Key)
				if lim.Decide(id, t, q.Cost) {
					lim.Record(id, t, q.Cost)
					admitted++
				}
				if i++; i == len(benchTrace) {
					i, shift = 0, shift+span
				}
			}
			b.StopTimer()
			report(b, admitted)
			if spec == "xrate" {
				agree, arith := peerAgreement()
				b.ReportMetric(agree, "agree")
				b.ReportMetric(float64(arith.Flips), "flips/trace")
			}
		})
	}
	b.Run("xrate-lib", func(b *testing.B) {
		lims := make([]*rate.Limiter, keys)
		limit := rate.Limit(float64(r.L) / time.Duration(r.W).Seconds())
		for k := range lims {
			lims[k] = rate.NewLimiter(limit, int(r.L))
		}
		var shift int64
		i, admitted := 0, 0
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			q := &benchTrace[i]
			if lims[q.Key].AllowN(time.Unix(0, q.T+shift), int(q.Cost)) {
				admitted++
			}
			if i++; i == len(benchTrace) {
				i, shift = 0, shift+span
			}
		}
		b.StopTimer()
		report(b, admitted)
	})
}
