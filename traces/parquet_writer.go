package traces

import "io"

// parquetRow is the schema of the Parquet traces this package writes:
//
//	ts   INT64 TIMESTAMP(NANOS, isAdjustedToUTC=true), DELTA_BINARY_PACKED
//	key  BYTE_ARRAY STRING, dictionary encoded (a row group ends early
//	     rather than let its dictionary pass parquetDictMaxBytes)
//	cost INT32, DELTA_BINARY_PACKED
//
// all required, ZSTD compressed.
type parquetRow struct {
	TS   int64  `parquet:"ts,timestamp(nanosecond:utc),delta"`
	Key  []byte `parquet:"key,string,dict"`
	Cost int32  `parquet:"cost,delta"`
}

const (
	// parquetRowGroupRows is the number of rows in a row group: about 64 to
	// 256 MiB of column data for typical keys, buffered in memory until the
	// group is flushed. Each row group has a key dictionary of its own, so
	// that a trace with many keys rebuilds it (and a reader looks its keys
	// up) once per row group: fewer, larger groups cost less of both.
	parquetRowGroupRows = 1 << 22
	// parquetDictMaxBytes caps the key dictionary of a row group.
	parquetDictMaxBytes = 16 << 20
)

// ParquetWriter writes a Parquet trace (see parquetRow for the schema) that
// ParquetReader reads back exactly, with its own column encoder (see
// pqEncoder). It is a BatchWriter: a Batch with IDs spares it hashing the
// keys. Close must be called to write the footer.
type ParquetWriter struct {
	enc    *pqEncoder
	closer io.Closer
	err    error // the first error of the output, or errWriterClosed
	closed bool
}

// NewParquetWriter returns a writer of a Parquet trace to w. Close finishes
// the file but does not close w.
func NewParquetWriter(w io.Writer) *ParquetWriter {
	return newParquetWriter(w, nil)
}

func newParquetWriter(w io.Writer, closer io.Closer) *ParquetWriter {
	return &ParquetWriter{enc: newPQEncoder(w), closer: closer}
}

// Write appends one request.
func (p *ParquetWriter) Write(r Request) error {
	if p.err != nil {
		return p.err
	}
	return p.check(p.enc.addRow(r.T, r.Key, r.Cost))
}

// WriteBatch appends the requests of b.
func (p *ParquetWriter) WriteBatch(b *Batch) (int, error) {
	if p.err != nil {
		return 0, p.err
	}
	if b.IDs == nil {
		start := 0
		for i, end := range b.Ends {
			if err := p.enc.addRow(b.T[i], b.Keys[start:end], b.Cost[i]); err != nil {
				return i, p.check(err)
			}
			start = end
		}
		return b.Len(), nil
	}
	n, err := p.enc.addIDs(b)
	return n, p.check(err)
}

// check keeps an error of the output, which ends the writer; a refused
// request does not.
func (p *ParquetWriter) check(err error) error {
	if p.enc.err != nil && p.err == nil {
		p.err = p.enc.err
	}
	return err
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
	err = p.err
	if err == nil {
		err = p.enc.close()
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
