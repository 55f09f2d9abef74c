package traces

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"
	"github.com/parquet-go/parquet-go/encoding/delta"
	"github.com/parquet-go/parquet-go/encoding/rle"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// pqEncoder writes a Parquet trace of parquetRow's schema itself, column by
// column, rather than through parquet-go's row writer: parquet-go finds
// each row's key in its dictionary by hashing it, a cache miss or two per
// row once a row group has hundreds of thousands of keys, where a batch
// that names its keys by a dense id (Batch.IDs) finds it by index. The
// file is what parquet-go would write but for the page layout: the same
// schema (taken from parquet-go), encodings (DELTA_BINARY_PACKED times and
// costs, RLE_DICTIONARY keys with a PLAIN dictionary), ZSTD compression and
// row groups of parquetRowGroupRows rows, in version 1 data pages of
// pqPageRows values, without page index. A row group whose dictionary
// would pass parquetDictMaxBytes ends early instead of falling back to
// plain keys. A batch of ids and a Write of the same key put it twice in
// the dictionary, which is allowed.
//
// Writing a generator's batches of ids for 2M requests of the floor's
// trace shape (BenchmarkParquetWriteFloor, encoder_ids against parquet_go,
// medians of runs on a shared 2-core machine), the encoder is 3.2× to 4.7×
// faster than parquet-go's writer fed the same batches, which reads every
// key from the generator's table to hash it; it allocates 8× the memory
// (its row group's columns are made for parquetRowGroupRows rows at once).
// Batches of keys (encoder_keys), which it looks up in a map as parquet-go
// does, are only 1.3× to 1.6× faster.
type pqEncoder struct {
	w         io.Writer
	groupRows int   // rows of a row group: parquetRowGroupRows but in tests
	dictMax   int   // bytes of a row group's dictionary at most: parquetDictMaxBytes but in tests
	pageRows  int   // values of a data page: pqPageRows but in tests
	off       int64 // bytes written so far
	err       error

	// The current row group.
	ts      []int64
	cost    []int32
	idx     []int32          // dictionary index of each row's key
	dict    []byte           // the distinct keys, PLAIN encoded (4-byte length, bytes)
	ndict   int32            // their number
	byKey   map[string]int32 // dictionary index of a key, for rows without id
	byID    []pqID           // each id's dictionary index and key, for rows with one
	idsUsed []int32          // the ids of byID set in this row group
	dictLen int              // bytes of the dictionary, with the keys of pending
	pending []int32          // rows of the batch under way whose keys the dictionary is owed, in order
	owed    [][]byte         // scratch: their keys
	gather  []int32          // scratch: byID of a batch's ids

	groups  []format.RowGroup
	rows    int64
	pages   []pqPage // scratch: the pages of a row group, their buffers kept from one group to the next
	scratch [][]byte // scratch: a page encoded, one for each worker of encodePages
}

// pqPage is one page of a row group, encoded and compressed by
// encodePages: column col's rows [lo, hi), or its dictionary.
type pqPage struct {
	col    pageCol
	lo, hi int
	size   int    // bytes of the page encoded, uncompressed
	comp   []byte // the page compressed
	err    error
}

// pageCol names the column (or the dictionary) a page holds.
type pageCol int8

const (
	pageTS pageCol = iota
	pageDict
	pageKey
	pageCost
)

// pqDictZstd compresses the dictionary pages: zstd's fastest level, which
// on a dictionary of keys that differ in a few digits is both faster and
// smaller than the default. Data pages keep the default (parquet.Zstd),
// which finds the long repeats of periodic data that the fastest misses.
var pqDictZstd = zstd.Codec{Level: zstd.SpeedFastest}

// pqPageRows is the number of values of a data page.
const pqPageRows = 64 << 10

var pqSchema = sync.OnceValues(func() ([]format.SchemaElement, []format.ColumnOrder) {
	// The schema elements parquet-go writes for parquetRow, read back from
	// an empty file it writes.
	var b bytes.Buffer
	w := parquet.NewGenericWriter[parquetRow](&b, parquet.Compression(&parquet.Zstd))
	if err := w.Close(); err != nil {
		panic(err)
	}
	f, err := parquet.OpenFile(bytes.NewReader(b.Bytes()), int64(b.Len()))
	if err != nil {
		panic(err)
	}
	md := f.Metadata()
	return md.Schema, md.ColumnOrders
})

func newPQEncoder(w io.Writer) *pqEncoder {
	return &pqEncoder{w: w, groupRows: parquetRowGroupRows, dictMax: parquetDictMaxBytes, pageRows: pqPageRows, byKey: map[string]int32{}}
}

func (e *pqEncoder) write(b []byte) {
	if e.err != nil {
		return
	}
	n, err := e.w.Write(b)
	e.off += int64(n)
	if err != nil {
		e.err = err
	}
}

// addRow appends one row. It refuses a row that no reader would accept
// back (see checkRequest): the key is checked when it enters the
// dictionary of a row group, since a key of the dictionary was checked
// already.
func (e *pqEncoder) addRow(t int64, key []byte, cost int64) error {
	if err := checkTimeCost(t, cost); err != nil {
		return err
	}
	x, err := e.lookup(key)
	if x < 0 && err == nil { // the dictionary is full: a new row group
		e.flushGroup()
		x, err = e.lookup(key)
	}
	if err != nil {
		return err
	}
	e.ts = append(e.ts, t)
	e.cost = append(e.cost, int32(cost))
	e.idx = append(e.idx, x)
	if len(e.ts) == e.groupRows {
		e.flushGroup()
	}
	return e.err
}

// addIDs appends the rows of b, whose IDs are set, and returns how many
// it took: all of them, or those before the first refused (see addRow).
// A key is read only when its id is new to the row group, and checked
// only the first time (the same id, the same key), when its length is
// kept. The ids' dictionary indexes are read in a loop of their own, and
// the keys new to the row group are copied into its dictionary in another
// (owed until then, see pending), so that the cache misses of many rows
// overlap rather than stall the rows between.
func (e *pqEncoder) addIDs(b *Batch) (int, error) {
	n := b.Len()
	if n == 0 {
		return 0, nil
	}
	if top := int(slices.Max(b.IDs)); top >= len(e.byID) {
		old := len(e.byID)
		e.byID = slices.Grow(e.byID, top+1-old)[:top+1]
		clear(e.byID[old:])
	}
	defer e.settle(b)
	for start := 0; start < n; {
		if cap(e.ts) == 0 {
			e.ts = make([]int64, 0, e.groupRows)
			e.cost = make([]int32, 0, e.groupRows)
			e.idx = make([]int32, 0, e.groupRows)
		}
		end := min(n, start+e.groupRows-len(e.ts))
		ids := b.IDs[start:end]
		xs := slices.Grow(e.gather[:0], len(ids))[:len(ids)]
		e.gather = xs
		for j, id := range ids {
			xs[j] = e.byID[id].x
		}
		i := start
		for j, id := range ids {
			i = start + j
			t, cost := b.T[i], b.Cost[i]
			if err := checkTimeCost(t, cost); err != nil {
				return i, err
			}
			x := xs[j]
			if x == 0 {
				if s := &e.byID[id]; s.x == 0 { // new to the row group, unless earlier in b
					size := s.size - 1
					if size < 0 {
						key := b.Key(i)
						if err := checkKey(key); err != nil {
							return i, err
						}
						size = int32(len(key))
						s.size = size + 1
					}
					if len(e.ts) > 0 && e.dictLen+4+int(size) > e.dictMax {
						break // the dictionary is full: a new row group from row i
					}
					x = e.ndict + 1
					e.ndict++
					e.dictLen += 4 + int(size)
					e.pending = append(e.pending, int32(i))
					s.x = x
					e.idsUsed = append(e.idsUsed, id)
				} else {
					x = s.x
				}
			}
			e.ts = append(e.ts, t)
			e.cost = append(e.cost, int32(cost))
			e.idx = append(e.idx, x-1)
			i++
		}
		if i < end || len(e.ts) == e.groupRows {
			e.settle(b)
			e.flushGroup()
			if e.err != nil {
				return i, e.err
			}
		}
		start = i
	}
	return n, nil
}

// settle copies the keys the dictionary is owed, those of the pending
// rows of b, into it.
// The keys are found in one loop and copied in another, so that the
// cache misses of finding them overlap.
func (e *pqEncoder) settle(b *Batch) {
	if len(e.pending) == 0 {
		return
	}
	owed := e.owed[:0]
	for _, i := range e.pending {
		owed = append(owed, b.Key(int(i)))
	}
	for _, key := range owed {
		e.dict = binary.LittleEndian.AppendUint32(e.dict, uint32(len(key)))
		e.dict = append(e.dict, key...)
	}
	clear(owed) // keep no key alive
	e.owed, e.pending = owed[:0], e.pending[:0]
}

// insert adds key to the dictionary and returns its index.
func (e *pqEncoder) insert(key []byte) int32 {
	x := e.ndict
	e.ndict++
	e.dictLen += 4 + len(key)
	e.dict = binary.LittleEndian.AppendUint32(e.dict, uint32(len(key)))
	e.dict = append(e.dict, key...)
	return x
}

// lookup returns the dictionary index of key, adding it if new; -1 if it
// is new and does not fit in the dictionary of a row group that has rows.
func (e *pqEncoder) lookup(key []byte) (int32, error) {
	if x, ok := e.byKey[string(key)]; ok {
		return x, nil
	}
	if err := checkKey(key); err != nil {
		return 0, err
	}
	if len(e.ts) > 0 && e.dictLen+4+len(key) > e.dictMax {
		return -1, nil
	}
	x := e.insert(key)
	e.byKey[string(key)] = x
	return x, nil
}

// pqID is what the encoder keeps of an id, together so that a row whose
// id is new to the row group finds both with one cache miss.
type pqID struct {
	x    int32 // dictionary index + 1 in the row group; 0 while not in it
	size int32 // 1 + the length of the id's key, once checked; 0 before
}

// column is a column chunk being written.
type pqColumn struct {
	meta  format.ColumnMetaData
	start int64
	stats map[pqPageKind]int32
}

type pqPageKind struct {
	typ format.PageType
	enc format.Encoding
}

// encodePages encodes and compresses the pages of the current row group,
// in parallel: each page's bytes depend on its rows alone, so the file is
// the same as one page after another would write, and the flush of a row
// group, which holds up the whole pipeline (the generator has only a few
// batches of room ahead of it), takes a fraction of the time.
func (e *pqEncoder) encodePages(pages []pqPage) {
	workers := min(runtime.GOMAXPROCS(0), len(pages), 8)
	var next atomic.Int32
	var wg sync.WaitGroup
	for len(e.scratch) < workers {
		e.scratch = append(e.scratch, nil)
	}
	for w := range workers {
		raw := &e.scratch[w]
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= len(pages) {
					return
				}
				e.encodePage(&pages[i], raw)
			}
		})
	}
	wg.Wait()
}

// encodePage encodes one page into *raw, a worker's scratch, and
// compresses it (see encodePages).
func (e *pqEncoder) encodePage(p *pqPage, raw *[]byte) {
	var err error
	codec, data := &parquet.Zstd, *raw
	switch p.col {
	case pageTS:
		data, err = new(delta.BinaryPackedEncoding).EncodeInt64(data[:0], e.ts[p.lo:p.hi])
	case pageDict:
		codec = &pqDictZstd
	case pageKey:
		data, err = new(rle.DictionaryEncoding).EncodeInt32(data[:0], e.idx[p.lo:p.hi])
	case pageCost:
		data, err = new(delta.BinaryPackedEncoding).EncodeInt32(data[:0], e.cost[p.lo:p.hi])
	}
	if p.col == pageDict {
		data = e.dict
	} else {
		*raw = data
	}
	p.size = len(data)
	p.comp, p.err = codec.Encode(p.comp[:0], data)
	if err != nil {
		p.err = err
	}
}

// writePage writes one page of the column, encoded and compressed: size
// bytes uncompressed, comp compressed.
func (e *pqEncoder) writePage(c *pqColumn, h format.PageHeader, size int, comp []byte) {
	h.UncompressedPageSize = int32(size)
	h.CompressedPageSize = int32(len(comp))
	hb, err := thrift.Marshal(new(thrift.CompactProtocol), &h)
	if err != nil && e.err == nil {
		e.err = err
	}
	if h.Type != format.DictionaryPage && c.meta.DataPageOffset == 0 {
		c.meta.DataPageOffset = e.off
	}
	e.write(hb)
	e.write(comp)
	c.meta.TotalUncompressedSize += int64(len(hb) + size)
	c.meta.TotalCompressedSize += int64(len(hb) + len(comp))
	enc := format.Plain
	if d, ok := h.DataPageHeader.Get(); ok {
		enc = d.Encoding
	}
	c.stats[pqPageKind{h.Type, enc}]++
}

func dataPage(n int, enc format.Encoding) format.PageHeader {
	return format.PageHeader{Type: format.DataPage, DataPageHeader: thrift.New(format.DataPageHeader{
		NumValues: int32(n), Encoding: enc, DefinitionLevelEncoding: format.RLE, RepetitionLevelEncoding: format.RLE,
	})}
}

func (e *pqEncoder) newColumn(name string, typ format.Type, encs ...format.Encoding) *pqColumn {
	return &pqColumn{start: e.off, stats: map[pqPageKind]int32{}, meta: format.ColumnMetaData{
		Type: typ, Encoding: encs, PathInSchema: []string{name}, Codec: format.Zstd, NumValues: int64(len(e.ts)),
	}}
}

func (c *pqColumn) chunk() format.ColumnChunk {
	for _, k := range []pqPageKind{{format.DictionaryPage, format.Plain}, {format.DataPage, format.DeltaBinaryPacked}, {format.DataPage, format.RLEDictionary}} {
		if n := c.stats[k]; n > 0 {
			c.meta.EncodingStats = append(c.meta.EncodingStats, format.PageEncodingStats{PageType: k.typ, Encoding: k.enc, Count: n})
		}
	}
	return format.ColumnChunk{FileOffset: c.start, MetaData: c.meta}
}

// flushGroup writes the current row group, if it has rows.
func (e *pqEncoder) flushGroup() {
	n := len(e.ts)
	if n == 0 || e.err != nil {
		return
	}
	if e.off == 0 {
		e.write([]byte("PAR1"))
	}
	start := e.off
	// The pages, in the order of the file (ts, the key dictionary and
	// indexes, cost), encoded and compressed all together, then written.
	pages := e.pages[:0]
	add := func(col pageCol, lo, hi int) {
		if len(pages) < cap(pages) {
			pages = pages[:len(pages)+1]
		} else {
			pages = append(pages, pqPage{})
		}
		p := &pages[len(pages)-1]
		p.col, p.lo, p.hi, p.err = col, lo, hi, nil
	}
	for _, col := range []pageCol{pageTS, pageDict, pageKey, pageCost} {
		if col == pageDict {
			add(col, 0, 0)
			continue
		}
		for i := 0; i < n; i += e.pageRows {
			add(col, i, min(i+e.pageRows, n))
		}
	}
	e.pages = pages
	e.encodePages(pages)
	for i := range pages {
		if err := pages[i].err; err != nil && e.err == nil {
			e.err = err
		}
	}
	// writeCol writes the data pages of col, each in encoding enc.
	writeCol := func(c *pqColumn, col pageCol, enc format.Encoding) {
		for i := range pages {
			if p := &pages[i]; p.col == col {
				e.writePage(c, dataPage(p.hi-p.lo, enc), p.size, p.comp)
			}
		}
	}
	// ts: delta binary packed, min and max.
	ts := e.newColumn("ts", format.Int64, format.DeltaBinaryPacked)
	lo, hi := slices.Min(e.ts), slices.Max(e.ts)
	ts.meta.Statistics = format.Statistics{MinValue: binary.LittleEndian.AppendUint64(nil, uint64(lo)), MaxValue: binary.LittleEndian.AppendUint64(nil, uint64(hi))}
	writeCol(ts, pageTS, format.DeltaBinaryPacked)
	// key: the dictionary, then its indexes.
	key := e.newColumn("key", format.ByteArray, format.Plain, format.RLEDictionary)
	key.meta.DictionaryPageOffset = e.off
	for i := range pages {
		if p := &pages[i]; p.col == pageDict {
			e.writePage(key, format.PageHeader{Type: format.DictionaryPage, DictionaryPageHeader: thrift.New(format.DictionaryPageHeader{
				NumValues: e.ndict, Encoding: format.Plain,
			})}, p.size, p.comp)
		}
	}
	writeCol(key, pageKey, format.RLEDictionary)
	// cost: delta binary packed, min and max.
	cost := e.newColumn("cost", format.Int32, format.DeltaBinaryPacked)
	clo, chi := slices.Min(e.cost), slices.Max(e.cost)
	cost.meta.Statistics = format.Statistics{MinValue: binary.LittleEndian.AppendUint32(nil, uint32(clo)), MaxValue: binary.LittleEndian.AppendUint32(nil, uint32(chi))}
	writeCol(cost, pageCost, format.DeltaBinaryPacked)
	cols := []format.ColumnChunk{ts.chunk(), key.chunk(), cost.chunk()}
	var total int64
	for _, c := range cols {
		total += c.MetaData.TotalUncompressedSize
	}
	if len(e.groups) > math.MaxInt16 && e.err == nil {
		e.err = errors.New("traces: parquet writer: more than 32767 row groups")
	}
	e.groups = append(e.groups, format.RowGroup{
		Columns: cols, TotalByteSize: total, NumRows: int64(n), FileOffset: start,
		TotalCompressedSize: e.off - start, Ordinal: int16(len(e.groups)),
	})
	e.rows += int64(n)
	e.ts, e.cost, e.idx, e.dict, e.ndict, e.dictLen = e.ts[:0], e.cost[:0], e.idx[:0], e.dict[:0], 0, 0
	clear(e.byKey)
	for _, id := range e.idsUsed {
		e.byID[id].x = 0
	}
	e.idsUsed = e.idsUsed[:0]
}

// close writes the last row group and the footer.
func (e *pqEncoder) close() error {
	if e.off == 0 && e.err == nil {
		e.write([]byte("PAR1"))
	}
	e.flushGroup()
	schema, orders := pqSchema()
	md := format.FileMetaData{
		Version: 2, Schema: schema, NumRows: e.rows, RowGroups: e.groups,
		CreatedBy: "ratebench version (build )", ColumnOrders: orders, // what parquet.CreatedBy("ratebench", "", "") wrote
	}
	footer, err := thrift.Marshal(new(thrift.CompactProtocol), &md)
	if err != nil {
		return fmt.Errorf("traces: parquet writer: %v", err)
	}
	footer = binary.LittleEndian.AppendUint32(footer, uint32(len(footer)))
	e.write(append(footer, "PAR1"...))
	return e.err
}
