package traces

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// oldParquetFile writes reqs as ParquetWriter did through parquet-go's row
// writer (the same schema, options and batches), to compare files with.
func oldParquetFile(t testing.TB, reqs []Request, groupRows, dictMax int) []byte {
	t.Helper()
	rows := make([]parquetRow, len(reqs))
	for i, r := range reqs {
		rows[i] = parquetRow{TS: r.T, Key: r.Key, Cost: int32(r.Cost)}
	}
	return writeParquetRows(t, rows, oldParquetOptions(groupRows, dictMax)...)
}

// oldParquetOptions are the options ParquetWriter gave parquet-go's row
// writer.
func oldParquetOptions(groupRows, dictMax int) []parquet.WriterOption {
	return []parquet.WriterOption{
		parquet.Compression(&parquet.Zstd),
		parquet.MaxRowsPerRowGroup(int64(groupRows)),
		parquet.DictionaryMaxBytes(int64(dictMax)),
		parquet.CreatedBy("ratebench", "", ""),
		parquet.SkipPageBounds("key"),
	}
}

// ids is a KeyTable for the tests.
type idTable [][]byte

func (k idTable) Key(id int32) []byte { return k[id] }

// batches writes reqs to a new Parquet trace in batches of size n, with
// ids (of keys) if table is not nil, and returns the file.
func batches(t *testing.T, reqs []Request, n int, table idTable) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := smallParquetWriter(&buf)
	id := map[string]int32{}
	for i, k := range table {
		id[string(k)] = int32(i)
	}
	var b Batch
	for start := 0; start < len(reqs); start += n {
		b.Reset()
		for _, r := range reqs[start:min(start+n, len(reqs))] {
			b.T, b.Cost = append(b.T, r.T), append(b.Cost, r.Cost)
			if table != nil {
				b.IDs, b.Names = append(b.IDs, id[string(r.Key)]), table
			} else {
				b.Keys = append(b.Keys, r.Key...)
				b.Ends = append(b.Ends, len(b.Keys))
			}
		}
		if k, err := w.WriteBatch(&b); err != nil || k != b.Len() {
			t.Fatalf("WriteBatch = %d, %v; want %d", k, err, b.Len())
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// The limits of smallParquetWriter.
const (
	smallGroupRows = 5000
	smallDictMax   = 20_000
	smallPageRows  = 700
)

// smallParquetWriter is a ParquetWriter of small row groups, dictionaries
// and pages, to test their limits on few rows.
func smallParquetWriter(w io.Writer) *ParquetWriter {
	p := NewParquetWriter(w)
	p.enc.groupRows, p.enc.dictMax, p.enc.pageRows = smallGroupRows, smallDictMax, smallPageRows
	return p
}

// parquetGroups returns the rows of each row group of a Parquet file.
func parquetGroups(t *testing.T, data []byte) []int64 {
	t.Helper()
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var rows []int64
	for _, g := range f.Metadata().RowGroups {
		rows = append(rows, g.NumRows)
	}
	return rows
}

// The encoder's files hold exactly what parquet-go's row writer wrote, in
// the same schema and row groups, whether written a request at a time, in
// batches of keys or in batches of ids; a row group ends early where its
// dictionary would pass parquetDictMaxBytes.
func TestParquetEncoderMatchesRowWriter(t *testing.T) {
	// Two row groups and 1500 rows: 150 keys, drawn unevenly, beside
	// one-off keys of 50 bytes in the third row group, whose dictionary
	// fills up.
	const n = 2*smallGroupRows + 1500
	keys := make([][]byte, 150)
	for i := range keys {
		keys[i] = []byte(fmt.Sprintf("k%d-é", i))
	}
	table := idTable{}
	reqs := make([]Request, n)
	for i := range reqs {
		k := keys[(i*i)%len(keys)]
		if i >= 2*smallGroupRows && i%3 != 0 {
			k = []byte(fmt.Sprintf("%050d", i))
		}
		reqs[i] = Request{T: int64(i) * 997, Key: k, Cost: int64(1 + i%5)}
	}
	seen := map[string]bool{}
	for _, r := range reqs {
		if !seen[string(r.Key)] {
			seen[string(r.Key)] = true
			table = append(table, r.Key)
		}
	}
	old := oldParquetFile(t, reqs, smallGroupRows, smallDictMax)
	want, err := read(FormatParquet, old, "old.parquet", Options{})
	if err != nil || !equalRequests(want, reqs) {
		t.Fatalf("the row writer's file reads back differently: %v", err)
	}
	var one bytes.Buffer
	w := smallParquetWriter(&one)
	for _, r := range reqs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{
		"Write":         one.Bytes(),
		"batch of keys": batches(t, reqs, 333, nil),
		"batch of ids":  batches(t, reqs, 1024, table),
	}
	// 1000 one-off keys of 54 bytes in the dictionary: the last 1500
	// rows make three row groups, each ended before its dictionary passes
	// 20,000 bytes.
	wantGroups := fmt.Sprint([]int64{smallGroupRows, smallGroupRows, 549, 549, 402})
	for name, data := range files {
		got, err := read(FormatParquet, data, name+".parquet", Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !equalRequests(got, want) {
			t.Errorf("%s: the file reads back differently", name)
			diffRequests(t, got, want)
		}
		if groups := fmt.Sprint(parquetGroups(t, data)); groups != wantGroups {
			t.Errorf("%s: row groups of %s rows, want %s", name, groups, wantGroups)
		}
	}
	if g := parquetGroups(t, old); len(g) != 3 || g[0] != smallGroupRows {
		t.Errorf("the row writer's row groups: %v", g)
	}
}

// A batch stops at the first request it refuses, with Write's error, and
// the writer goes on; each key is checked, even one known by its id.
func TestParquetBatchRefuses(t *testing.T) {
	table := idTable{[]byte("a"), []byte("b\x00"), []byte("c")}
	for _, tc := range []struct {
		b    Batch
		want string
		n    int
	}{
		{Batch{T: []int64{1, 2, 3}, Cost: []int64{1, 1, 1}, IDs: []int32{0, 2, 1}, Names: table}, "NUL", 2},
		{Batch{T: []int64{1, -2}, Cost: []int64{1, 1}, IDs: []int32{0, 0}, Names: table}, "negative ts", 1},
		{Batch{T: []int64{1, 2}, Cost: []int64{1, 0}, IDs: []int32{0, 2}, Names: table}, "cost 0", 1},
		{Batch{T: []int64{1, 2}, Cost: []int64{1, 1}, Keys: []byte("a\xff"), Ends: []int{1, 2}}, "UTF-8", 1},
		{Batch{T: []int64{1, 2}, Cost: []int64{1, 1}, Keys: []byte("a"), Ends: []int{1, 1}}, "empty key", 1},
	} {
		var buf bytes.Buffer
		w := NewParquetWriter(&buf)
		n, err := w.WriteBatch(&tc.b)
		if err == nil || !strings.Contains(err.Error(), tc.want) || n != tc.n {
			t.Errorf("%+v: WriteBatch = %d, %v; want %d, an error about %s", tc.b, n, err, tc.n, tc.want)
		}
		if err := w.Write(Request{T: 9, Key: []byte("z"), Cost: 2}); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		got, err := read(FormatParquet, buf.Bytes(), "t.parquet", Options{})
		if err != nil || len(got) != tc.n+1 || string(got[tc.n].Key) != "z" {
			t.Errorf("%+v: read back %v, %v", tc.b, got, err)
		}
	}
}
