package traces

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A -sep of several characters goes in MultiSep; one character, or one of
// the names of one, in Sep; what cannot separate fields is refused.
func TestSetSep(t *testing.T) {
	for in, want := range map[string]Options{
		"":    {},
		",":   {Sep: ','},
		"tab": {Sep: '\t'},
		`\t`:  {Sep: '\t'},
		"::":  {MultiSep: "::"},
		" | ": {MultiSep: " | "},
		"\t|": {MultiSep: "\t|"},
		"a;b": {MultiSep: "a;b"},
	} {
		var opt Options
		if err := opt.SetSep(in); err != nil || opt.Sep != want.Sep || opt.MultiSep != want.MultiSep {
			t.Errorf("SetSep(%q) = %q %q, %v", in, opt.Sep, opt.MultiSep, err)
		}
	}
	for in, want := range map[string]string{
		"ab":       "letters, digits and . - + are part of values",
		"1.5":      "letters, digits and . - + are part of values",
		"\x01\x02": "want printable ASCII characters or tabs",
		"|\n":      "want printable ASCII characters or tabs",
		"a":        "letters, digits and . - + are part of values",
	} {
		var opt Options
		if err := opt.SetSep(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("SetSep(%q) = %v, want %q", in, err, want)
		}
	}
}

// With a separator of several characters, fields split at each of it,
// literally: no quoting, a record a line; the header's names are trimmed.
func TestMultiSepCSV(t *testing.T) {
	in := "ts | key | cost\n1 | a | 2\n2 | \"b|c\" | \n3 | \"d | 1\n4 | e | 1 | x\n"
	got, err := read(FormatCSV, []byte(in), "t", Options{MultiSep: " | "})
	want := []Request{{1, []byte("a"), 2}, {2, []byte(`"b|c"`), 1}, {3, []byte(`"d`), 1}}
	if !equalRequests(got, want) || err == nil || err.Error() != "t:5: 4 fields, header has 3" {
		t.Fatalf("got %v, %v", got, err)
	}
	// Headerless, with a layout: the shape of a log written as
	// "time::client::path".
	in = "15.02.2015 05:11 PM::10.0.0.1::/a\n15.02.2015 05:12 PM::10.0.0.2::/b::c\n"
	got, err = read(FormatCSV, []byte(in), "t", Options{MultiSep: "::", Columns: []string{"ts", "key", "_"}, TSFormat: "%d.%m.%Y %I:%M %p"})
	if len(got) != 1 || got[0].T != 1424020260e9 || string(got[0].Key) != "10.0.0.1" || err == nil ||
		err.Error() != "t:2: 4 fields, -columns names 3" {
		t.Fatalf("headerless: %v, %v", got, err)
	}
	// A header the separator does not split says to give it.
	if _, err = read(FormatCSV, []byte("ts,key\n1,a\n"), "t", Options{MultiSep: "::"}); err == nil ||
		!strings.Contains(err.Error(), `header has no "ts" column (columns: "ts,key"; give the separator with -sep`) {
		t.Fatalf("wrong separator: %v", err)
	}
	// Many records: the reader reads them one at a time, whatever the tuning.
	var b strings.Builder
	b.WriteString("key::ts\n")
	for i := range 5000 {
		b.WriteString("k" + strings.Repeat("x", i%7) + "::" + strconv.Itoa(i) + "\n")
	}
	got, err = read(FormatCSV, []byte(b.String()), "t", withTuning(Options{MultiSep: "::"}, Options{csvWorkers: 2, csvChunk: 512, csvAfter: 1}))
	if err != nil || len(got) != 5000 || got[4999].T != 4999 || string(got[4999].Key) != "kx" {
		t.Fatalf("%d requests, %v", len(got), err)
	}
	// Formats without fields refuse it.
	if _, err = read(FormatJSONL, []byte(""), "t", Options{MultiSep: "::"}); err == nil || !strings.Contains(err.Error(), "-sep does not apply to JSON lines") {
		t.Errorf("JSON lines: %v", err)
	}
}

// Open takes a separator of several characters whatever the file's name:
// a .tsv is not split by tabs then.
func TestOpenMultiSep(t *testing.T) {
	path := filepath.Join(t.TempDir(), "app.tsv")
	if err := os.WriteFile(path, []byte("ts::key\n1::a\tb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range []Format{FormatAuto, FormatCSV} {
		r, err := Open(path, f, Options{MultiSep: "::"})
		if err != nil {
			t.Fatal(err)
		}
		if !r.Scan() || string(r.Request().Key) != "a\tb" || FormatOf(r) != FormatCSV {
			t.Errorf("%v: %+v %v", f, r.Request(), r.Err())
		}
		r.Close()
	}
}
