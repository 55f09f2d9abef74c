package traces

import (
	"bytes"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// BenchmarkParquetWriteFloor writes 2M requests of the floor's trace
// (floorDraws: the floor's own size) as a Parquet trace per iteration, in
// batches of 8192 requests as a generator hands them (generators.WriteTo:
// keys known by dense ids, named by a table): "encoder_ids" with
// ParquetWriter (pqEncoder), "parquet_go" with parquet-go's writer
// (parquet.NewGenericWriter, under the options ParquetWriter gave it before
// it had an encoder of its own: oldParquetOptions) fed the same batches as
// rows, each key read from the table and checked as ParquetWriter checks
// it. "encoder_keys" is ParquetWriter given the batches with their keys
// instead of ids (as convert writes). It reports ns/record and the file's
// bytes/record.
func BenchmarkParquetWriteFloor(b *testing.B) {
	const n, batch = 2_000_000, 8192
	ts, ids := floorDraws(n)
	table := make(idTable, floorKeys)
	for k := range table {
		table[k] = floorKeyName(int32(k))
	}
	var withIDs, withKeys []*Batch
	for start := 0; start < n; start += batch {
		end := min(start+batch, n)
		bi := &Batch{T: ts[start:end], Cost: make([]int64, end-start), IDs: ids[start:end], Names: table}
		bk := &Batch{T: bi.T, Cost: bi.Cost}
		for i, id := range bi.IDs {
			bi.Cost[i] = 1
			bk.Keys = append(bk.Keys, table[id]...)
			bk.Ends = append(bk.Ends, len(bk.Keys))
		}
		withIDs, withKeys = append(withIDs, bi), append(withKeys, bk)
	}
	var buf bytes.Buffer
	run := func(b *testing.B, write func() error) {
		b.ReportAllocs()
		for b.Loop() {
			buf.Reset()
			if err := write(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/record")
		b.ReportMetric(float64(buf.Len())/float64(n), "bytes/record")
	}
	encoder := func(batches []*Batch) func() error {
		return func() error {
			w := NewParquetWriter(&buf)
			for _, bt := range batches {
				if _, err := w.WriteBatch(bt); err != nil {
					return err
				}
			}
			return w.Close()
		}
	}
	b.Run("encoder_ids", func(b *testing.B) { run(b, encoder(withIDs)) })
	b.Run("encoder_keys", func(b *testing.B) { run(b, encoder(withKeys)) })
	b.Run("parquet_go", func(b *testing.B) {
		rows := make([]parquetRow, batch)
		run(b, func() error {
			w := parquet.NewGenericWriter[parquetRow](&buf, oldParquetOptions(parquetRowGroupRows, parquetDictMaxBytes)...)
			for _, bt := range withIDs {
				rows = rows[:0]
				for i := range bt.Len() {
					r := bt.Request(i)
					if err := checkRequest(r); err != nil {
						return err
					}
					rows = append(rows, parquetRow{TS: r.T, Key: r.Key, Cost: int32(r.Cost)})
				}
				if _, err := w.Write(rows); err != nil {
					return err
				}
			}
			return w.Close()
		})
	})
}
