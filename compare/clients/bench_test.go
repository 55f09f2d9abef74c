package clients

import (
	"testing"

	"ratebench/algorithms"
)

// BenchmarkSim replays a bursty trace (1000 keys) through counter 5/30s
// with backoff clients and reports trace requests (originals) per second.
func BenchmarkSim(b *testing.B) {
	rule := algorithms.Rule{L: 5, W: 30 * sec}
	trace := bursty(7, 1000, 900*sec, 5*sec, 60*sec, 1, 1)
	keys := make([][]byte, len(trace))
	for i, q := range trace {
		keys[i] = []byte(q.key)
	}
	p, _ := ParsePolicy("backoff")
	b.ResetTimer()
	var sent int64
	for b.Loop() {
		s, err := New("counter", rule, p, 1)
		if err != nil {
			b.Fatal(err)
		}
		for i, q := range trace {
			if err := s.Add(keys[i], q.t, q.cost); err != nil {
				b.Fatal(err)
			}
		}
		s.Finish()
		sent += s.Result().Sent
	}
	secs := b.Elapsed().Seconds()
	b.ReportMetric(float64(b.N)*float64(len(trace))/secs, "requests/s")
	b.ReportMetric(float64(sent)/secs, "attempts/s")
}
