package traces

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"testing"
)

// BenchmarkCSVFloor reads the floor's trace (floorCSV) per iteration (see
// benchRecords): "reader" with CSVReader as it reads by default (in
// parallel on GOMAXPROCS workers after its first records), "reader_serial"
// with CSVReader on one goroutine, "encoding_csv" with encoding/csv
// splitting the records that are then read as CSVReader reads them (the
// header's columns found by name, every record's fields counted).
func BenchmarkCSVFloor(b *testing.B) {
	data := floorCSV()
	csvReader := func(opt Options) func(func([]byte)) (int, error) {
		return func(each func([]byte)) (int, error) {
			r, err := NewCSVReader(bytes.NewReader(data), "bench", opt)
			if err != nil {
				return 0, err
			}
			defer r.Close()
			k := 0
			for ; r.Scan(); k++ {
				each(r.Request().Key)
			}
			return k, r.Err()
		}
	}
	benchRecords(b, data, len(floorRequests()), []benchReader{
		{"reader", csvReader(Options{})},
		{"reader_serial", csvReader(Options{csvWorkers: 1})},
		{"encoding_csv", func(each func([]byte)) (int, error) {
			r, err := newStdCSVReader(bytes.NewReader(data))
			if err != nil {
				return 0, err
			}
			k := 0
			for ; r.Scan(); k++ {
				each(r.req.Key)
			}
			return k, r.err
		}},
	})
}

// stdCSVReader is CSVReader's reading of a record with encoding/csv in
// place of its own splitting, for BenchmarkCSVFloor.
type stdCSVReader struct {
	r                      *csv.Reader
	clock                  tsClock
	maxKey                 int
	tsCol, keyCol, costCol int
	req                    Request
	err                    error
}

func newStdCSVReader(in io.Reader) (*stdCSVReader, error) {
	st, err := Options{}.resolve()
	if err != nil {
		return nil, err
	}
	c := &stdCSVReader{r: csv.NewReader(in), clock: newTSClock(st.unit), maxKey: st.maxKey}
	c.r.ReuseRecord = true
	header, err := c.r.Read()
	if err != nil {
		return nil, err
	}
	c.tsCol, c.keyCol, c.costCol = slices.Index(header, "ts"), slices.Index(header, "key"), slices.Index(header, "cost")
	if c.tsCol < 0 || c.keyCol < 0 {
		return nil, fmt.Errorf("header has no ts or key column (columns: %q)", header)
	}
	return c, nil
}

func (c *stdCSVReader) Scan() bool {
	rec, err := c.r.Read()
	if err != nil {
		if err != io.EOF {
			c.err = err
		}
		return false
	}
	line, _ := c.r.FieldPos(0)
	ts := bytesOf(rec[c.tsCol])
	unit := c.clock.unit
	if unit == 0 {
		unit = c.clock.first(ts)
	}
	t, msg := parseTS(ts, unit)
	if msg != "" {
		c.err = fmt.Errorf("bench:%d: %s", line, tsMessage(ts, msg))
		return false
	}
	key := bytesOf(rec[c.keyCol])
	if msg := keyProblem(key, c.maxKey); msg != "" {
		c.err = fmt.Errorf("bench:%d: %s", line, msg)
		return false
	}
	cost := int64(1)
	if c.costCol >= 0 {
		if cost, msg = parseCost(bytesOf(rec[c.costCol])); msg != "" {
			c.err = fmt.Errorf("bench:%d: cost %q %s", line, rec[c.costCol], msg)
			return false
		}
	}
	c.req = Request{T: t, Key: key, Cost: cost}
	return true
}

// TestStdCSVReaderReadsTheFloor: the readers BenchmarkCSVFloor compares
// read the same requests.
func TestStdCSVReaderReadsTheFloor(t *testing.T) {
	r, err := newStdCSVReader(bytes.NewReader(floorCSV()))
	if err != nil {
		t.Fatal(err)
	}
	want := floorRequests()
	i := 0
	for ; r.Scan(); i++ {
		if got := r.req; i >= len(want) || got.T != want[i].T || got.Cost != want[i].Cost || !bytes.Equal(got.Key, want[i].Key) {
			t.Fatalf("request %d: %+v, want %+v", i, got, want[i])
		}
	}
	if r.err != nil || i != len(want) {
		t.Fatalf("%d requests, %v; want %d", i, r.err, len(want))
	}
	for _, opt := range []Options{{}, {csvWorkers: 1}} {
		got, err := read(FormatCSV, floorCSV(), "t", opt)
		if err != nil || !equalRequests(got, want) {
			t.Fatalf("CSVReader %+v: %d requests, %v", opt, len(got), err)
		}
	}
}
