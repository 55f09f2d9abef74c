package traces

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"
)

// readUnit reads data and returns its requests' times and the reader's
// TimeUnit.
func readUnit(t *testing.T, f Format, data []byte, opt Options) ([]int64, TimeUnit) {
	t.Helper()
	r, err := newReader(f, data, "t", opt)
	if err != nil {
		t.Fatal(err)
	}
	reqs, err := readAll(r)
	if err != nil {
		t.Fatal(err)
	}
	var ts []int64
	for _, q := range reqs {
		ts = append(ts, q.T)
	}
	return ts, TimeUnitOf(r)
}

// The auto unit is decided by the first timestamp's magnitude, for every
// integer timestamp of the trace.
func TestAutoTSUnit(t *testing.T) {
	const s2015 = 1431857112 // 2015-05-17T10:05:12Z
	tests := []struct {
		name  string
		first string
		next  string
		want  [2]int64
		unit  time.Duration
	}{
		{"seconds", "1431857112", "1431857147", [2]int64{s2015 * 1e9, (s2015 + 35) * 1e9}, time.Second},
		{"milliseconds", "1431857112123", "1431857112124", [2]int64{s2015*1e9 + 123e6, s2015*1e9 + 124e6}, time.Millisecond},
		{"microseconds", "1431857112123456", "1431857112123457", [2]int64{s2015*1e9 + 123456e3, s2015*1e9 + 123457e3}, time.Microsecond},
		{"nanoseconds", "1431857112123456789", "1431857112123456790", [2]int64{s2015*1e9 + 123456789, s2015*1e9 + 123456790}, time.Nanosecond},
		{"small values are ns offsets", "0", "1431857112", [2]int64{0, s2015}, time.Nanosecond},
		{"just below 1990 in s is ns", "631151999", "631152000", [2]int64{631151999, 631152000}, time.Nanosecond},
		{"1990 in s", "631152000", "631152001", [2]int64{631152000e9, 631152001e9}, time.Second},
		{"2100 in s is ns", "4102444800", "4102444801", [2]int64{4102444800, 4102444801}, time.Nanosecond},
		{"decimal seconds make integers seconds", "1700000000.5", "1700000001", [2]int64{1700000000_500000000, 1700000001_000000000}, time.Second},
		{"decimal offsets are seconds", "0.5", "2", [2]int64{500000000, 2e9}, time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inputs := map[Format]string{
				FormatCSV:   "ts,key\n" + tt.first + ",a\n" + tt.next + ",a\n",
				FormatJSONL: `{"ts":` + tt.first + `,"key":"a"}` + "\n" + `{"ts":"` + tt.next + `","key":"a"}` + "\n",
			}
			for f, in := range inputs {
				ts, u := readUnit(t, f, []byte(in), Options{})
				if len(ts) != 2 || ts[0] != tt.want[0] || ts[1] != tt.want[1] {
					t.Errorf("%v: times %v, want %v", f, ts, tt.want)
				}
				if u != (TimeUnit{Unit: tt.unit, From: "auto"}) {
					t.Errorf("%v: unit %+v, want %v auto", f, u, tt.unit)
				}
			}
		})
	}
}

// An explicit unit always wins over the magnitudes.
func TestExplicitTSUnitWins(t *testing.T) {
	in := "ts,key\n1431857112,a\n"
	for _, unit := range []time.Duration{time.Nanosecond, time.Microsecond, time.Millisecond, time.Second} {
		ts, u := readUnit(t, FormatCSV, []byte(in), Options{TSUnit: unit})
		if len(ts) != 1 || ts[0] != 1431857112*int64(unit) {
			t.Errorf("unit %v: times %v", unit, ts)
		}
		if u != (TimeUnit{Unit: unit, From: "explicit"}) {
			t.Errorf("unit %v: %+v", unit, u)
		}
	}
}

// JSON lines as JavaScript and Python write them: float or integer
// seconds, read right without options.
func TestJSONLFloatSeconds(t *testing.T) {
	tests := []struct {
		name, in string
		want     []int64
	}{
		{"python time.time()", `{"ts": 1700000000.123456, "key": "a"}` + "\n" + `{"ts": 1700000000.5, "key": "a"}`,
			[]int64{1700000000_123456000, 1700000000_500000000}},
		{"javascript Date.now()/1000, whole seconds without a fraction", `{"ts":1700000000.123,"key":"a"}` + "\n" + `{"ts":1700000001,"key":"a"}`,
			[]int64{1700000000_123000000, 1700000001_000000000}},
		{"integer seconds", `{"ts":1700000000,"key":"a"}` + "\n" + `{"ts":1700000002,"key":"a"}`,
			[]int64{1700000000e9, 1700000002e9}},
		{"javascript Date.now(), milliseconds", `{"ts":1700000000123,"key":"a"}`, []int64{1700000000_123000000}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts, u := readUnit(t, FormatJSONL, []byte(tt.in), Options{})
			if fmt.Sprint(ts) != fmt.Sprint(tt.want) {
				t.Errorf("times %v, want %v", ts, tt.want)
			}
			if u.From != "auto" {
				t.Errorf("unit %+v, want auto", u)
			}
		})
	}
}

// A first timestamp that is no number decides nothing: the next one does.
// An RFC 3339 time decides nanoseconds, and reports no unit.
func TestAutoTSUnitUndecided(t *testing.T) {
	ts, u := readUnit(t, FormatCSV, []byte("ts,key\nx,a\n1431857112,a\n"), Options{SkipBad: true})
	if len(ts) != 1 || ts[0] != 1431857112e9 || u != (TimeUnit{time.Second, "auto"}) {
		t.Errorf("after a bad ts: %v %+v", ts, u)
	}
	ts, u = readUnit(t, FormatCSV, []byte("ts,key\n2015-05-17T10:05:12Z,a\n1431857147000000000,a\n"), Options{})
	if len(ts) != 2 || ts[1] != 1431857147e9 || u != (TimeUnit{}) {
		t.Errorf("RFC 3339 first: %v %+v", ts, u)
	}
	// Nothing read yet, nothing known; access logs have no unit.
	r, err := newReader(FormatCSV, []byte("ts,key\n"), "t", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if u := TimeUnitOf(r); u != (TimeUnit{}) {
		t.Errorf("empty trace: %+v", u)
	}
	r, err = newReader(FormatAccessLog, []byte(`1.2.3.4 - - [17/May/2015:10:05:12 +0000] "GET / HTTP/1.1" 200 1`+"\n"), "t", Options{})
	if err != nil {
		t.Fatal(err)
	}
	readAll(r)
	if u := TimeUnitOf(Reorder(r, time.Second)); u != (TimeUnit{}) {
		t.Errorf("access log: %+v", u)
	}
}

func TestParquetAutoTSUnit(t *testing.T) {
	ts, u := readUnit(t, FormatParquet, writeParquetRows(t, []pqPlain{{1431857112, "a"}, {1431857113, "b"}}), Options{})
	if fmt.Sprint(ts) != "[1431857112000000000 1431857113000000000]" || u != (TimeUnit{time.Second, "auto"}) {
		t.Errorf("plain INT64 seconds: %v %+v", ts, u)
	}
	ts, u = readUnit(t, FormatParquet, writeParquetRows(t, []pqPlain{{1431857112, "a"}}), Options{TSUnit: time.Millisecond})
	if fmt.Sprint(ts) != "[1431857112000000]" || u != (TimeUnit{time.Millisecond, "explicit"}) {
		t.Errorf("explicit ms: %v %+v", ts, u)
	}
	ts, u = readUnit(t, FormatParquet, writeParquetRows(t, []pqMillis{{1431857112123, "a", 1}}), Options{TSUnit: time.Second})
	if fmt.Sprint(ts) != "[1431857112123000000]" || u != (TimeUnit{time.Millisecond, "file"}) {
		t.Errorf("TIMESTAMP(MILLIS): %v %+v", ts, u)
	}
}

// A parallel CSV reader starts its workers once the unit is decided, and
// reads as one record at a time does.
func TestCSVParallelAutoTSUnit(t *testing.T) {
	var b strings.Builder
	b.WriteString("ts,key\nbad,a\n")
	for i := range 5000 {
		fmt.Fprintf(&b, "%d,k%d\n", 1431857112+i, i%7)
	}
	for _, tune := range []Options{{csvWorkers: 2, csvAfter: -1, csvChunk: 1000}, {csvWorkers: 3, csvAfter: 1, csvChunk: 4000}} {
		opt := withTuning(Options{SkipBad: true}, tune)
		r, err := NewCSVReader(bytes.NewReader([]byte(b.String())), "t.csv", opt)
		if err != nil {
			t.Fatal(err)
		}
		reqs, err := readAll(r)
		if err != nil {
			t.Fatal(err)
		}
		if r.pipe == nil {
			t.Errorf("%+v: no pipeline", tune)
		}
		if len(reqs) != 5000 || reqs[0].T != 1431857112e9 || reqs[4999].T != (1431857112+4999)*1e9 {
			t.Errorf("%+v: %d requests, first %d", tune, len(reqs), reqs[0].T)
		}
		if u := TimeUnitOf(r); u != (TimeUnit{time.Second, "auto"}) {
			t.Errorf("%+v: %+v", tune, u)
		}
	}
}
