package traces

import (
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go"
)

// parquetRow is the schema of the Parquet traces this package writes:
//
//	ts   INT64 TIMESTAMP(NANOS, isAdjustedToUTC=true), DELTA_BINARY_PACKED
//	key  BYTE_ARRAY STRING, dictionary encoded (falling back to plain when
//	     the dictionary of a row group passes parquetDictMaxBytes)
//	cost INT32, DELTA_BINARY_PACKED
//
// all required, ZSTD compressed.
type parquetRow struct {
	TS   int64  `parquet:"ts,timestamp(nanosecond:utc),delta"`
	Key  []byte `parquet:"key,string,dict"`
	Cost int32  `parquet:"cost,delta"`
}

const (
	// parquetBatch is the number of rows handed to parquet-go at a time.
	parquetBatch = 4096
	// parquetRowGroupRows is the number of rows in a row group: about 16 to
	// 64 MiB of column data for typical keys, buffered in memory until the
	// group is flushed.
	parquetRowGroupRows = 1 << 20
	// parquetDictMaxBytes caps the key dictionary of a row group.
	parquetDictMaxBytes = 16 << 20
)

// ParquetWriter writes a Parquet trace (see parquetRow for the schema) that
// ParquetReader reads back exactly. Requests are buffered and handed to
// parquet-go in batches of 4096 rows through its columnar GenericWriter;
// row groups hold 1Mi rows. Close must be called to write the footer.
type ParquetWriter struct {
	pw     *parquet.GenericWriter[parquetRow]
	closer io.Closer
	rows   []parquetRow
	keys   []byte // the keys of rows, back to back
	ends   []int  // end offset in keys of each row's key
	err    error
	closed bool
}

// NewParquetWriter returns a writer of a Parquet trace to w. Close finishes
// the file but does not close w.
func NewParquetWriter(w io.Writer) *ParquetWriter {
	return newParquetWriter(w, nil)
}

func newParquetWriter(w io.Writer, closer io.Closer) *ParquetWriter {
	pw := parquet.NewGenericWriter[parquetRow](w,
		parquet.Compression(&parquet.Zstd),
		parquet.MaxRowsPerRowGroup(parquetRowGroupRows),
		parquet.DictionaryMaxBytes(parquetDictMaxBytes),
		parquet.CreatedBy("ratebench", "", ""),
		parquet.SkipPageBounds("key"), // min/max of keys per page serve no reader of traces, and cost a comparison per row
	)
	return &ParquetWriter{
		pw:     pw,
		closer: closer,
		rows:   make([]parquetRow, 0, parquetBatch),
		ends:   make([]int, 0, parquetBatch),
	}
}

// Write appends one request.
func (p *ParquetWriter) Write(r Request) error {
	if p.err != nil {
		return p.err
	}
	if err := checkRequest(r); err != nil {
		return err
	}
	p.keys = append(p.keys, r.Key...)
	p.ends = append(p.ends, len(p.keys))
	p.rows = append(p.rows, parquetRow{TS: r.T, Cost: int32(r.Cost)})
	if len(p.rows) == parquetBatch {
		return p.flush()
	}
	return nil
}

// flush hands the buffered rows to parquet-go.
func (p *ParquetWriter) flush() (err error) {
	if len(p.rows) == 0 {
		return nil
	}
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("traces: parquet writer: %v", v)
		}
		if err != nil && p.err == nil {
			p.err = err
		}
	}()
	start := 0
	for i := range p.rows {
		p.rows[i].Key = p.keys[start:p.ends[i]]
		start = p.ends[i]
	}
	if _, err := p.pw.Write(p.rows); err != nil {
		return err
	}
	clear(p.rows) // drop the key references
	p.rows, p.keys, p.ends = p.rows[:0], p.keys[:0], p.ends[:0]
	return nil
}

// Close writes the buffered rows and the footer, and closes the file if the
// writer was made by Create. The file is complete only if Close succeeds.
func (p *ParquetWriter) Close() (err error) {
	if p.closed {
		if p.err == errWriterClosed {
			return nil
		}
		return p.err
	}
	p.closed = true
	err = p.flush()
	if err == nil {
		err = func() (err error) {
			defer func() {
				if v := recover(); v != nil {
					err = fmt.Errorf("traces: parquet writer: %v", v)
				}
			}()
			return p.pw.Close()
		}()
	}
	if p.closer != nil {
		if cerr := p.closer.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		p.err = err
	} else {
		p.err = errWriterClosed
	}
	return err
}
