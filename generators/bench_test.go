package generators

import (
	"io"
	"testing"

	"ratebench/traces"
)

// BenchmarkGenerate measures generation alone and generation into a
// Parquet encoder (discarding the bytes; WriteTo overlaps the two on two
// cores), in requests per second.
func BenchmarkGenerate(b *testing.B) {
	for _, bc := range []struct {
		name string
		spec string
		keys int
	}{
		{"poisson/1k-keys", "poisson", 1000},
		{"mix/10k-keys", "mix:poisson=0.4,onoff=0.2,zipf=0.1,early=0.15,boundary=0.15", 10_000},
		{"population/270k-keys", "population", 270_000},
	} {
		for _, sink := range []string{"scan", "parquet"} {
			b.Run(bc.name+"/"+sink, func(b *testing.B) {
				// At least 1000 requests: the mix's bursts (15 and 30
				// requests) must fit in the trace even at b.N = 1.
				n := max(int64(b.N), 1000)
				g, err := New(bc.spec, Params{Requests: n, Keys: bc.keys, Rate: 1})
				if err != nil {
					b.Fatal(err)
				}
				var w traces.Writer
				if sink == "parquet" {
					if w, err = traces.NewWriter(io.Discard, traces.FormatParquet); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportAllocs()
				b.ResetTimer()
				if w == nil {
					for g.Scan() {
					}
				} else {
					if _, err := g.WriteTo(w); err != nil {
						b.Fatal(err)
					}
					if err := w.Close(); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "req/s")
			})
		}
	}
}
