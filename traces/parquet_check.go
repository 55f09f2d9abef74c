package traces

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// Defences against corrupt Parquet files. parquet-go trusts the sizes it
// reads from a file: a damaged footer or page header can make it allocate
// gigabytes (a Go out-of-memory crash cannot be recovered) before it notices
// anything wrong. So before parquet-go reads the footer, and before it reads
// the pages of a row group, the reader checks them here:
//
//   - the footer length must fit in the file, and the footer must be well
//     formed compact thrift whose every list and string fits in the bytes
//     left (so a list cannot claim two billion elements);
//   - each page header of the columns read must be well formed too, lie
//     inside its column chunk, and declare sane sizes: at most maxPageValues
//     values, no more than the row group has rows left, and an uncompressed
//     size of at most maxPageBytes and maxPageRatio times the compressed one.
//
// The limits are far above what Parquet writers produce (parquet-go,
// Arrow and parquet-mr write pages of about 1 MiB and 20,000 to 100,000
// values).

const (
	maxPageValues = 1 << 22
	maxPageBytes  = 1 << 28
	maxPageRatio  = 1024
	maxThriftNest = 64
)

var errThriftShort = errors.New("thrift data ends early")

// thriftSkipStruct walks the compact-protocol struct at the start of b and
// returns its length in bytes.
func thriftSkipStruct(b []byte) (int, error) {
	w := thriftWalker{b: b}
	if err := w.skipStruct(0); err != nil {
		return 0, err
	}
	return w.pos, nil
}

type thriftWalker struct {
	b   []byte
	pos int
}

func (w *thriftWalker) byte() (byte, error) {
	if w.pos >= len(w.b) {
		return 0, errThriftShort
	}
	c := w.b[w.pos]
	w.pos++
	return c, nil
}

func (w *thriftWalker) uvarint() (uint64, error) {
	v, n := binary.Uvarint(w.b[w.pos:])
	switch {
	case n == 0:
		return 0, errThriftShort
	case n < 0:
		return 0, errors.New("thrift varint overflows 64 bits")
	}
	w.pos += n
	return v, nil
}

func (w *thriftWalker) skipBytes(n uint64) error {
	if n > uint64(len(w.b)-w.pos) {
		return errThriftShort
	}
	w.pos += int(n)
	return nil
}

func (w *thriftWalker) skipStruct(depth int) error {
	if depth > maxThriftNest {
		return errors.New("thrift structs nest too deep")
	}
	for {
		h, err := w.byte()
		if err != nil {
			return err
		}
		if h == 0 { // stop
			return nil
		}
		typ := h & 0x0F
		if h>>4 == 0 { // long form: the field id follows
			if _, err := w.uvarint(); err != nil {
				return err
			}
		}
		if typ == 1 || typ == 2 { // bool fields carry their value in the type
			continue
		}
		if err := w.skipValue(typ, depth); err != nil {
			return err
		}
	}
}

func (w *thriftWalker) skipValue(typ byte, depth int) error {
	switch typ {
	case 1, 2, 3: // bool (in a list), i8
		return w.skipBytes(1)
	case 4, 5, 6: // i16, i32, i64
		_, err := w.uvarint()
		return err
	case 7: // double
		return w.skipBytes(8)
	case 8: // binary
		n, err := w.uvarint()
		if err != nil {
			return err
		}
		return w.skipBytes(n)
	case 9, 10: // list, set
		h, err := w.byte()
		if err != nil {
			return err
		}
		n, elem := uint64(h>>4), h&0x0F
		if n == 15 {
			if n, err = w.uvarint(); err != nil {
				return err
			}
		}
		return w.skipElems(n, elem, depth)
	case 11: // map
		n, err := w.uvarint()
		if err != nil || n == 0 {
			return err
		}
		kv, err := w.byte()
		if err != nil {
			return err
		}
		if n > uint64(len(w.b)-w.pos) {
			return errThriftShort
		}
		for ; n > 0; n-- {
			if err := w.skipValue(kv>>4, depth+1); err != nil {
				return err
			}
			if err := w.skipValue(kv&0x0F, depth+1); err != nil {
				return err
			}
		}
		return nil
	case 12:
		return w.skipStruct(depth + 1)
	}
	return fmt.Errorf("unknown thrift type %d", typ)
}

// skipElems skips n list elements, each at least one byte long.
func (w *thriftWalker) skipElems(n uint64, elem byte, depth int) error {
	if n > uint64(len(w.b)-w.pos) {
		return errThriftShort
	}
	for ; n > 0; n-- {
		if err := w.skipValue(elem, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// checkFooter checks the magic bytes, the footer length and the footer's
// thrift structure before parquet-go decodes it.
func checkFooter(r io.ReaderAt, size int64) error {
	const magic = "PAR1"
	if size < 12 {
		return fmt.Errorf("%d bytes is too short", size)
	}
	var head [4]byte
	if _, err := r.ReadAt(head[:], 0); err != nil {
		return fmt.Errorf("reading the header: %w", err)
	}
	var tail [8]byte
	if _, err := r.ReadAt(tail[:], size-8); err != nil {
		return fmt.Errorf("reading the footer: %w", err)
	}
	if string(head[:]) != magic {
		return fmt.Errorf("no %s magic at the start (found %q)", magic, head[:])
	}
	if string(tail[4:]) != magic {
		return fmt.Errorf("no %s magic at the end (found %q)", magic, tail[4:])
	}
	n := int64(binary.LittleEndian.Uint32(tail[:4]))
	if n > size-12 {
		return fmt.Errorf("footer of %d bytes does not fit in a file of %d bytes", n, size)
	}
	footer := make([]byte, n)
	if _, err := r.ReadAt(footer, size-8-n); err != nil {
		return fmt.Errorf("reading the footer: %w", err)
	}
	if _, err := thriftSkipStruct(footer); err != nil {
		return fmt.Errorf("corrupt footer: %w", err)
	}
	return nil
}

// pageChecker checks the page headers of column chunks.
type pageChecker struct {
	r     io.ReaderAt
	buf   []byte
	proto thrift.CompactProtocol
}

// chunkStart returns the offset of a column chunk's first page.
func chunkStart(m *format.ColumnMetaData) int64 {
	start := m.DataPageOffset
	if m.DictionaryPageOffset > 0 && m.DictionaryPageOffset < start {
		start = m.DictionaryPageOffset
	}
	return start
}

// check walks the page headers of the column chunk described by m (whose
// bounds checkChunks has checked) and verifies that its data pages hold
// exactly rows values.
func (c *pageChecker) check(m *format.ColumnMetaData, rows int64) error {
	off := chunkStart(m)
	end := off + m.TotalCompressedSize
	var values int64
	for off < end && values < rows {
		var h format.PageHeader
		hlen, err := c.readHeader(off, end, &h)
		if err != nil {
			return fmt.Errorf("corrupt page header at offset %d: %w", off, err)
		}
		data := int64(h.CompressedPageSize)
		switch {
		case h.CompressedPageSize < 0 || data > end-off-int64(hlen):
			return fmt.Errorf("page at offset %d of %d bytes overruns its column chunk", off, data)
		case h.UncompressedPageSize < 0 || h.UncompressedPageSize > maxPageBytes ||
			int64(h.UncompressedPageSize) > max(data*maxPageRatio, 1<<20):
			return fmt.Errorf("page at offset %d claims %d bytes uncompressed from %d", off, h.UncompressedPageSize, data)
		}
		var n int32
		switch h.Type {
		case format.DataPage:
			if !h.DataPageHeader.Valid {
				return fmt.Errorf("data page at offset %d has no data page header", off)
			}
			n = h.DataPageHeader.V.NumValues
		case format.DataPageV2:
			v := &h.DataPageHeaderV2.V
			if !h.DataPageHeaderV2.Valid {
				return fmt.Errorf("data page at offset %d has no data page header", off)
			}
			n = v.NumValues
			if v.NumNulls < 0 || v.NumNulls > n || v.NumRows < 0 || v.NumRows > n ||
				v.DefinitionLevelsByteLength < 0 || v.RepetitionLevelsByteLength < 0 ||
				int64(v.DefinitionLevelsByteLength)+int64(v.RepetitionLevelsByteLength) > data {
				return fmt.Errorf("data page at offset %d has inconsistent counts", off)
			}
		case format.DictionaryPage:
			if !h.DictionaryPageHeader.Valid {
				return fmt.Errorf("dictionary page at offset %d has no dictionary page header", off)
			}
			if d := h.DictionaryPageHeader.V.NumValues; d < 0 || d > maxPageValues || int64(d) > rows {
				return fmt.Errorf("dictionary page at offset %d claims %d values", off, d)
			}
		}
		if n < 0 || n > maxPageValues || int64(n) > rows-values {
			return fmt.Errorf("data page at offset %d claims %d values, %d rows are left", off, n, rows-values)
		}
		values += int64(n)
		off += int64(hlen) + data
	}
	if values != rows {
		return fmt.Errorf("column chunk holds %d values for %d rows", values, rows)
	}
	return nil
}

// readHeader reads and decodes the page header at off, reading a window
// that grows until the header fits. It returns the header's length.
func (c *pageChecker) readHeader(off, end int64, h *format.PageHeader) (int, error) {
	for window := int64(4 << 10); ; window *= 4 {
		n := min(window, end-off)
		if int64(cap(c.buf)) < n {
			c.buf = make([]byte, n)
		}
		b := c.buf[:n]
		if k, err := c.r.ReadAt(b, off); k < len(b) {
			if err == nil {
				err = io.ErrUnexpectedEOF
			}
			return 0, err
		}
		hlen, err := thriftSkipStruct(b)
		if err == errThriftShort && n < end-off && window < 16<<20 {
			continue
		}
		if err != nil {
			return 0, err
		}
		if err := thrift.Unmarshal(&c.proto, b[:hlen], h); err != nil {
			return 0, err
		}
		return hlen, nil
	}
}
