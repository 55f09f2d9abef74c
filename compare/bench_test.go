package compare

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"

	"ratebench/algorithms"
	"ratebench/traces"
)

// benchData is the benchmarks' trace: keys are 100,000 distinct keys, reqs
// a request stream over them in time order, about 10 requests per key per
// minute. It is built on first use (by benchTrace), not when the package's
// tests start.
type benchData struct {
	keys [][]byte
	reqs []benchReq
}

type benchReq struct {
	key int32
	t   int64
}

var benchTrace = sync.OnceValue(func() benchData {
	const keys, n = 100_000, 1 << 20
	rng := rand.New(rand.NewPCG(21, 22))
	ks := make([][]byte, keys)
	for i := range ks {
		ks[i] = fmt.Appendf(nil, "10.%d.%d.%d", i>>16, (i>>8)&255, i&255)
	}
	reqs := make([]benchReq, n)
	t := int64(1_700_000_000_000_000_000)
	for i := range reqs {
		t += int64(rng.ExpFloat64() * 60_000)
		reqs[i].key, reqs[i].t = int32(rng.IntN(keys)), t
	}
	return benchData{ks, reqs}
})

// BenchmarkEngine measures end-to-end replay (interning, every decision,
// every metric) per request, without parsing.
func BenchmarkEngine(b *testing.B) {
	rule, _ := algorithms.ParseRule("10/1m")
	for _, bc := range []struct {
		name  string
		algs  []string
		modes []Mode
	}{
		{"log+counter/independent", []string{"counter"}, []Mode{Independent}},
		{"default/both-modes", algorithms.DefaultSpecs, []Mode{Independent, Shadow}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			e, err := New(Config{Rules: []algorithms.Rule{rule}, Algorithms: bc.algs, Modes: bc.modes})
			if err != nil {
				b.Fatal(err)
			}
			d := benchTrace()
			benchKeys, benchReqs := d.keys, d.reqs
			span := benchReqs[len(benchReqs)-1].t - benchReqs[0].t + 1
			var shift int64
			i := 0
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				q := benchReqs[i]
				if err := e.Add(benchKeys[q.key], q.t+shift, 1); err != nil {
					b.Fatal(err)
				}
				if i++; i == len(benchReqs) {
					i, shift = 0, shift+span
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
		})
	}
}

// BenchmarkDistinctKeys replays a stream of keys each seen once (1,000 new
// keys a second, rule 10/1m: 120,000 keys are active at a time), with idle
// keys released and without, and reports the Go heap it leaves live and
// the most keys live at once. With release the heap is set by the active
// keys; without, by every key seen.
func BenchmarkDistinctKeys(b *testing.B) {
	rule, _ := algorithms.ParseRule("10/1m")
	const n = 2_000_000
	for _, bc := range []struct {
		name     string
		minSweep int
	}{{"release", defaultMinSweep}, {"keep", 1 << 62}} {
		b.Run(bc.name, func(b *testing.B) {
			for range b.N {
				e, err := New(withMinSweep(Config{Rules: []algorithms.Rule{rule}, Algorithms: []string{"counter", "token"}, Modes: []Mode{Independent}}, bc.minSweep))
				if err != nil {
					b.Fatal(err)
				}
				key := make([]byte, 0, 32)
				for i := range n {
					key = fmt.Appendf(key[:0], "client-%d", i)
					if err := e.Add(key, int64(i)*1_000_000, 1); err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				runtime.GC()
				var m runtime.MemStats
				runtime.ReadMemStats(&m)
				b.ReportMetric(float64(m.HeapAlloc)/(1<<20), "heap-MiB")
				b.ReportMetric(float64(e.rel.peakLive), "peak-live-keys")
				b.ReportMetric(float64(m.HeapAlloc)/n, "heap-B/key-seen")
				runtime.KeepAlive(e)
				b.StartTimer()
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "req/s")
		})
	}
}

// benchParquet is benchTrace written as a Parquet trace, in memory, built
// on first use.
var benchParquet = sync.OnceValue(func() []byte {
	d := benchTrace()
	var buf bytes.Buffer
	w := traces.NewParquetWriter(&buf)
	for _, q := range d.reqs {
		if err := w.Write(traces.Request{T: q.t, Key: d.keys[q.key], Cost: 1}); err != nil {
			panic(err)
		}
	}
	if err := w.Close(); err != nil {
		panic(err)
	}
	return buf.Bytes()
})

// BenchmarkReplay measures the whole replay of a Parquet trace (1M
// requests over 100,000 keys, rule 10/1m) as compare runs it: reading and
// parsing, interning, every decision and metric, with one worker and with
// one per core.
func BenchmarkReplay(b *testing.B) {
	rule, _ := algorithms.ParseRule("10/1m")
	pq, n := benchParquet(), len(benchTrace().reqs)
	for _, bc := range []struct {
		name  string
		algs  []string
		modes []Mode
	}{
		{"log+counter/independent", []string{"counter"}, []Mode{Independent}},
		{"default/both-modes", algorithms.DefaultSpecs, []Mode{Independent, Shadow}},
	} {
		for _, workers := range []int{1, runtime.GOMAXPROCS(0)} {
			b.Run(fmt.Sprintf("%s/workers=%d", bc.name, workers), func(b *testing.B) {
				b.ReportAllocs()
				for range b.N {
					e, err := New(Config{Rules: []algorithms.Rule{rule}, Algorithms: bc.algs, Modes: bc.modes, Workers: workers})
					if err != nil {
						b.Fatal(err)
					}
					r, err := traces.NewParquetReader(bytes.NewReader(pq), int64(len(pq)), "bench.parquet", traces.Options{})
					if err != nil {
						b.Fatal(err)
					}
					if err := e.Replay(context.Background(), r); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "req/s")
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n)/float64(b.N), "ns/req")
			})
		}
	}
}
