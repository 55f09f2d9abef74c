package traces

import (
	"bytes"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// BenchmarkParquetWriteFloor writes the floor's trace (floorRequests) as a
// Parquet trace per iteration, in batches of 8192 requests as a generator
// hands them (generators.WriteTo): "encoder_ids" with ParquetWriter's
// batches whose keys are dense ids (what a generator writes),
// "encoder_keys" with its batches of keys, "parquet_go" with parquet-go's
// own writer (parquet.NewGenericWriter) of the same rows, options and row
// groups (the writer ParquetWriter replaced: oldParquetFile). It reports
// ns/record and the file's bytes/record.
func BenchmarkParquetWriteFloor(b *testing.B) {
	const batch = 8192
	reqs := floorRequests()
	ids := make(interner)
	var table idTable
	var withIDs, withKeys []*Batch
	rows := make([]parquetRow, len(reqs))
	for start := 0; start < len(reqs); start += batch {
		bi, bk := &Batch{Names: &table}, &Batch{}
		for _, r := range reqs[start:min(start+batch, len(reqs))] {
			id := ids.intern(r.Key)
			if int(id) == len(table) {
				table = append(table, r.Key)
			}
			bi.T, bi.Cost, bi.IDs = append(bi.T, r.T), append(bi.Cost, r.Cost), append(bi.IDs, id)
			bk.T, bk.Cost, bk.Keys = append(bk.T, r.T), append(bk.Cost, r.Cost), append(bk.Keys, r.Key...)
			bk.Ends = append(bk.Ends, len(bk.Keys))
		}
		withIDs, withKeys = append(withIDs, bi), append(withKeys, bk)
	}
	for i, r := range reqs {
		rows[i] = parquetRow{TS: r.T, Key: r.Key, Cost: int32(r.Cost)}
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
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(reqs)), "ns/record")
		b.ReportMetric(float64(buf.Len())/float64(len(reqs)), "bytes/record")
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
		run(b, func() error {
			w := parquet.NewGenericWriter[parquetRow](&buf, oldParquetOptions(parquetRowGroupRows, parquetDictMaxBytes)...)
			for start := 0; start < len(rows); start += batch {
				if _, err := w.Write(rows[start:min(start+batch, len(rows))]); err != nil {
					return err
				}
			}
			return w.Close()
		})
	})
}
