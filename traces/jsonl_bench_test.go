package traces

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
)

// BenchmarkJSONLFloor reads the floor's trace as JSON lines (floorJSONL)
// per iteration (see benchRecords): "scanner" with JSONLReader,
// "encoding_json" with the same line loop (lineRecords: line numbers,
// blank lines, NUL bytes, the limits) whose lines json.Unmarshal decodes
// into the same requests, each field read as JSONLReader reads it.
func BenchmarkJSONLFloor(b *testing.B) {
	data := floorJSONL()
	benchRecords(b, data, len(floorRequests()), []benchReader{
		{"scanner", func(each func([]byte)) (int, error) {
			r, err := NewJSONLReader(bytes.NewReader(data), "bench", Options{})
			if err != nil {
				return 0, err
			}
			k := 0
			for ; r.Scan(); k++ {
				each(r.Request().Key)
			}
			return k, r.Err()
		}},
		{"encoding_json", func(each func([]byte)) (int, error) {
			r, err := newStdJSONLReader(data)
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

// stdJSONLReader is JSONLReader's line loop with encoding/json in place of
// its scanner, for BenchmarkJSONLFloor.
type stdJSONLReader struct {
	lineRecords
	clock  tsClock
	maxKey int
	rec    struct {
		TS   json.RawMessage `json:"ts"`
		Key  *string         `json:"key"`
		Cost json.RawMessage `json:"cost"`
	}
	req Request
}

func newStdJSONLReader(data []byte) (*stdJSONLReader, error) {
	st, err := Options{}.resolve()
	if err != nil {
		return nil, err
	}
	return &stdJSONLReader{lineRecords: newLineRecords(bytes.NewReader(data), "bench", st.maxLine, Options{}),
		clock: newTSClock(st.unit), maxKey: st.maxKey}, nil
}

func (j *stdJSONLReader) Scan() bool { return j.scan(j.parse) }

func (j *stdJSONLReader) parse(line []byte) string {
	j.rec.TS, j.rec.Key, j.rec.Cost = nil, nil, nil
	if err := json.Unmarshal(line, &j.rec); err != nil {
		return "invalid JSON: " + err.Error()
	}
	if j.rec.TS == nil {
		return `missing "ts"`
	}
	if j.rec.Key == nil {
		return `missing "key"`
	}
	ts := []byte(j.rec.TS)
	if len(ts) > 0 && ts[0] == '"' { // a string: its text
		var s string
		if err := json.Unmarshal(ts, &s); err != nil {
			return "ts: " + err.Error()
		}
		ts = bytesOf(s)
	}
	unit := j.clock.unit
	if unit == 0 {
		unit = j.clock.first(ts)
	}
	t, msg := parseTS(ts, unit)
	if msg != "" {
		return tsMessage(ts, msg)
	}
	key := bytesOf(*j.rec.Key)
	if msg := keyProblem(key, j.maxKey); msg != "" {
		return msg
	}
	cost := int64(1)
	if len(j.rec.Cost) > 0 && string(j.rec.Cost) != "null" {
		if cost, msg = parseCost(j.rec.Cost); msg != "" {
			return fmt.Sprintf("cost %s %s", j.rec.Cost, msg)
		}
	}
	j.req = Request{T: t, Key: key, Cost: cost}
	return ""
}

// TestStdJSONLReaderReadsTheFloor: the two readers BenchmarkJSONLFloor
// compares read the same requests.
func TestStdJSONLReaderReadsTheFloor(t *testing.T) {
	r, err := newStdJSONLReader(floorJSONL())
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
	got, err := read(FormatJSONL, floorJSONL(), "t", Options{})
	if err != nil || !equalRequests(got, want) {
		t.Fatalf("JSONLReader: %d requests, %v", len(got), err)
	}
}
