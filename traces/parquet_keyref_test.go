package traces

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// TestParquetKeyRef checks the dictionary references of a Parquet trace's
// keys: every key of a dictionary-encoded column comes with one, an
// index names the same key for as long as its dictionary lasts, and the
// keys read are those written, row groups and pages changing on the way.
func TestParquetKeyRef(t *testing.T) {
	var reqs []Request
	for i := range 5000 {
		reqs = append(reqs, Request{T: int64(i), Key: fmt.Appendf(nil, "k%d", (i*7)%301), Cost: 1})
	}
	var rows []parquetRow
	for _, q := range reqs {
		rows = append(rows, parquetRow{TS: q.T, Key: q.Key, Cost: int32(q.Cost)})
	}
	r := parquetOf(t, rows, parquet.MaxRowsPerRowGroup(1234), parquet.PageBufferSize(512))
	type ref struct {
		dict  uint64
		index int32
	}
	names := map[ref]string{}
	dicts := map[uint64]bool{}
	n := 0
	for r.Scan() {
		q := r.Request()
		if string(q.Key) != string(reqs[n].Key) || q.T != reqs[n].T {
			t.Fatalf("row %d: read %d %q, wrote %d %q", n+1, q.T, q.Key, reqs[n].T, reqs[n].Key)
		}
		d, i, ok := r.KeyRef()
		if !ok {
			t.Fatalf("row %d: no dictionary reference for a dictionary-encoded key", n+1)
		}
		dicts[d] = true
		if name, seen := names[ref{d, i}]; seen && name != string(q.Key) {
			t.Fatalf("row %d: dictionary %d entry %d names %q and %q", n+1, d, i, name, q.Key)
		}
		names[ref{d, i}] = string(q.Key)
		n++
	}
	if r.Err() != nil || n != len(reqs) {
		t.Fatalf("%d rows read, err %v", n, r.Err())
	}
	if len(dicts) != 5 { // 5000 rows in row groups of 1234
		t.Errorf("%d dictionaries, want one per row group (5)", len(dicts))
	}
}

// TestParquetKeyRefPlain checks that a key column without a dictionary
// gives no references.
func TestParquetKeyRefPlain(t *testing.T) {
	type plainRow struct {
		TS  int64  `parquet:"ts"`
		Key []byte `parquet:"key,string,plain"`
	}
	r := parquetOf(t, []plainRow{{1, []byte("a")}, {2, []byte("b")}})
	n := 0
	for r.Scan() {
		if _, _, ok := r.KeyRef(); ok {
			t.Fatalf("row %d: a dictionary reference for a plain key", n+1)
		}
		n++
	}
	if r.Err() != nil || n != 2 {
		t.Fatalf("%d rows, err %v", n, r.Err())
	}
}

// parquetOf writes rows with parquet-go's options and returns a reader of
// the file.
func parquetOf[T any](t *testing.T, rows []T, opts ...parquet.WriterOption) *ParquetReader {
	t.Helper()
	data := writeParquetRows(t, rows, opts...)
	r, err := NewParquetReader(bytes.NewReader(data), int64(len(data)), "t.parquet", Options{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestParquetWriterKeyRefs checks that the traces this package writes are
// read by their key dictionaries.
func TestParquetWriterKeyRefs(t *testing.T) {
	reqs := benchRequests(20_000)
	data := write(t, FormatParquet, reqs)
	r, err := NewParquetReader(bytes.NewReader(data), int64(len(data)), "t.parquet", Options{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for r.Scan() {
		if _, _, ok := r.KeyRef(); !ok {
			t.Fatalf("row %d: no dictionary reference", n+1)
		}
		if got := r.Request(); string(got.Key) != string(reqs[n].Key) {
			t.Fatalf("row %d: key %q, wrote %q", n+1, got.Key, reqs[n].Key)
		}
		n++
	}
	if r.Err() != nil || n != len(reqs) {
		t.Fatalf("%d rows, err %v", n, r.Err())
	}
}
