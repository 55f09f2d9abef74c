package traces

import (
	"bytes"
	"runtime"
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
