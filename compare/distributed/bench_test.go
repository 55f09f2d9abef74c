package distributed

import (
	"testing"

	"ratebench/algorithms"
)

// BenchmarkSim replays a Poisson trace (200 keys at about 3 requests/s for
// 10 minutes) through counter 100/1m on 8 nodes, random route, sync 100 ms,
// and reports trace requests per second (the reference log included).
func BenchmarkSim(b *testing.B) {
	rule := algorithms.Rule{L: 100, W: 60 * sec}
	trace := poisson(7, 200, 600*sec, 3, 1)
	keys := make([][]byte, len(trace))
	for i, q := range trace {
		keys[i] = []byte(q.key)
	}
	c := Config{Spec: "counter", Rule: rule, Nodes: 8, Route: Random, Sync: 100 * ms, Seed: 1}
	b.ResetTimer()
	for b.Loop() {
		s, err := New(c)
		if err != nil {
			b.Fatal(err)
		}
		for i, q := range trace {
			if err := s.Add(keys[i], q.t, q.cost); err != nil {
				b.Fatal(err)
			}
		}
		if s.Result().Requests != int64(len(trace)) {
			b.Fatal("requests lost")
		}
	}
	b.ReportMetric(float64(b.N)*float64(len(trace))/b.Elapsed().Seconds(), "requests/s")
}

// BenchmarkSimLog is BenchmarkSim with the log.
func BenchmarkSimLog(b *testing.B) {
	rule := algorithms.Rule{L: 100, W: 60 * sec}
	trace := poisson(7, 200, 600*sec, 3, 1)
	c := Config{Spec: "log", Rule: rule, Nodes: 8, Route: Random, Sync: 100 * ms, Seed: 1}
	for b.Loop() {
		s, err := New(c)
		if err != nil {
			b.Fatal(err)
		}
		feed(b, s, trace)
	}
	b.ReportMetric(float64(b.N)*float64(len(trace))/b.Elapsed().Seconds(), "requests/s")
}
