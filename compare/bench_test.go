package compare

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"ratebench/algorithms"
	"ratebench/summary"
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
				b.ReportMetric(float64(e.workers[0].rel.peakLive), "peak-live-keys")
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

// benchCSV is a ts,key CSV trace of 2M requests over 100,000 keys, about 10
// requests per key per minute, in time order (integer ns), built on first
// use: the input of BenchmarkFloor and BenchmarkReplayCSV, so that their
// ratio is measured in one run.
var benchCSV = sync.OnceValue(func() []byte {
	const keys, n = 100_000, 2_000_000
	rng := rand.New(rand.NewPCG(31, 32))
	buf := make([]byte, 0, 32*n)
	buf = append(buf, "ts,key\n"...)
	t := int64(1_700_000_000_000_000_000)
	for range n {
		t += int64(rng.ExpFloat64() * 60_000) // 16,667 requests/s: ~10 per key per minute
		k := rng.IntN(keys)
		buf = fmt.Appendf(buf, "%d,10.%d.%d.%d\n", t, k>>16, (k>>8)&255, k&255)
	}
	return buf
})

const benchCSVRequests = 2_000_000

// BenchmarkFloor is the least any harness does per request, the floor the
// engine's speed is measured against: read the CSV of benchCSV (a ts of
// decimal digits, checked for overflow; a key checked to be UTF-8), intern
// each key in a Go map to a dense id, check that the key's time does not go
// back, and decide (and record) with the counter, on one goroutine.
// Compare its req/s with BenchmarkReplayCSV's, from the same run (make
// bench's table gives the ratio).
func BenchmarkFloor(b *testing.B) {
	csv := benchCSV()
	rule, _ := algorithms.ParseRule("10/1m")
	admitted := 0
	b.ResetTimer()
	for range b.N {
		lim := algorithms.NewCounter(rule)
		ids := make(map[string]int32)
		var last []int64 // by id
		br := bufio.NewReaderSize(bytes.NewReader(csv), 64<<10)
		if _, err := br.ReadSlice('\n'); err != nil { // the header
			b.Fatal(err)
		}
		n := 0
		for {
			line, err := br.ReadSlice('\n')
			if len(line) == 0 {
				if err != io.EOF {
					b.Fatal(err)
				}
				break
			}
			line = bytes.TrimSuffix(line, []byte{'\n'})
			comma := bytes.IndexByte(line, ',')
			if comma < 1 {
				b.Fatalf("line %d: no ts,key", n+2)
			}
			var t int64
			for _, c := range line[:comma] {
				d := int64(c - '0')
				if c < '0' || c > '9' || t > (math.MaxInt64-d)/10 {
					b.Fatalf("line %d: bad ts", n+2)
				}
				t = 10*t + d
			}
			key := line[comma+1:]
			if !utf8.Valid(key) {
				b.Fatalf("line %d: key is not UTF-8", n+2)
			}
			id, ok := ids[string(key)]
			if !ok {
				id = int32(len(ids))
				ids[string(key)] = id
				lim.Grow(len(ids))
				last = append(last, t)
			}
			if t < last[id] {
				b.Fatalf("line %d: time goes back", n+2)
			}
			last[id] = t
			if lim.Decide(id, t, 1) {
				lim.Record(id, t, 1)
				admitted++
			}
			n++
		}
		if n != benchCSVRequests || len(ids) < 99_000 {
			b.Fatalf("%d requests, %d keys", n, len(ids))
		}
	}
	b.ReportMetric(float64(benchCSVRequests)*float64(b.N)/b.Elapsed().Seconds(), "req/s")
	b.ReportMetric(float64(admitted)/float64(benchCSVRequests)/float64(b.N), "admit/op")
}

// benchProducts are the deployed products of results/products: every
// product of the catalogue, beside the log.
var benchProducts = []string{"log", "products"}

// BenchmarkReplayCSV is compare on the CSV of BenchmarkFloor, through the
// engine's API (reading, interning, every decision and metric, the
// summary): -alg log,counter -mode independent with 1 and 2 workers, and
// with 2 workers the default set and the products in both modes.
func BenchmarkReplayCSV(b *testing.B) {
	csv := benchCSV()
	benchReplayTrace(b, func() (traces.Reader, error) {
		return traces.NewCSVReader(bytes.NewReader(csv), "bench.csv", traces.Options{})
	})
}

// benchCSVParquet is the trace of benchCSV as ratebench convert writes it
// in Parquet, built on first use.
var benchCSVParquet = sync.OnceValue(func() []byte {
	r, err := traces.NewCSVReader(bytes.NewReader(benchCSV()), "bench.csv", traces.Options{})
	if err != nil {
		panic(err)
	}
	var buf bytes.Buffer
	w := traces.NewParquetWriter(&buf)
	for r.Scan() {
		if err := w.Write(r.Request()); err != nil {
			panic(err)
		}
	}
	if err := r.Err(); err != nil {
		panic(err)
	}
	if err := w.Close(); err != nil {
		panic(err)
	}
	return buf.Bytes()
})

// BenchmarkReplayParquet is BenchmarkReplayCSV on the same trace in
// Parquet: the ratio of their req/s is what reading Parquet gains.
func BenchmarkReplayParquet(b *testing.B) {
	pq := benchCSVParquet()
	benchReplayTrace(b, func() (traces.Reader, error) {
		return traces.NewParquetReader(bytes.NewReader(pq), int64(len(pq)), "bench.parquet", traces.Options{})
	})
}

// benchReplayTrace replays the trace of benchCSV that open reads, in the
// configurations of BenchmarkReplayCSV.
func benchReplayTrace(b *testing.B, open func() (traces.Reader, error)) {
	rule, _ := algorithms.ParseRule("10/1m")
	both := []Mode{Independent, Shadow}
	for _, bc := range []struct {
		name    string
		algs    []string
		modes   []Mode
		workers int
	}{
		{"log+counter/independent/workers=1", []string{"counter"}, []Mode{Independent}, 1},
		{"log+counter/independent/workers=2", []string{"counter"}, []Mode{Independent}, 2},
		{"default/both-modes/workers=2", algorithms.DefaultSpecs, both, 2},
		{"products/both-modes/workers=2", benchProducts, both, 2},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				e, err := New(Config{Rules: []algorithms.Rule{rule}, Algorithms: bc.algs, Modes: bc.modes, Workers: bc.workers})
				if err != nil {
					b.Fatal(err)
				}
				r, err := open()
				if err != nil {
					b.Fatal(err)
				}
				if err := e.Replay(context.Background(), r); err != nil {
					b.Fatal(err)
				}
				if s := e.Summary(summary.TraceInfo{Path: "bench", Format: "bench"}); s.Trace.Requests != benchCSVRequests {
					b.Fatalf("%d requests replayed", s.Trace.Requests)
				}
			}
			b.ReportMetric(float64(benchCSVRequests)*float64(b.N)/b.Elapsed().Seconds(), "req/s")
		})
	}
}

// BenchmarkMillionKeys replays a million keys, about ten requests each
// over twenty seconds (10M requests, uniform keys, rule 100/1m: every key
// stays in its window, none is released), through the default algorithms
// in both modes on one worker, as `ratebench compare -gen
// 'poisson:requests=10000000,keys=1000000,rate=0.5' -rule 100/1m` does,
// and reports what a key costs: its part of the worker's block (the runs'
// rows and every placed limiter's cell), the Go heap left live per key
// (its name and key-table entry, the log's entries past its inline ring,
// the windows of disagreements), and their sum. It needs about a gigabyte
// and half a minute, so it runs only with RATEBENCH_MILLION_KEYS=1:
//
//	RATEBENCH_MILLION_KEYS=1 go test ./compare -run '^$' -bench MillionKeys -benchtime 1x
func BenchmarkMillionKeys(b *testing.B) {
	if os.Getenv("RATEBENCH_MILLION_KEYS") == "" {
		b.Skip("RATEBENCH_MILLION_KEYS=1 runs it")
	}
	const keys, n = 1_000_000, 10_000_000
	rule, _ := algorithms.ParseRule("100/1m")
	names := make([][]byte, keys)
	for i := range names {
		names[i] = fmt.Appendf(nil, "10.%d.%d.%d", i>>16, (i>>8)&255, i&255)
	}
	for range b.N {
		b.StopTimer()
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before) // the names' heap, which is the benchmark's
		e, err := New(Config{Rules: []algorithms.Rule{rule}, Algorithms: algorithms.DefaultSpecs, Modes: []Mode{Independent, Shadow}, Workers: 1})
		if err != nil {
			b.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(41, 42))
		t := int64(1_700_000_000_000_000_000)
		b.StartTimer()
		for range n {
			t += int64(rng.ExpFloat64() * 2_000) // 500,000 requests/s: one per key every 2 s
			if err := e.Add(names[rng.IntN(keys)], t, 1); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		w := e.workers[0]
		live := w.keys.len()
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		block := float64(8 * w.block.Stride())
		heap := float64(m.HeapAlloc-before.HeapAlloc) / float64(live)
		b.ReportMetric(block, "block-B/key")
		b.ReportMetric(heap, "heap-B/key")
		b.ReportMetric(block+heap, "B/key")
		runtime.KeepAlive(e)
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "req/s")
}

// BenchmarkSummaryClose times what a worker's summary reads of its keys
// once the replay is over (closeKeys, and the runs' closes), on 200,000
// keys, for the default set and for the products.
func BenchmarkSummaryClose(b *testing.B) {
	for _, algs := range [][]string{nil, {"log", "products"}} {
		name := "default"
		if algs != nil {
			name = "products"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				rule := algorithms.Rule{L: 10, W: int64(time.Minute)}
				cfg := Config{Rules: []algorithms.Rule{rule}, Algorithms: algs, Workers: 1}
				e, err := New(cfg)
				if err != nil {
					b.Fatal(err)
				}
				keys := make([][]byte, 200000)
				for i := range keys {
					keys[i] = []byte("k" + strconv.Itoa(i))
				}
				for i := range 600000 {
					if err := e.Add(keys[(i*7919)%len(keys)], int64(i)*int64(time.Millisecond), 1); err != nil {
						b.Fatal(err)
					}
				}
				b.StartTimer()
				_ = e.Summary(summary.TraceInfo{})
			}
		})
	}
}
