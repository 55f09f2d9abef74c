package traces

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
)

// hostileParquet makes a Parquet trace of one of several schemas (the
// writer's own; dictionary and plain keys; INT32, INT64, unsigned and
// optional costs; unsigned and optional times), of rows good and bad
// (negative or overflowing times, costs out of range, empty, invalid and
// null keys), in row groups and pages of random sizes, and a unit to read
// its integer times with.
func hostileParquet(t *testing.T, rng *rand.Rand) ([]byte, time.Duration) {
	n := rng.IntN(3000)
	opts := []parquet.WriterOption{parquet.MaxRowsPerRowGroup(int64(1 + rng.IntN(2000))), parquet.PageBufferSize(64 + rng.IntN(4000))}
	bad := rng.IntN(4) == 0
	ts := func(i int) int64 {
		if bad && rng.IntN(200) == 0 {
			return []int64{-1, 1 << 62, -1 << 63}[rng.IntN(3)]
		}
		return int64(i)*1000 + int64(rng.IntN(1000))
	}
	key := func() string {
		if bad && rng.IntN(200) == 0 {
			return []string{"", "\xff", "k\x00"}[rng.IntN(3)]
		}
		return fmt.Sprintf("k%d", rng.IntN(1+rng.IntN(500)))
	}
	cost := func() int64 {
		if bad && rng.IntN(200) == 0 {
			return []int64{0, -3, MaxCost + 1}[rng.IntN(3)]
		}
		return 1 + int64(rng.IntN(5))
	}
	switch rng.IntN(7) {
	case 0:
		rows := make([]parquetRow, n)
		for i := range rows {
			rows[i] = parquetRow{TS: ts(i), Key: []byte(key()), Cost: int32(cost())}
		}
		return writeParquetRows(t, rows, opts...), 0
	case 1:
		rows := make([]pqMillis, n)
		for i := range rows {
			rows[i] = pqMillis{TS: ts(i) / 1000, Key: key(), Cost: int32(cost())}
		}
		return writeParquetRows(t, rows, opts...), 0
	case 2:
		rows := make([]pqCost, n)
		for i := range rows {
			rows[i] = pqCost{TS: ts(i), Key: key(), Cost: cost()}
		}
		return writeParquetRows(t, rows, opts...), time.Microsecond
	case 3:
		rows := make([]pqUnsignedCost, n)
		for i := range rows {
			rows[i] = pqUnsignedCost{TS: ts(i), Key: key(), Cost: uint32(cost())}
		}
		return writeParquetRows(t, rows, opts...), 0
	case 4:
		rows := make([]pqUnsignedTS, n)
		for i := range rows {
			rows[i] = pqUnsignedTS{TS: uint64(ts(i)), Key: key()}
		}
		return writeParquetRows(t, rows, opts...), time.Millisecond
	case 5:
		rows := make([]pqMicros, n)
		for i := range rows {
			rows[i] = pqMicros{TS: ts(i), Key: []byte(key())}
			if rng.IntN(3) != 0 {
				rows[i].Cost = ptr(cost())
			}
		}
		return writeParquetRows(t, rows, opts...), 0
	}
	rows := make([]pqOptional, n)
	for i := range rows {
		rows[i] = pqOptional{TS: ptr(ts(i)), Key: ptr(key())}
		if bad && rng.IntN(100) == 0 {
			rows[i].TS = nil
		}
		if bad && rng.IntN(100) == 0 {
			rows[i].Key = nil
		}
	}
	return writeParquetRows(t, rows, opts...), 0
}

// Read in runs split by key, a Parquet trace gives every request Scan
// reads, in the part of its key, in file order, at its row, and ends on
// the same error after the same rows skipped, whatever the schema, the
// row groups, the pages and the rows.
func TestParquetPartitionMatchesScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	for range 300 {
		data, unit := hostileParquet(t, rng)
		opt := Options{TSUnit: unit, SkipBad: rng.IntN(2) == 0}
		open := func() *ParquetReader {
			r, err := NewParquetReader(bytes.NewReader(data), int64(len(data)), "t.parquet", opt)
			if err != nil {
				t.Fatal(err)
			}
			return r
		}
		r := open()
		want := csvOutcomeOf(r)
		r.Close()
		n, drop := 1+rng.IntN(4), rng.IntN(3) == 0
		of := testPartOf(n, drop)
		r = open()
		got := partOutcome(t, r, n, of)
		r.Close()
		if d := diffOutcomes(got, dropUnowned(want, of)); d != "" {
			t.Fatalf("%+v, %d parts, drop %v:\n%s", opt, n, drop, d)
		}
	}
}

// A damaged file never panics the runs, which stay whole (every request
// in one part, in order, partOutcome checks), whatever the damage. (What
// is read of a damaged page is not compared with Scan's: parquet-go may
// read it from memory its pools hand out again, which differs from one
// read to the next.)
func TestParquetPartitionCorrupt(t *testing.T) {
	rng := rand.New(rand.NewPCG(53, 54))
	valid := write(t, FormatParquet, awkwardRequests(3000))
	read := 0
	for range 300 {
		data := bytes.Clone(valid)
		for range 1 + rng.IntN(4) {
			data[rng.IntN(len(data))] = byte(rng.IntN(256))
		}
		func() {
			defer func() {
				if v := recover(); v != nil {
					t.Fatalf("panic: %v", v)
				}
			}()
			r, err := NewParquetReader(bytes.NewReader(data), int64(len(data)), "t.parquet", Options{})
			if err != nil {
				return
			}
			defer r.Close()
			n := 1 + rng.IntN(3)
			if o := partOutcome(t, r, n, testPartOf(n, false)); o.err != "" && !strings.HasPrefix(o.err, "t.parquet") {
				t.Fatalf("error %q does not name the file", o.err)
			}
			read++
		}()
	}
	if read < 50 {
		t.Fatalf("only %d damaged files opened", read)
	}
}

// The keys of a dictionary-encoded column are handed over as their
// entries, each entry's part and hash found once, in runs that never mix
// two row groups' dictionaries; the others are copied.
func TestParquetPartitionRefs(t *testing.T) {
	reqs := benchRequests(20_000)
	data := write(t, FormatParquet, reqs)
	r, err := NewParquetReader(bytes.NewReader(data), int64(len(data)), "t.parquet", Options{})
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	of := func(key []byte) (int, uint64) {
		calls++
		return testPartOf(2, false)(key)
	}
	if !r.Partition(2, of) {
		t.Fatal("no partition")
	}
	keys := map[string]bool{}
	for _, q := range reqs {
		keys[string(q.Key)] = true
	}
	n := 0
	for run := r.NextRun(); run != nil; run = r.NextRun() {
		if run.Dict() == 0 {
			t.Fatal("a run of dictionary keys has no dictionary")
		}
		for i := range 2 {
			p := run.Part(i)
			if len(p.Ref) != p.Len() || len(p.Keys) != 0 {
				t.Fatalf("part %d: %d refs and %d bytes of keys for %d requests", i, len(p.Ref), len(p.Keys), p.Len())
			}
			for j := range p.Len() {
				if q := reqs[p.At[j]+int32(n)]; string(p.Key(j)) != string(q.Key) || p.T[j] != q.T {
					t.Fatalf("%v: %d %q, wrote %d %q", run.Position(p, j), p.T[j], p.Key(j), q.T, q.Key)
				}
			}
			run.Done()
		}
		n += run.Len()
	}
	if r.Err() != nil || n != len(reqs) {
		t.Fatalf("%d rows, %v", n, r.Err())
	}
	if calls != len(keys) {
		t.Errorf("%d keys placed, %d distinct", calls, len(keys))
	}
}
