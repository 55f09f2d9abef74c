package traces

import (
	"bytes"
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"testing"
)

const benchN = 200_000

// benchRead reads a trace of benchN requests in format f per iteration and
// reports ns/record, records/s and allocs/record (opening included).
func benchRead(b *testing.B, f Format) {
	data := write(b, f, benchRequests(benchN))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	iters := 0
	for b.Loop() {
		iters++
		r, err := newReader(f, data, "bench", Options{})
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for r.Scan() {
			n++
		}
		if r.Err() != nil || n != benchN {
			b.Fatal(n, r.Err())
		}
	}
	runtime.ReadMemStats(&ms1)
	records := float64(iters) * benchN
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/records, "ns/record")
	b.ReportMetric(records/b.Elapsed().Seconds(), "records/s")
	b.ReportMetric(float64(ms1.Mallocs-ms0.Mallocs)/records, "allocs/record")
}

func BenchmarkCSVRead(b *testing.B)     { benchRead(b, FormatCSV) }
func BenchmarkJSONLRead(b *testing.B)   { benchRead(b, FormatJSONL) }
func BenchmarkParquetRead(b *testing.B) { benchRead(b, FormatParquet) }

// benchWrite writes benchN requests in format f per iteration.
func benchWrite(b *testing.B, f Format) {
	reqs := benchRequests(benchN)
	var buf bytes.Buffer
	b.ReportAllocs()
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	iters := 0
	for b.Loop() {
		iters++
		buf.Reset()
		w, _ := NewWriter(&buf, f)
		for _, r := range reqs {
			if err := w.Write(r); err != nil {
				b.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
	runtime.ReadMemStats(&ms1)
	records := float64(iters) * benchN
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/records, "ns/record")
	b.ReportMetric(records/b.Elapsed().Seconds(), "records/s")
	b.ReportMetric(float64(ms1.Mallocs-ms0.Mallocs)/records, "allocs/record")
	b.ReportMetric(float64(buf.Len())/benchN, "bytes/record")
}

func BenchmarkParquetWrite(b *testing.B) { benchWrite(b, FormatParquet) }
func BenchmarkCSVWrite(b *testing.B)     { benchWrite(b, FormatCSV) }
func BenchmarkJSONLWrite(b *testing.B)   { benchWrite(b, FormatJSONL) }

// engineTrace is a trace shaped like the replay engine's input: 2M lines of
// ts,key with integer nanosecond timestamps and about 100,000 distinct keys
// shaped like IPv4 addresses.
var engineTrace = sync.OnceValue(func() []byte {
	const n = 2_000_000
	buf := bytes.NewBufferString("ts,key\n")
	ts := int64(1_700_000_000_000_000_000)
	x := uint64(1)
	for range n {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		ts += int64(x % 2000)
		k := x >> 20 % 100_000
		buf.WriteString(strconv.FormatInt(ts, 10))
		fmt.Fprintf(buf, ",10.%d.%d.%d\n", k/10000, k/100%100, k%100)
	}
	return buf.Bytes()
})

// BenchmarkCSVReadEngine reads engineTrace per iteration: "read" only
// scans, "hash" also hashes every key, as the replay engine does, so that
// the reader's own cost on the scanning goroutine shows beside some work of
// the consumer's.
func BenchmarkCSVReadEngine(b *testing.B) {
	data := engineTrace()
	for _, hash := range []bool{false, true} {
		name := "read"
		if hash {
			name = "hash"
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			var n int
			var sum uint64
			// The CPU time of the scanning goroutine alone, on a thread of
			// its own.
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			cpu0 := threadCPU()
			for b.Loop() {
				r, err := NewCSVReader(bytes.NewReader(data), "bench", Options{})
				if err != nil {
					b.Fatal(err)
				}
				n = 0
				for r.Scan() {
					n++
					if hash {
						h := uint64(14695981039346656037)
						for _, c := range r.Request().Key {
							h = (h ^ uint64(c)) * 1099511628211
						}
						sum += h
					}
				}
				if r.Err() != nil || n != 2_000_000 {
					b.Fatal(n, r.Err())
				}
				r.Close()
			}
			cpu := threadCPU() - cpu0
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/record")
			if cpu0 >= 0 {
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N*n), "scan-cpu-ns/record")
			}
			_ = sum
		})
	}
}

// caddyTrace is benchN lines of a JSON access log shaped like Caddy's:
// the key in a nested object, beside headers, TLS details and escapes that
// the reader skips.
var caddyTrace = sync.OnceValue(func() []byte {
	var buf bytes.Buffer
	for i := range benchN {
		fmt.Fprintf(&buf, `{"level":"info","ts":%d.%06d,"logger":"http.log.access.log0","msg":"handled request",`+
			`"request":{"remote_ip":"10.%d.%d.%d","remote_port":"%d","client_ip":"10.0.0.1","proto":"HTTP/2.0","method":"GET","host":"example.com","uri":"/api/v1/items?page=%d",`+
			`"headers":{"User-Agent":["Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0 \"x\""],"Accept":["*/*"],"Accept-Encoding":["gzip, deflate, br"]},`+
			`"tls":{"resumed":false,"version":772,"cipher_suite":4865,"proto":"h2","server_name":"example.com"}},`+
			`"bytes_read":0,"user_id":"","duration":0.000812,"size":%d,"status":200,"resp_headers":{"Server":["Caddy"],"Content-Type":["text/html; charset=utf-8"]}}`+"\n",
			1_700_000_000+i/100, i%100*10_000, i%7, i/7%250, i%249, 1024+i%60000, i%97, 100+i%5000)
	}
	return buf.Bytes()
})

// BenchmarkJSONLReadNested reads caddyTrace with -key request.remote_ip.
func BenchmarkJSONLReadNested(b *testing.B) {
	data := caddyTrace()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		r, err := NewJSONLReader(bytes.NewReader(data), "bench", Options{Key: "request.remote_ip"})
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for r.Scan() {
			n++
		}
		if r.Err() != nil || n != benchN {
			b.Fatal(n, r.Err())
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchN), "ns/record")
}
