package traces

import (
	"strings"
	"testing"
	"time"
)

// -ts-format reads times in a layout of the user's, Go's or strftime's, to
// the nanosecond, in UTC unless the layout has a zone.
func TestTSFormatLayouts(t *testing.T) {
	utc := func(y int, mo time.Month, d, h, mi, s, ns int) int64 {
		return time.Date(y, mo, d, h, mi, s, ns, time.UTC).UnixNano()
	}
	tests := []struct {
		layout, in string
		want       int64
	}{
		{"02.01.2006 03:04 PM", "15.02.2015 05:11 PM", utc(2015, 2, 15, 17, 11, 0, 0)},
		{"%d.%m.%Y %I:%M %p", "15.02.2015 05:11 PM", utc(2015, 2, 15, 17, 11, 0, 0)},
		{"%d.%m.%Y %I:%M %p", "15.02.2015 12:05 AM", utc(2015, 2, 15, 0, 5, 0, 0)},
		{"%d.%m.%Y %I:%M %p", "15.02.2015 12:05 PM", utc(2015, 2, 15, 12, 5, 0, 0)},
		{"%a %b %d %H:%M:%S %Y", "Tue Aug 22 00:00:00 1995", utc(1995, 8, 22, 0, 0, 0, 0)},
		{"%a %b %e %H:%M:%S %Y", "Wed Aug  2 23:59:59 1995", utc(1995, 8, 2, 23, 59, 59, 0)},
		{"%Y-%m-%d %H:%M:%S %z", "2024-02-09 10:00:00 +0130", utc(2024, 2, 9, 8, 30, 0, 0)},
		{"%Y-%m-%d %H:%M:%S %z", "2024-02-09 10:00:00 -0700", utc(2024, 2, 9, 17, 0, 0, 0)},
		{"%Y-%m-%d %H:%M:%S %Z", "2024-02-09 10:00:00 UTC", utc(2024, 2, 9, 10, 0, 0, 0)},
		{"%Y-%m-%d %H:%M:%S %Z", "2024-02-09 10:00:00 GMT", utc(2024, 2, 9, 10, 0, 0, 0)},
		{"%Y-%m-%dT%H:%M:%S.%f", "2024-02-09T10:00:00.123456789", utc(2024, 2, 9, 10, 0, 0, 123456789)},
		{"%Y-%m-%dT%H:%M:%S.%f", "2024-02-09T10:00:00.5", utc(2024, 2, 9, 10, 0, 0, 5e8)},
		{"%Y-%m-%dT%H:%M:%S.%f", "2024-02-09T10:00:00.123456789000", utc(2024, 2, 9, 10, 0, 0, 123456789)},
		{"%d/%b/%Y:%H:%M:%S %z", "10/Oct/2000:13:55:36 -0700", utc(2000, 10, 10, 20, 55, 36, 0)},
		{"%F %T", "2262-04-11 23:47:16", utc(2262, 4, 11, 23, 47, 16, 0)},
		{"%Y%m%d %H%M%S", "19700101 000000", 0},
		{"%%%Y-%m-%d", "%2024-02-09", utc(2024, 2, 9, 0, 0, 0, 0)},
		// A Go layout without a fraction reads one after the seconds.
		{"2006-01-02 15:04:05", "2024-02-09 10:00:00.000000001", utc(2024, 2, 9, 10, 0, 0, 1)},
		{"Jan _2 15:04:05 2006", "Feb  9 10:00:00 2024", utc(2024, 2, 9, 10, 0, 0, 0)},
	}
	for _, tt := range tests {
		l, err := parseTSFormat(tt.layout)
		if err != nil {
			t.Errorf("%q: %v", tt.layout, err)
			continue
		}
		if got, msg := l.parse([]byte(tt.in)); msg != "" || got != tt.want {
			t.Errorf("%q reads %q as %d (%s), want %d", tt.layout, tt.in, got, msg, tt.want)
		}
	}
}

// A layout that cannot tell a time is refused when the reader is made,
// naming what is wrong; a time that does not fit is a bad record.
func TestTSFormatErrors(t *testing.T) {
	for layout, want := range map[string]string{
		"%d.%m.%Y %Q":       "unsupported strftime directive %Q",
		"%s":                "unsupported strftime directive %s; integer Unix times need no -ts-format",
		"%d.%m.%Y %":        "ends in a lone %",
		"dd.mm.yyyy":        "does not give the year, the month, the day",
		"%H:%M:%S":          "does not give the year, the month, the day",
		"%d.%m %H:%M":       "does not give the year",
		"%d.%m.%Y %I:%M":    "has an hour of 12 and no AM/PM",
		"%Y-%m-%d at 1 %H":  `the text " at 1 " would read as part of the time`,
		"%Y-%m-%d %H:%M %f": "%f (a fraction of a second) must follow a '.' or ','",
	} {
		_, err := parseTSFormat(layout)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "-ts-format") {
			t.Errorf("%q: %v, want %q", layout, err, want)
		}
	}
	if _, err := read(FormatCSV, []byte("ts,key\n1,a\n"), "t", Options{TSFormat: "%F", TSUnit: time.Second}); err == nil ||
		!strings.Contains(err.Error(), "-ts-unit does not apply with -ts-format") {
		t.Errorf("-ts-unit with -ts-format: %v", err)
	}
	for in, want := range map[string]string{
		"2024-02-09 10:00:00 CET":            `t:2: ts "2024-02-09 10:00:00 CET" has the time zone "CET", whose offset is not known here`,
		"1969-12-31 23:59:59 UTC":            `t:2: ts "1969-12-31 23:59:59 UTC" is negative (before 1970)`,
		"2024-02-09 10:00 UTC":               `t:2: ts "2024-02-09 10:00 UTC" does not fit -ts-format "%Y-%m-%d %H:%M:%S %Z": cannot read " UTC"`,
		"2024-02-30 10:00:00 UTC":            `t:2: ts "2024-02-30 10:00:00 UTC" does not fit -ts-format "%Y-%m-%d %H:%M:%S %Z": day out of range`,
		"2024-02-09 10:00:00":                `t:2: ts "2024-02-09 10:00:00" does not fit -ts-format "%Y-%m-%d %H:%M:%S %Z": the time ends too soon`,
		"2024-02-09 10:00:00 UTC x":          `t:2: ts "2024-02-09 10:00:00 UTC x" does not fit -ts-format "%Y-%m-%d %H:%M:%S %Z": extra text: " x"`,
		"2262-04-11 23:47:17 UTC":            `t:2: ts "2262-04-11 23:47:17 UTC" overflows int64 nanoseconds`,
		"":                                   `t:2: empty ts`,
		"2024-02-09 10:00:00.1234567891 UTC": `t:2: ts "2024-02-09 10:00:00.1234567891 UTC" has more than 9 fraction digits (finer than a nanosecond)`,
	} {
		_, err := read(FormatCSV, []byte("ts,key\n"+in+",a\n"), "t", Options{TSFormat: "%Y-%m-%d %H:%M:%S %Z"})
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q: %v\nwant %s", in, err, want)
		}
	}
}

// -ts-format applies to CSV columns and JSON string fields, not to JSON
// numbers, Parquet or the logs.
func TestTSFormatReaders(t *testing.T) {
	want := time.Date(2015, 2, 15, 17, 11, 0, 0, time.UTC).UnixNano()
	opt := Options{TSFormat: "02.01.2006 03:04 PM"}
	got, err := read(FormatCSV, []byte("key,ts\na,15.02.2015 05:11 PM\n"), "t", opt)
	if err != nil || len(got) != 1 || got[0].T != want {
		t.Errorf("CSV: %v %v", got, err)
	}
	got, err = read(FormatJSONL, []byte(`{"ts":"15.02.2015 05:11 PM","key":"a"}`+"\n"), "t", opt)
	if err != nil || len(got) != 1 || got[0].T != want {
		t.Errorf("JSON lines: %v %v", got, err)
	}
	if _, err = read(FormatJSONL, []byte(`{"ts":1,"key":"a"}`+"\n"), "t", opt); err == nil ||
		err.Error() != `t:1: ts 1 is a number, and -ts-format "02.01.2006 03:04 PM" reads strings` {
		t.Errorf("JSON number: %v", err)
	}
	if _, err = read(FormatAccessLog, []byte(""), "t", opt); err == nil || !strings.Contains(err.Error(), "-ts-format does not apply to an access log") {
		t.Errorf("access log: %v", err)
	}
	if _, err = read(FormatHAProxy, []byte(""), "t", opt); err == nil || !strings.Contains(err.Error(), "-ts-format does not apply to an HAProxy log") {
		t.Errorf("HAProxy: %v", err)
	}
	pq := write(t, FormatParquet, []Request{{T: 1, Key: []byte("a"), Cost: 1}})
	if _, err = read(FormatParquet, pq, "t", opt); err == nil || !strings.Contains(err.Error(), "-ts-format does not apply to Parquet") {
		t.Errorf("Parquet: %v", err)
	}
	// Many records, read by the parallel CSV reader, read as one at a time.
	var b strings.Builder
	b.WriteString("ts,key\n")
	for i := range 3000 {
		b.WriteString(time.Unix(1423933860+int64(i)*61, 0).UTC().Format("02.01.2006 03:04 PM") + ",k\n")
	}
	par, err := read(FormatCSV, []byte(b.String()), "t", withTuning(opt, Options{csvWorkers: 2, csvChunk: 4096, csvAfter: 10}))
	seq, err2 := read(FormatCSV, []byte(b.String()), "t", sequential(opt))
	if err != nil || err2 != nil || len(par) != 3000 || !equalRequests(par, seq) {
		t.Fatalf("parallel %d %v, sequential %d %v", len(par), err, len(seq), err2)
	}
}

// Reading times in a layout, and fields split by a separator of several
// characters, allocates nothing per record.
func TestTSFormatAllocs(t *testing.T) {
	for layout, in := range map[string]string{"%d.%m.%Y %I:%M %p": "15.02.2015 05:11 PM", "%a %b %e %H:%M:%S %Y": "Tue Aug 22 00:00:00 1995",
		"%d/%b/%Y:%H:%M:%S %z": "10/Oct/2000:13:55:36 -0700", "%F %T %Z": "2024-01-01 00:00:00 UTC"} {
		l, err := parseTSFormat(layout)
		if err != nil {
			t.Fatal(err)
		}
		b := []byte(in)
		if n := testing.AllocsPerRun(100, func() { l.parse(b) }); n != 0 {
			t.Errorf("%q: %v allocations a time", layout, n)
		}
	}
	data := "time | client\n" + strings.Repeat("15.02.2015 05:11 PM | 10.0.0.1\n", 3000)
	r, err := NewCSVReader(strings.NewReader(data), "t", Options{MultiSep: " | ", TS: "time", Key: "client", TSFormat: "%d.%m.%Y %I:%M %p"})
	if err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(2000, func() {
		if !r.Scan() {
			t.Fatal(r.Err())
		}
	}); n != 0 {
		t.Errorf("%v allocations a record", n)
	}
}
