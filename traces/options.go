package traces

import (
	"fmt"
	"strings"
	"time"
)

// Options tunes how a trace is read. The zero value means the defaults, so
// that fields can be added without breaking callers.
type Options struct {
	// TSUnit is the unit of integer timestamps that carry no unit of their
	// own: integer ts in CSV and JSON lines, and a plain (not TIMESTAMP) INT64
	// ts column in Parquet. Zero means auto: the first timestamp decides,
	// by its magnitude (ts_unit.go). Decimal seconds, RFC 3339 times,
	// access log dates and Parquet TIMESTAMP columns ignore it.
	TSUnit time.Duration

	// Key says where the key comes from. For CSV, JSON lines and Parquet it
	// names the column (field) that holds it; "" means "key". It cannot be
	// the ts or cost column (see TS). For access logs it is one of
	//
	//	"" or "ip"  the client host, the first field
	//	"user"      the authenticated user (a line whose user is "-" is bad)
	//	"path"      the request path: the second word of the request line,
	//	            without its query string
	//	"ip+path"   host, a space, and path
	//
	// and the other logs take the same (ALB, CloudFront and HAProxy logs
	// have no user), or a field they name (see each reader).
	Key string

	// TS and Cost name the timestamp and cost columns of CSV and Parquet
	// traces (fields of JSON lines) as Key does the key's; "" means "ts"
	// and "cost". The three must differ. In JSON lines each is a dotted
	// path into nested objects: "request.remote_ip" is the field remote_ip
	// of the object in the field request (a field named with the dots
	// itself matches too), of at most 64 parts. Access logs take neither.
	TS, Cost string

	// TSFormat, when not "", is the layout of the timestamps of CSV, JSON
	// lines (a string ts) and FormatRegex traces, in place of the forms
	// they take by default: Go's reference layout ("02.01.2006 03:04 PM"),
	// or a strftime layout when it holds a '%' ("%d.%m.%Y %I:%M %p"). A
	// time without a zone is UTC. See ts_format.go. TSUnit does not apply
	// then; Parquet and the logs do not take it.
	TSFormat string

	// Pattern is the regular expression (Go's RE2 syntax) of FormatRegex:
	// its named groups ts, key and optionally cost (or the names TS, Key
	// and Cost give) take the request from each line. See RegexReader.
	Pattern string

	// Sep is the field separator of CSV (and TSV) traces, one ASCII byte:
	// see ParseSep. 0 means tab for a file Open reads whose name ends in
	// .tsv, else the first of comma, tab, semicolon and pipe that splits
	// the header into columns that include the ts and key columns.
	Sep byte

	// MultiSep, when not "", is a separator of two or more characters
	// (" | ", "::") in place of Sep: a CSV trace's fields (and header
	// names) are split at each occurrence of it, literally, left to right.
	// Nothing is quoted then: a '"' is part of a field like any other
	// character, and a record is one line. See SetSep.
	MultiSep string

	// Columns, when not nil, names the columns of a CSV trace that has no
	// header, in order; "" or "_" is a column to ignore. The first line is
	// then a record, and every record has len(Columns) fields. See
	// ParseColumns.
	Columns []string

	// SkipBad makes readers skip bad records (a line of the text formats, a
	// row of Parquet) instead of stopping at the first one; they count them
	// (see SkipCounter). Problems that make the rest of the file unreadable
	// (an I/O error, a truncated compressed stream, a bad CSV header, a
	// corrupt Parquet file) still stop the reader.
	SkipBad bool

	// MaxKey is the longest key in bytes; a longer key is a bad record.
	// Zero means DefaultMaxKey.
	MaxKey int

	// MaxLine is the longest line (a CSV record spanning lines counts as
	// one) of the text formats in bytes, without its line terminator; a
	// longer line is a bad record, refused as soon as it passes the limit,
	// so that a line that never ends (/dev/zero) fails after about MaxLine
	// bytes are read. It bounds the memory a reader uses. Zero means
	// DefaultMaxLine.
	MaxLine int

	// Cancel, when closed, stops the reader: Scan (or Open, for a reader
	// still sniffing the format or reading a header) returns at once, with
	// an error that wraps ErrInterrupted, even while a read waits for input
	// that does not come (a stalled pipe, a named pipe without a writer) or
	// SkipBad skips a run of bad records. Nil means never.
	Cancel <-chan struct{}

	// ShardIndex and ShardCount, when ShardCount > 0, make the reader of a
	// dataset read only the parts of shard ShardIndex of ShardCount
	// (Manifest.PartsOf). Any other trace is read whole.
	ShardIndex, ShardCount int

	// zstdMaxWindow bounds the window a zstd frame may ask for, and so the
	// memory of the decoder; 0 means defaultZstdMaxWindow. The fuzz tests
	// lower it.
	zstdMaxWindow uint64

	// How a CSV reader reads in parallel (csv_parallel.go), for the tests;
	// zero means the default. csvWorkers is the number of worker goroutines
	// (0: GOMAXPROCS; 1: none, the reader reads one record at a time),
	// csvChunk the bytes of a chunk, csvRead the most bytes one read asks for
	// (0: as many as the chunk has room for), csvAfter the records read one
	// at a time before the workers start (< 0: none).
	csvWorkers, csvChunk, csvRead, csvAfter int
}

// Defaults of the limits in Options.
const (
	DefaultMaxKey  = 4096
	DefaultMaxLine = 1 << 20
)

// MaxSkipExamples is the number of skipped records a SkipCounter keeps
// the errors of.
const MaxSkipExamples = 10

// SkipCounter is implemented by every reader that Open returns (and by the
// readers of this package): with Options.SkipBad it tells what was skipped.
type SkipCounter interface {
	// Skipped returns how many records were skipped as bad, and the first
	// ones (at most MaxSkipExamples = 10), in file order.
	Skipped() (n int64, first []*ParseError)
}

// tsUnit returns the integer timestamp multiplier in nanoseconds (0:
// auto), or an error for a negative unit.
func (o Options) tsUnit() (int64, error) {
	switch {
	case o.TSUnit == 0:
		return 0, nil
	case o.TSUnit < 0:
		return 0, fmt.Errorf("traces: invalid TSUnit %v: must be positive", o.TSUnit)
	}
	return int64(o.TSUnit), nil
}

// limits returns MaxKey and MaxLine with their defaults applied, or an error
// for negative limits.
func (o Options) limits() (maxKey, maxLine int, err error) {
	maxKey, maxLine = o.MaxKey, o.MaxLine
	if maxKey < 0 || maxLine < 0 {
		return 0, 0, fmt.Errorf("traces: invalid limits MaxKey %d, MaxLine %d: must not be negative", o.MaxKey, o.MaxLine)
	}
	if maxKey == 0 {
		maxKey = DefaultMaxKey
	}
	if maxLine == 0 {
		maxLine = DefaultMaxLine
	}
	return maxKey, maxLine, nil
}

// check validates the options that every reader uses.
func (o Options) check() error {
	if o.ShardCount < 0 || o.ShardCount > 0 && (o.ShardIndex < 0 || o.ShardIndex >= o.ShardCount) {
		return fmt.Errorf("shard %d of %d: want 0 <= index < count", o.ShardIndex, o.ShardCount)
	}
	if _, err := o.tsUnit(); err != nil {
		return err
	}
	if _, _, err := o.limits(); err != nil {
		return err
	}
	if _, err := o.layout(); err != nil {
		return err
	}
	return o.checkSep()
}

// layout compiles TSFormat (nil for none), refusing TSUnit beside it.
func (o Options) layout() (*tsLayout, error) {
	l, err := parseTSFormat(o.TSFormat)
	if l != nil && o.TSUnit != 0 {
		return nil, fmt.Errorf("traces: -ts-unit does not apply with -ts-format: the layout tells how to read the times")
	}
	return l, err
}

// ParseTSUnit parses the value of a -ts-unit flag: "ns", "us" (or "µs"),
// "ms" or "s"; "auto" (or "") is 0, auto-detection (see Options.TSUnit).
func ParseTSUnit(s string) (time.Duration, error) {
	switch strings.TrimSpace(s) {
	case "", "auto":
		return 0, nil
	case "ns":
		return time.Nanosecond, nil
	case "us", "µs", "μs":
		return time.Microsecond, nil
	case "ms":
		return time.Millisecond, nil
	case "s":
		return time.Second, nil
	}
	return 0, fmt.Errorf("unknown timestamp unit %q (want auto, ns, us, ms or s)", s)
}

// settings are Options checked and with their defaults filled in, as the
// column readers use them.
type settings struct {
	unit            int64 // 0: auto
	maxKey, maxLine int
	names           [3]string // of the ts, key and cost columns (colTS, ...)
	layout          *tsLayout // Options.TSFormat, or nil
}

// resolve checks o and fills in its defaults.
func (o Options) resolve() (settings, error) {
	unit, err := o.tsUnit()
	if err != nil {
		return settings{}, err
	}
	maxKey, maxLine, err := o.limits()
	if err != nil {
		return settings{}, err
	}
	names, err := o.columnNames()
	if err != nil {
		return settings{}, err
	}
	if err := o.checkSep(); err != nil {
		return settings{}, err
	}
	layout, err := o.layout()
	if err != nil {
		return settings{}, err
	}
	return settings{unit: unit, maxKey: maxKey, maxLine: maxLine, names: names, layout: layout}, nil
}
