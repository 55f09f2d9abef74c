package traces

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/parquet-go/parquet-go"
)

// writeParquetRows writes rows of any struct type with parquet-go directly,
// to make files with other schemas than ParquetWriter's.
func writeParquetRows[T any](t testing.TB, rows []T, opts ...parquet.WriterOption) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[T](&buf, opts...)
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

type pqPlain struct {
	TS  int64  `parquet:"ts"`
	Key string `parquet:"key"`
}

type pqNanos struct {
	Key   []byte `parquet:"key,string"`
	Other string `parquet:"other"`
	TS    int64  `parquet:"ts,timestamp(nanosecond)"`
}

type pqMillis struct {
	TS   int64  `parquet:"ts,timestamp(millisecond:local)"`
	Key  string `parquet:"key,dict"`
	Cost int32  `parquet:"cost"`
}

type pqMicros struct {
	TS   int64  `parquet:"ts,timestamp(microsecond)"`
	Key  []byte `parquet:"key"`
	Cost *int64 `parquet:"cost,optional"`
}

type pqUnsignedCost struct {
	TS   int64  `parquet:"ts"`
	Key  string `parquet:"key"`
	Cost uint32 `parquet:"cost"`
}

type pqUnsignedTS struct {
	TS  uint64 `parquet:"ts"`
	Key string `parquet:"key"`
}

type pqOptional struct {
	TS  *int64  `parquet:"ts,optional"`
	Key *string `parquet:"key,optional"`
}

func ptr[T any](v T) *T { return &v }

func TestParquetSchemas(t *testing.T) {
	tests := []struct {
		name string
		data []byte
		unit time.Duration
		want []Request
	}{
		{"plain int64 ts, no cost", writeParquetRows(t, []pqPlain{{5, "a"}, {6, "b"}}), 0,
			[]Request{{5, []byte("a"), 1}, {6, []byte("b"), 1}}},
		{"plain int64 ts with unit", writeParquetRows(t, []pqPlain{{5, "a"}}), time.Millisecond,
			[]Request{{5_000_000, []byte("a"), 1}}},
		{"timestamp nanos ignores unit, extra column", writeParquetRows(t, []pqNanos{{[]byte("a"), "x", 7}}), time.Second,
			[]Request{{7, []byte("a"), 1}}},
		{"timestamp millis, int32 cost, dict key", writeParquetRows(t, []pqMillis{{1700000000123, "a", 3}, {1, "a", 1}}), 0,
			[]Request{{1700000000123_000000, []byte("a"), 3}, {1_000_000, []byte("a"), 1}}},
		{"timestamp micros, optional cost", writeParquetRows(t, []pqMicros{{2, []byte("a"), ptr[int64](4)}, {3, []byte("b"), nil}}), 0,
			[]Request{{2_000, []byte("a"), 4}, {3_000, []byte("b"), 1}}},
		{"unsigned int32 cost", writeParquetRows(t, []pqUnsignedCost{{1, "a", 2_000_000_000}}), 0,
			[]Request{{1, []byte("a"), 2_000_000_000}}},
		{"unsigned int64 ts", writeParquetRows(t, []pqUnsignedTS{{5, "a"}, {1<<63 - 1, "b"}}), 0,
			[]Request{{5, []byte("a"), 1}, {1<<63 - 1, []byte("b"), 1}}},
		{"optional ts and key without nulls", writeParquetRows(t, []pqOptional{{ptr[int64](1), ptr("a")}}), 0,
			[]Request{{1, []byte("a"), 1}}},
		{"empty file", writeParquetRows[pqPlain](t, nil), 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := read(FormatParquet, tt.data, "t.parquet", Options{TSUnit: tt.unit})
			if err != nil {
				t.Fatal(err)
			}
			diffRequests(t, got, tt.want)
		})
	}
}

// TestParquetPages reads a file with many row groups and small pages, with
// dictionary and plain keys, so that column page boundaries do not line up.
func TestParquetPages(t *testing.T) {
	reqs := awkwardRequests(5000)
	for i := range reqs {
		if i%3 == 0 {
			reqs[i].Key = fmt.Appendf(nil, "unique-%d-%s", i, strings.Repeat("x", i%50))
		}
	}
	rows := make([]parquetRow, len(reqs))
	for i, r := range reqs {
		rows[i] = parquetRow{TS: r.T, Key: r.Key, Cost: int32(r.Cost)}
	}
	data := writeParquetRows(t, rows, parquet.MaxRowsPerRowGroup(777), parquet.PageBufferSize(300),
		parquet.DataPageVersion(1))
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(f.RowGroups()); n < 5 {
		t.Fatalf("%d row groups", n)
	}
	got, err := read(FormatParquet, data, "t.parquet", Options{})
	if err != nil {
		t.Fatal(err)
	}
	diffRequests(t, got, reqs)
}

type pqWrongTS struct {
	TS  string `parquet:"ts"`
	Key string `parquet:"key"`
}

type pqWrongKey struct {
	TS  int64 `parquet:"ts"`
	Key int64 `parquet:"key"`
}

type pqWrongCost struct {
	TS   int64   `parquet:"ts"`
	Key  string  `parquet:"key"`
	Cost float64 `parquet:"cost"`
}

type pqNoTS struct {
	A int64  `parquet:"a"`
	B string `parquet:"b"`
}

type pqGroupTS struct {
	TS  struct{ X int64 } `parquet:"ts"`
	Key string            `parquet:"key"`
}

type pqRepeated struct {
	TS  int64    `parquet:"ts"`
	Key []string `parquet:"key"`
}

type pqCost struct {
	TS   int64  `parquet:"ts"`
	Key  string `parquet:"key"`
	Cost int64  `parquet:"cost"`
}

func TestParquetErrors(t *testing.T) {
	costRows := make([]pqCost, 20)
	for i := range costRows {
		costRows[i] = pqCost{int64(i), "k", 1}
	}
	costRows[11].Cost = 0
	valid := write(t, FormatParquet, awkwardRequests(100))
	tests := []struct {
		name string
		data []byte
		unit time.Duration
		want string
	}{
		{"cost 0 at row 12", writeParquetRows(t, costRows), 0, "t.parquet: row 12: cost 0 is not positive"},
		{"negative cost", writeParquetRows(t, []pqCost{{1, "k", -4}}), 0, "t.parquet: row 1: cost -4 is not positive"},
		{"cost above MaxCost", writeParquetRows(t, []pqCost{{1, "k", 1}, {2, "k", MaxCost + 1}}), 0, "t.parquet: row 2: cost 2147483648 exceeds the largest cost, 2147483647"},
		{"negative ts", writeParquetRows(t, []pqPlain{{1, "a"}, {-5, "b"}}), 0, "t.parquet: row 2: ts -5 is negative"},
		{"ts overflow by unit", writeParquetRows(t, []pqPlain{{1 << 62, "b"}}), time.Second, "t.parquet: row 1: ts 4611686018427387904 overflows int64 nanoseconds as s (-ts-unit s): try a smaller unit"},
		{"unsigned ts of 2^63", writeParquetRows(t, []pqUnsignedTS{{1, "a"}, {1 << 63, "b"}}), 0, "t.parquet: row 2: ts 9223372036854775808 overflows int64 nanoseconds"},
		{"unsigned ts of 2^64-1", writeParquetRows(t, []pqUnsignedTS{{1<<64 - 1, "b"}}), time.Millisecond, "t.parquet: row 1: ts 18446744073709551615 overflows int64 nanoseconds"},
		{"millis overflow", writeParquetRows(t, []pqMillis{{1 << 62, "b", 1}}), 0, "t.parquet: row 1: ts 4611686018427387904 milliseconds overflows int64 nanoseconds"},
		{"empty key", writeParquetRows(t, []pqPlain{{1, "a"}, {2, ""}}), 0, "t.parquet: row 2: empty key"},
		{"null key", writeParquetRows(t, []pqOptional{{ptr[int64](1), nil}}), 0, "t.parquet: row 1: key is null"},
		{"null ts", writeParquetRows(t, []pqOptional{{ptr[int64](1), ptr("a")}, {nil, ptr("a")}}), 0, "t.parquet: row 2: ts is null"},
		{"missing column", writeParquetRows(t, []pqNoTS{{1, "a"}}), 0, `t.parquet: no "ts" column (columns: "a", "b")`},
		{"ts wrong type", writeParquetRows(t, []pqWrongTS{{"1", "a"}}), 0, `t.parquet: column "ts" is BYTE_ARRAY, want INT64`},
		{"key wrong type", writeParquetRows(t, []pqWrongKey{{1, 2}}), 0, `t.parquet: column "key" is INT64, want BYTE_ARRAY`},
		{"cost wrong type", writeParquetRows(t, []pqWrongCost{{1, "a", 1}}), 0, `t.parquet: column "cost" is DOUBLE, want INT32 or INT64`},
		{"ts is a group", writeParquetRows(t, []pqGroupTS{{Key: "a"}}), 0, `t.parquet: column "ts" is a group, want INT64`},
		{"repeated key", writeParquetRows(t, []pqRepeated{{1, []string{"a"}}}), 0, `t.parquet: column "key" is repeated, want one value a row`},
		{"empty input", nil, 0, `t.parquet: not a valid Parquet file (truncated?): 0 bytes is too short`},
		{"not parquet", []byte("ts,key,cost\n1,a,1\n"), 0, `t.parquet: not a valid Parquet file (truncated?): no PAR1 magic at the start (found "ts,k")`},
		{"truncated", valid[:len(valid)-10], 0, fmt.Sprintf("t.parquet: not a valid Parquet file (truncated?): no PAR1 magic at the end (found %q)", valid[len(valid)-14:len(valid)-10])},
		{"bad footer length", append(append(bytes.Clone(valid[:len(valid)-8]), 0xff, 0xff, 0xff, 0x7f), "PAR1"...), 0,
			fmt.Sprintf("t.parquet: not a valid Parquet file (truncated?): footer of 2147483647 bytes does not fit in a file of %d bytes", len(valid))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := read(FormatParquet, tt.data, "t.parquet", Options{TSUnit: tt.unit})
			if err == nil {
				t.Fatalf("no error, read %+v", got)
			}
			if err.Error() != tt.want {
				t.Fatalf("error\n got: %s\nwant: %s", err, tt.want)
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %T is not a *ParseError", err)
			}
		})
	}
}

// TestParquetCorrupt truncates and damages a valid file every which way:
// reading must end in an error naming the file, never a panic.
func TestParquetCorrupt(t *testing.T) {
	valid := write(t, FormatParquet, awkwardRequests(40))
	check := func(data []byte) {
		got, err := read(FormatParquet, data, "c.parquet", Options{})
		if err != nil && !strings.HasPrefix(err.Error(), "c.parquet") {
			t.Fatalf("error without the file name: %v", err)
		}
		checkRequests(t, got)
	}
	for n := 0; n < len(valid); n++ {
		got, err := read(FormatParquet, valid[:n], "c.parquet", Options{})
		if err == nil {
			t.Fatalf("truncated to %d of %d bytes: no error, read %d requests", n, len(valid), len(got))
		}
		if !strings.HasPrefix(err.Error(), "c.parquet") {
			t.Fatalf("error without the file name: %v", err)
		}
	}
	for i := 0; i < len(valid); i++ {
		for _, x := range []byte{0x01, 0x80, 0xff} {
			data := bytes.Clone(valid)
			data[i] ^= x
			check(data)
		}
	}
}

// checkRequests asserts the invariants every reader guarantees.
func checkRequests(t testing.TB, reqs []Request) {
	t.Helper()
	for i, r := range reqs {
		if r.T < 0 || r.Cost < 1 || r.Cost > MaxCost || len(r.Key) == 0 || !utf8.Valid(r.Key) {
			t.Fatalf("request %d breaks the invariants: %+v", i, r)
		}
	}
}

func TestParquetWriterSchema(t *testing.T) {
	data := write(t, FormatParquet, awkwardRequests(10))
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"ts":   "TIMESTAMP(isAdjustedToUTC=true,unit=NANOS)",
		"key":  "STRING",
		"cost": "INT(32,true)",
	}
	for _, c := range f.Root().Columns() {
		if got := c.Type().String(); got != want[c.Name()] {
			t.Errorf("column %s: type %s, want %s", c.Name(), got, want[c.Name()])
		}
		if !c.Required() {
			t.Errorf("column %s is not required", c.Name())
		}
	}
	if len(f.Root().Columns()) != 3 {
		t.Errorf("%d columns", len(f.Root().Columns()))
	}
}

func TestParquetAllocs(t *testing.T) {
	const n = 100_000
	data := write(t, FormatParquet, benchRequests(n))
	allocs := testing.AllocsPerRun(3, func() {
		r, err := NewParquetReader(bytes.NewReader(data), int64(len(data)), "t.parquet", Options{})
		if err != nil {
			t.Fatal(err)
		}
		k := 0
		for r.Scan() {
			k++
		}
		if r.Err() != nil || k != n {
			t.Fatal(k, r.Err())
		}
	})
	perRecord := allocs / n
	t.Logf("%.0f allocations to read %d records (%.4f per record, opening included)", allocs, n, perRecord)
	if perRecord > 0.01 {
		t.Fatalf("%.4f allocations per record", perRecord)
	}
}
