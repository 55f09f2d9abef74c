package traces

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/encoding"
	"github.com/parquet-go/parquet-go/format"
)

// ParquetReader reads a Parquet trace.
//
// The model: top-level, non-repeated columns
//
//   - "ts" INT64: a TIMESTAMP logical type in NANOS, MICROS or MILLIS (or
//     the legacy TIMESTAMP_MILLIS / TIMESTAMP_MICROS converted types),
//     converted to nanoseconds exactly; or a plain INT64 (signed or
//     unsigned), a count of Options.TSUnit. It must not be negative or null
//     and must fit int64 nanoseconds.
//   - "key" (or the column named by Options.Key) BYTE_ARRAY, with or without
//     the STRING (UTF8) annotation; it must not be null or empty, must be
//     valid UTF-8 without NUL bytes and at most Options.MaxKey bytes.
//   - "cost", optional, INT32 or INT64 (signed or unsigned); a missing column
//     or a null value means 1, otherwise it must be positive.
//
// Options.TS and Options.Cost name the ts and cost columns as Options.Key
// does the key column.
//
// Other columns are ignored and never read. Row groups are read column by
// column a page at a time; values are decoded into reused buffers of 1024
// (the pages of times and costs without nulls are read as their values)
// and the key is copied into a reused buffer, so reading allocates per page,
// not per row. Read in runs split by key (Partition, parquet_partition.go),
// a dictionary-encoded key is handed over as its entry, placed once per
// entry, and not copied. Errors are *ParseError naming the 1-based row ("t.parquet:
// row 12: cost 0 is not positive"), or the file alone for problems with the
// schema or a file that is truncated or not Parquet. Panics inside
// parquet-go on corrupt input are recovered and reported as errors. With
// Options.SkipBad a bad row is skipped and counted (see Skipped); problems
// with the file itself (its footer, schema, pages) still stop the reader.
type ParquetReader struct {
	name   string
	file   *parquet.File
	closer io.Closer

	clock       tsClock // nanoseconds per ts unit (0 until auto decides it)
	tsUnitName  string
	tsUnsign    bool // the ts column holds unsigned integers
	costKind    parquet.Kind
	costUnsign  bool
	hasCost     bool
	cols        [3]int // leaf indexes of ts, key, cost
	rowGroups   []parquet.RowGroup
	rg          int   // next row group
	left        int64 // rows left in the current row group
	ts, key, co pqCursor
	row         int64 // 1-based number of the current row
	names       [3]string
	maxKey      int
	bad         badRecords
	keyBuf      []byte
	keyRef      int32   // the current key's index in the key column's dictionary, or -1
	runs        *pqRuns // when reading in runs (Partition), else nil
	checker     pageChecker
	req         Request
	err         error
	done        bool
}

// pqCursor walks the values of one column chunk page by page.
type pqCursor struct {
	pages parquet.Pages
	page  parquet.Page
	vr    parquet.ValueReader
	buf   []parquet.Value
	i, n  int

	// The key column's dictionary pages without nulls are read as their
	// indexes into the dictionary (nextKey), not as values.
	keyed   bool    // the cursor reads keys (nextKey)
	idx     []int32 // a dictionary page's indexes; nil on other pages
	dict    parquet.Dictionary
	keys    *dictKeys // dict's values, copied: a run may hold them past the row group (NextRun)
	fine    []bool    // per entry: its key was found without problems (keyProblem)
	dictGen uint64    // counts the dictionaries read, from 1

	// The pages of another column without nulls, of the kind want (Int64
	// or Int32; 0: none), are read as their values in i64 or i32 (the
	// other nil), not through Values: one is the value next returns then.
	want encoding.Kind
	i64  []int64
	i32  []int32
	one  parquet.Value
}

// pqBatch is the number of values decoded at a time per column.
const pqBatch = 1024

var errShortColumn = errors.New("column has fewer values than the row group has rows")

// next returns the next value of the column.
func (c *pqCursor) next() (*parquet.Value, error) {
	for stalls := 0; c.i >= c.n; {
		c.i64, c.i32 = nil, nil
		if c.vr == nil {
			if c.page != nil {
				parquet.Release(c.page)
				c.page = nil
			}
			p, err := c.pages.ReadPage()
			if err == io.EOF {
				return nil, errShortColumn
			}
			if err != nil {
				return nil, err
			}
			c.page, c.vr = p, p.Values()
			if c.keyed && c.indexed(p) {
				c.vr = nil
				return nil, nil
			}
			if c.typed(p) {
				c.vr = nil
				continue
			}
		}
		n, err := c.vr.ReadValues(c.buf)
		c.i, c.n = 0, n
		switch {
		case err == io.EOF:
			c.vr = nil
		case err != nil:
			return nil, err
		case n == 0:
			if stalls++; stalls > 100 {
				return nil, errors.New("page reader makes no progress")
			}
		}
	}
	var v *parquet.Value
	switch {
	case c.i64 != nil:
		c.one, v = parquet.Int64Value(c.i64[c.i]), &c.one
	case c.i32 != nil:
		c.one, v = parquet.Int32Value(c.i32[c.i]), &c.one
	default:
		v = &c.buf[c.i]
	}
	c.i++
	return v, nil
}

// typed reports whether page p is read as its values (a page of the kind
// the cursor wants, without nulls nor dictionary), and if so sets the
// cursor to them.
func (c *pqCursor) typed(p parquet.Page) bool {
	if c.want == 0 || p.Dictionary() != nil || p.NumNulls() != 0 {
		return false
	}
	vals := p.Data()
	if vals.Kind() != c.want {
		return false
	}
	switch c.want {
	case encoding.Int64:
		c.i64 = vals.Int64()
		c.n = len(c.i64)
	case encoding.Int32:
		c.i32 = vals.Int32()
		c.n = len(c.i32)
	default:
		return false
	}
	if int64(c.n) != p.NumValues() {
		c.i64, c.i32, c.n = nil, nil, 0
		return false
	}
	c.i = 0
	return true
}

// indexed reports whether page p is read by its dictionary indexes (a key
// page of a dictionary and no nulls), and if so sets the cursor to them.
func (c *pqCursor) indexed(p parquet.Page) bool {
	d := p.Dictionary()
	if d == nil || p.NumNulls() != 0 {
		return false
	}
	vals := p.Data()
	if vals.Kind() != encoding.Int32 || int64(len(vals.Int32())) != p.NumValues() {
		return false
	}
	if d != c.dict {
		dv := d.Page().Data()
		if dv.Kind() != encoding.ByteArray {
			return false
		}
		data, offsets := dv.ByteArray()
		if len(offsets) != d.Len()+1 {
			return false
		}
		for i := range d.Len() {
			if lo, hi := offsets[i], offsets[i+1]; lo > hi || int(hi) > len(data) {
				return false
			}
		}
		c.keys = &dictKeys{data: bytes.Clone(data), off: slices.Clone(offsets)}
		c.fine = append(c.fine[:0], make([]bool, d.Len())...)
		c.dict = d
		c.dictGen++
	}
	c.idx, c.i, c.n = vals.Int32(), 0, int(p.NumValues())
	return true
}

// nextKey returns the next key of the column, and, when it comes from a
// dictionary page, its index there (-1 otherwise); v is its value when it
// does not.
func (c *pqCursor) nextKey() (key []byte, ref int32, v *parquet.Value, err error) {
	if c.idx != nil && c.i < c.n {
		ref = c.idx[c.i]
		c.i++
		if ref < 0 || int(ref) >= c.keys.len() {
			return nil, -1, nil, fmt.Errorf("dictionary index %d out of range [0, %d)", ref, c.keys.len())
		}
		return c.keys.at(ref), ref, nil, nil
	}
	c.idx = nil
	if v, err = c.next(); err != nil {
		return nil, -1, nil, err
	}
	if v == nil { // next moved to a dictionary page
		return c.nextKey()
	}
	return nil, -1, v, nil
}

func (c *pqCursor) open(chunk parquet.ColumnChunk, rows int64) {
	c.pages = chunk.Pages()
	if n := int(min(rows, pqBatch)); len(c.buf) < n {
		c.buf = make([]parquet.Value, n)
	}
	c.page, c.vr, c.i, c.n = nil, nil, 0, 0
	c.i64, c.i32 = nil, nil
}

func (c *pqCursor) close() {
	c.idx, c.dict, c.keys, c.fine = nil, nil, nil, c.fine[:0]
	c.i64, c.i32 = nil, nil
	if c.page != nil {
		parquet.Release(c.page)
		c.page = nil
	}
	c.vr = nil
	if c.pages != nil {
		c.pages.Close()
		c.pages = nil
	}
}

// FormatParquet is an Apache Parquet file with columns ts, key and
// optionally cost.
const FormatParquet Format = "parquet"

func init() {
	register(&formatSpec{format: FormatParquet, aliases: []string{"pq"}, rank: 20, exts: []string{".parquet", ".pq"}, kind: "Parquet",
		openAt: func(r io.ReaderAt, size int64, name string, opt Options, closer io.Closer) (Reader, error) {
			return asReader(newParquetReader(r, size, name, opt, closer))
		},
		openFolder: openDatasetFolder, // a folder of Parquet parts
		writer:     func(w io.Writer, closer io.Closer, path string) Writer { return newParquetWriter(w, closer) },
		refuseCreate: func(path string) error {
			if ext := compressionExt(path); ext != "" {
				return fmt.Errorf("%s: cannot write compressed Parquet: Parquet compresses its pages (zstd) and needs random access; drop the %s extension", path, ext)
			}
			return nil
		},
		sniff: sniffer{magic: "PAR1"},
	})
}

func (*ParquetReader) traceFormat() Format { return FormatParquet }

// NewParquetReader returns a reader of the Parquet trace in r, which holds
// size bytes. It reads the footer and checks the schema now. name is the
// file name used in errors. Close does not close r.
func NewParquetReader(r io.ReaderAt, size int64, name string, opt Options) (*ParquetReader, error) {
	return newParquetReader(r, size, name, opt, nil)
}

func newParquetReader(r io.ReaderAt, size int64, name string, opt Options, closer io.Closer) (p *ParquetReader, err error) {
	st, err := opt.resolve()
	if err == nil {
		err = opt.refuseColumns("Parquet", true)
	}
	if err == nil && st.layout != nil {
		err = fmt.Errorf("traces: -ts-format does not apply to Parquet, whose times are integers")
	}
	if err != nil {
		return nil, err
	}
	unit := st.unit
	p = &ParquetReader{name: name, closer: closer, names: st.names, maxKey: st.maxKey, bad: badRecords{skip: opt.SkipBad, cancel: opt.Cancel}, keyRef: -1}
	p.key.keyed = true
	defer func() {
		if v := recover(); v != nil {
			p, err = nil, p.fileErr(fmt.Sprintf("corrupt Parquet file: %v", v))
		}
	}()
	if err := checkFooter(r, size); err != nil {
		return nil, p.fileErr("not a valid Parquet file (truncated?): " + err.Error())
	}
	f, err := parquet.OpenFile(r, size, parquet.SkipBloomFilters(true), parquet.SkipPageIndex(true),
		parquet.ReadBufferSize(64<<10))
	if err != nil {
		return nil, p.fileErr("not a valid Parquet file (truncated?): " + err.Error())
	}
	p.file = f
	p.checker.r = r
	if err := p.checkSchema(unit, opt.Cost == ""); err != nil {
		return nil, err
	}
	p.ts.want = encoding.Int64
	if p.hasCost {
		p.co.want = encoding.Int64
		if p.costKind == parquet.Int32 {
			p.co.want = encoding.Int32
		}
	}
	if err := p.checkChunks(size); err != nil {
		return nil, err
	}
	p.rowGroups = f.RowGroups()
	return p, nil
}

func (p *ParquetReader) fileErr(msg string) error {
	return &ParseError{Pos: Position{File: p.name}, Msg: msg}
}

func (p *ParquetReader) rowErr(msg string) error {
	return &ParseError{Pos: Position{File: p.name, Row: p.row}, Msg: msg}
}

// topLevel returns the schema elements of the root's children by name,
// in order.
func topLevel(schema []format.SchemaElement) (names []string, elems map[string]*format.SchemaElement, ok bool) {
	if len(schema) == 0 {
		return nil, nil, false
	}
	elems = make(map[string]*format.SchemaElement)
	i := 1
	// skip advances i past the subtree at i.
	var skip func(depth int) bool
	skip = func(depth int) bool {
		if i >= len(schema) || depth > 100 {
			return false
		}
		n := int(schema[i].NumChildren.V)
		i++
		for ; n > 0; n-- {
			if !skip(depth + 1) {
				return false
			}
		}
		return true
	}
	for n := int(schema[0].NumChildren.V); n > 0; n-- {
		if i >= len(schema) {
			return nil, nil, false
		}
		e := &schema[i]
		names = append(names, e.Name)
		if _, dup := elems[e.Name]; !dup {
			elems[e.Name] = e
		}
		if !skip(0) {
			return nil, nil, false
		}
	}
	return names, elems, true
}

// checkSchema finds the ts, key and cost columns and checks their types;
// the cost column may be missing when optCost.
func (p *ParquetReader) checkSchema(unit int64, optCost bool) error {
	names, elems, ok := topLevel(p.file.Metadata().Schema)
	if !ok {
		return p.fileErr("corrupt Parquet schema")
	}
	root := p.file.Root()
	find := func(name string, want format.Type, wantName string, optional bool) (*format.SchemaElement, int, error) {
		e := elems[name]
		if e == nil {
			if optional {
				return nil, -1, nil
			}
			return nil, 0, p.fileErr(fmt.Sprintf("no %q column (columns: %s)", name, quoteList(names)))
		}
		col := root.Column(name)
		switch {
		case col == nil:
			return nil, 0, p.fileErr(fmt.Sprintf("corrupt Parquet schema for column %q", name))
		case !e.Type.Valid || !col.Leaf():
			return nil, 0, p.fileErr(fmt.Sprintf("column %q is a group, want %s", name, wantName))
		case e.RepetitionType.Valid && e.RepetitionType.V == format.Repeated:
			return nil, 0, p.fileErr(fmt.Sprintf("column %q is repeated, want one value a row", name))
		}
		if want != -1 && e.Type.V != want {
			return nil, 0, p.fileErr(fmt.Sprintf("column %q is %s, want %s", name, e.Type.V, wantName))
		}
		return e, col.Index(), nil
	}

	ts, tsCol, err := find(p.names[colTS], format.Int64, "INT64", false)
	if err != nil {
		return err
	}
	p.clock, p.tsUnitName, p.tsUnsign = newTSClock(unit), "", unsignedInt(ts)
	if lt, ok := ts.LogicalType.Value.(*format.TimestampType); ok {
		switch lt.Unit.Value.(type) {
		case *format.NanoSeconds:
			p.clock, p.tsUnitName = tsClock{unit: 1, how: unitFile}, "nanoseconds"
		case *format.MicroSeconds:
			p.clock, p.tsUnitName = tsClock{unit: 1e3, how: unitFile}, "microseconds"
		case *format.MilliSeconds:
			p.clock, p.tsUnitName = tsClock{unit: 1e6, how: unitFile}, "milliseconds"
		default:
			return p.fileErr(fmt.Sprintf("column %q has an unknown TIMESTAMP unit %s", p.names[colTS], &lt.Unit))
		}
	} else if ts.LogicalType.Value == nil && ts.ConvertedType.Valid {
		switch ts.ConvertedType.V {
		case deprecated.TimestampMillis:
			p.clock, p.tsUnitName = tsClock{unit: 1e6, how: unitFile}, "milliseconds"
		case deprecated.TimestampMicros:
			p.clock, p.tsUnitName = tsClock{unit: 1e3, how: unitFile}, "microseconds"
		}
	}
	_, keyCol, err := find(p.names[colKey], format.ByteArray, "BYTE_ARRAY", false)
	if err != nil {
		return err
	}
	cost, costCol, err := find(p.names[colCost], -1, "INT32 or INT64", optCost)
	if err != nil {
		return err
	}
	p.cols = [3]int{tsCol, keyCol, costCol}
	if cost != nil {
		switch cost.Type.V {
		case format.Int32:
			p.costKind = parquet.Int32
		case format.Int64:
			p.costKind = parquet.Int64
		default:
			return p.fileErr(fmt.Sprintf("column %q is %s, want INT32 or INT64", p.names[colCost], cost.Type.V))
		}
		p.costUnsign = unsignedInt(cost)
		p.hasCost = true
	}
	// parquet-go derives the type it decodes with from the logical type;
	// make sure it agrees with the physical type we checked.
	for _, c := range []struct {
		name string
		col  int
		kind parquet.Kind
	}{{p.names[colTS], tsCol, parquet.Int64}, {p.names[colKey], keyCol, parquet.ByteArray}, {p.names[colCost], costCol, p.costKind}} {
		if c.col < 0 {
			continue
		}
		if got := leafKind(root, c.col); got != c.kind {
			return p.fileErr(fmt.Sprintf("column %q has a logical type that does not fit its physical type %s", c.name, c.kind))
		}
	}
	return nil
}

// unsignedInt reports whether an integer column holds unsigned integers
// (the INT logical type, unsigned, or the legacy UINT_* converted types).
func unsignedInt(e *format.SchemaElement) bool {
	if it, ok := e.LogicalType.Value.(*format.IntType); ok {
		return !it.IsSigned
	}
	if e.LogicalType.Value == nil && e.ConvertedType.Valid {
		switch e.ConvertedType.V {
		case deprecated.Uint8, deprecated.Uint16, deprecated.Uint32, deprecated.Uint64:
			return true
		}
	}
	return false
}

// leafKind returns the kind parquet-go decodes a leaf column with.
func leafKind(root *parquet.Column, index int) parquet.Kind {
	for _, c := range root.Columns() {
		if c.Leaf() && c.Index() == index {
			return c.Type().Kind()
		}
	}
	return -1
}

// checkChunks rejects column chunks that point outside the file, before
// parquet-go sizes buffers from them.
func (p *ParquetReader) checkChunks(size int64) error {
	md := p.file.Metadata()
	var total int64
	for g := range md.RowGroups {
		rg := &md.RowGroups[g]
		if rg.NumRows < 0 {
			return p.fileErr(fmt.Sprintf("row group %d has %d rows", g, rg.NumRows))
		}
		total += rg.NumRows
		for _, col := range p.cols {
			if col < 0 {
				continue
			}
			if col >= len(rg.Columns) {
				return p.fileErr(fmt.Sprintf("row group %d lacks column chunk %d", g, col))
			}
			m := &rg.Columns[col].MetaData
			if start := chunkStart(m); start < 4 || m.TotalCompressedSize < 0 || m.TotalCompressedSize > size-start {
				return p.fileErr(fmt.Sprintf("row group %d: column chunk %d lies outside the file (truncated?)", g, col))
			}
		}
	}
	if total != md.NumRows {
		return p.fileErr(fmt.Sprintf("row groups hold %d rows, footer says %d", total, md.NumRows))
	}
	return nil
}

// NumRows returns the number of requests in the trace, from the footer.
func (p *ParquetReader) NumRows() int64 { return p.file.NumRows() }

// Scan advances to the next request; see Reader.
func (p *ParquetReader) Scan() (ok bool) {
	if p.done {
		return false
	}
	defer func() {
		if v := recover(); v != nil {
			p.err = p.rowErr(fmt.Sprintf("corrupt Parquet file: %v", v))
			p.finish()
			ok = false
		}
	}()
	for {
		for p.left == 0 {
			p.closeGroup()
			if p.rg >= len(p.rowGroups) {
				p.finish()
				return false
			}
			g := p.rowGroups[p.rg]
			md := &p.file.Metadata().RowGroups[p.rg]
			p.rg++
			p.left = g.NumRows()
			for i, col := range p.cols {
				if col < 0 {
					continue
				}
				if err := p.checker.check(&md.Columns[col].MetaData, p.left); err != nil {
					p.row++
					return p.failMsg(fmt.Sprintf("column %q: %v", p.names[i], err))
				}
			}
			chunks := g.ColumnChunks()
			p.ts.open(chunks[p.cols[0]], p.left)
			p.key.open(chunks[p.cols[1]], p.left)
			if p.hasCost {
				p.co.open(chunks[p.cols[2]], p.left)
			}
		}
		p.left--
		p.row++
		msg, err := p.readRow()
		if err != nil {
			p.err = err
			p.finish()
			return false
		}
		if msg == "" {
			return true
		}
		if err, skip := p.bad.add(Position{File: p.name, Row: p.row}, msg); !skip {
			p.err = err
			p.finish()
			return false
		}
	}
}

// readRow reads the values of the current row from every column, then
// checks them. It returns what is wrong with the row, or an error when the
// columns cannot be read.
func (p *ParquetReader) readRow() (string, error) {
	tv, err := p.ts.next()
	if err != nil {
		return "", p.readErr(fmt.Sprintf("column %q", p.names[colTS]), err)
	}
	k, ref, kv, err := p.key.nextKey()
	if err != nil {
		return "", p.readErr(fmt.Sprintf("column %q", p.names[colKey]), err)
	}
	var cv *parquet.Value
	if p.hasCost {
		if cv, err = p.co.next(); err != nil {
			return "", p.readErr(fmt.Sprintf("column %q", p.names[colCost]), err)
		}
	}

	if tv.IsNull() {
		return "ts is null", nil
	}
	raw := tv.Int64()
	switch {
	case raw < 0 && p.tsUnsign: // past 2^63 - 1
		return fmt.Sprintf("ts %d%s overflows int64 nanoseconds", uint64(raw), p.unitSuffix()), nil
	case raw < 0:
		return fmt.Sprintf("ts %d%s is negative", raw, p.unitSuffix()), nil
	}
	if p.clock.unit == 0 {
		p.clock.unit = autoUnit(raw)
	}
	ts, ok := mulUnit(raw, p.clock.unit)
	if !ok {
		return fmt.Sprintf("ts %d%s overflows int64 nanoseconds", raw, p.unitSuffix()) + p.clock.overflowHint(), nil
	}

	if kv != nil {
		if kv.IsNull() {
			return "key is null", nil
		}
		k = kv.ByteArray()
	}
	if ref < 0 || !p.key.fine[ref] { // a dictionary's entry is checked once
		if msg := keyProblem(k, p.maxKey); msg != "" {
			return msg, nil
		}
		if ref >= 0 {
			p.key.fine[ref] = true
		}
	}
	p.keyRef = ref

	cost := int64(1)
	if cv != nil && !cv.IsNull() {
		switch {
		case p.costKind == parquet.Int32 && p.costUnsign:
			cost = int64(uint32(cv.Int32()))
		case p.costKind == parquet.Int32:
			cost = int64(cv.Int32())
		case p.costUnsign && cv.Int64() < 0:
			return fmt.Sprintf("cost %d exceeds the largest cost, %d", uint64(cv.Int64()), MaxCost), nil
		default:
			cost = cv.Int64()
		}
		if cost < 1 {
			return fmt.Sprintf("cost %d is not positive", cost), nil
		}
		if cost > MaxCost {
			return fmt.Sprintf("cost %d exceeds the largest cost, %d", cost, MaxCost), nil
		}
	}
	p.keyBuf = append(p.keyBuf[:0], k...)
	p.req = Request{T: ts, Key: p.keyBuf, Cost: cost}
	return "", nil
}

func (p *ParquetReader) unitSuffix() string {
	if p.tsUnitName == "" {
		return ""
	}
	return " " + p.tsUnitName
}

func (p *ParquetReader) failMsg(msg string) bool {
	p.err = p.rowErr(msg)
	p.finish()
	return false
}

func (p *ParquetReader) readErr(what string, err error) error {
	return p.rowErr(fmt.Sprintf("reading %s: %v", what, err))
}

func (p *ParquetReader) closeGroup() {
	p.ts.close()
	p.key.close()
	p.co.close()
}

func (p *ParquetReader) finish() {
	p.done = true
	func() {
		defer func() { _ = recover() }()
		p.closeGroup()
	}()
}

// KeyRef returns where the current request's key is in the key column's
// dictionary: dict numbers the dictionaries read so far (from 1: one per
// row group whose key column is dictionary encoded) and index is the
// key's entry in it. ok is false when the key was not read from a
// dictionary. Within one dictionary an index always names the same key, so
// a consumer may look a key up once per entry.
func (p *ParquetReader) KeyRef() (dict uint64, index int32, ok bool) {
	if p.keyRef < 0 {
		return 0, 0, false
	}
	return p.key.dictGen, p.keyRef, true
}

// Request returns the current request; its Key is valid until the next Scan.
func (p *ParquetReader) Request() Request { return p.req }

func (p *ParquetReader) interrupted() bool { return p.bad.interrupted() }

// Pos returns the file and the 1-based row of the current request.
func (p *ParquetReader) Pos() Position { return Position{File: p.name, Row: p.row} }

// Err returns the first error, nil at a clean end of the trace.
func (p *ParquetReader) Err() error { return p.err }

// Skipped returns how many rows were skipped as bad (with Options.SkipBad),
// and the first ones (at most MaxSkipExamples), in file order.
func (p *ParquetReader) Skipped() (n int64, first []*ParseError) { return p.bad.skipped() }

// Close releases the pages being read and closes the file if the reader
// was made by Open; a reader made by NewParquetReader leaves r alone.
func (p *ParquetReader) Close() error {
	if !p.done {
		p.finish()
	}
	if p.closer == nil {
		return nil
	}
	err := p.closer.Close()
	p.closer = nil
	return err
}
