package traces

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Every format of the table is named by its name and aliases, in any
// case, and by its extensions, compressed or not; the table is in rank
// order, and every format is read one way or another.
func TestFormatTable(t *testing.T) {
	if len(formats) == 0 {
		t.Fatal("no formats registered")
	}
	for i, s := range formats {
		if i > 0 && formats[i-1].rank >= s.rank {
			t.Errorf("%v: rank %d after %v's %d", s.format, s.rank, formats[i-1].format, formats[i-1].rank)
		}
		if s.format.String() != string(s.format) {
			t.Errorf("%v: String %q", s.format, s.format.String())
		}
		for _, name := range append([]string{string(s.format)}, s.aliases...) {
			for _, in := range []string{name, strings.ToUpper(name), " " + name + " "} {
				if f, err := ParseFormat(in); err != nil || f != s.format {
					t.Errorf("ParseFormat(%q) = %v, %v; want %v", in, f, err, s.format)
				}
			}
		}
		for _, ext := range s.exts {
			for _, p := range []string{"a" + ext, "dir/a" + strings.ToUpper(ext) + ".gz", "a" + ext + ".zst"} {
				if f, err := FormatFromPath(p); err != nil || f != s.format {
					t.Errorf("FormatFromPath(%q) = %v, %v; want %v", p, f, err, s.format)
				}
			}
		}
		if s.open == nil && s.openAt == nil && s.openFolder == nil {
			t.Errorf("%v is not read", s.format)
		}
		if s.log && (s.title == "" || s.writer != nil) {
			t.Errorf("%v: a log with title %q, written %v", s.format, s.title, s.writer != nil)
		}
	}
	if f, err := ParseFormat("auto"); err != nil || f != FormatAuto || FormatAuto.String() != "auto" {
		t.Errorf("ParseFormat(auto) = %v, %v", f, err)
	}
	if got := Formats(); len(got) != len(formats) || got[0].Format != formats[0].format {
		t.Errorf("Formats() = %v", got)
	}
}

// A format whose name, alias, extension, rank or look order is another's
// is refused, and the table is left as it was.
func TestRegisterRefusesClashes(t *testing.T) {
	before := slices.Clone(formats)
	for _, s := range []*formatSpec{
		{format: FormatCSV, rank: 1000},
		{format: "x", aliases: []string{"pq"}, rank: 1000},
		{format: "x", aliases: []string{"jsonl"}, rank: 1000},
		{format: "x", exts: []string{".log"}, rank: 1000},
		{format: "x", rank: formats[0].rank},
		{format: "x", rank: 1000, sniff: sniffer{looks: func([]byte) bool { return false }, lookOrder: specOf(FormatHAProxy).sniff.lookOrder}},
		{format: "auto", rank: 1000},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("register(%v, rank %d) did not panic", s.format, s.rank)
				}
			}()
			register(s)
		}()
	}
	if !slices.Equal(formats, before) {
		t.Error("a refused format changed the table")
	}
}

// Every format ratebench writes reads back what it wrote, from a file
// named by its extension and from one whose name says nothing, its format
// told from the content.
func TestWrittenFormatsAreTold(t *testing.T) {
	reqs := []Request{{T: 1, Key: []byte("a"), Cost: 1}, {T: 2, Key: []byte("b"), Cost: 3}}
	for _, s := range formats {
		if s.writer == nil {
			continue
		}
		dir := t.TempDir()
		named := filepath.Join(dir, "t"+s.exts[0])
		w, err := Create(named, FormatAuto)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range reqs {
			if err := w.Write(q); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(named)
		if err != nil {
			t.Fatal(err)
		}
		unnamed := filepath.Join(dir, "t")
		if err := os.WriteFile(unnamed, data, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{named, unnamed} {
			r, err := Open(p, FormatAuto, Options{})
			if err != nil {
				t.Fatalf("%v: %v", s.format, err)
			}
			got, err := readAll(r)
			r.Close()
			if err != nil || FormatOf(r) != s.format || len(got) != len(reqs) || string(got[1].Key) != "b" || got[1].Cost != 3 {
				t.Errorf("%s: format %v, %v, %v", p, FormatOf(r), got, err)
			}
		}
		var b bytes.Buffer
		if w, err := NewWriter(&b, s.format); err != nil || w.Write(reqs[0]) != nil || w.Close() != nil || b.Len() == 0 {
			t.Errorf("NewWriter(%v): %v, %d bytes", s.format, err, b.Len())
		}
	}
}

// The lists of formats in messages are the table's, in its order (the
// tests of the messages themselves hold their exact words): every format's
// name, every log's kind but regex's, the formats written, text first.
func TestFormatListsAreTheTables(t *testing.T) {
	inOrder := func(what, list string, words []string) {
		t.Helper()
		at := 0
		for _, w := range words {
			i := strings.Index(list[at:], w)
			if i < 0 {
				t.Errorf("%s %q lacks %q, or not in the table's order", what, list, w)
				return
			}
			at += i + len(w)
		}
	}
	var names, kinds, written []string
	for _, s := range formats {
		names = append(names, string(s.format))
		if s.log && s.kind != "" {
			kinds = append(kinds, s.kind)
		}
		if s.writer != nil && s.openAt == nil {
			written = append(written, string(s.format))
		}
	}
	for _, s := range formats {
		if s.writer != nil && s.openAt != nil {
			written = append(written, string(s.format))
		}
	}
	inOrder("formatNames()", formatNames(), append(names, "or auto"))
	inOrder("logKinds()", logKinds(), kinds)
	if strings.Contains(logKinds(), "pattern") || len(kinds) < 5 {
		t.Errorf("logKinds() = %q", logKinds())
	}
	inOrder("errReadOnly(alb)", errString(errReadOnly(specOf(FormatALB))), append([]string{"cannot write an ALB access log: the format is read only (write"}, written...))
	if len(written) != 3 {
		t.Errorf("written %q", written)
	}
}

// The New function of each reader read as a stream reads as the table's
// entry does (which the tests' newReader uses), and its reader says its
// format.
func TestNewReaders(t *testing.T) {
	for _, tt := range []struct {
		f    Format
		data string
		opt  Options
		new  func(r *strings.Reader, opt Options) (Reader, error)
	}{
		{FormatCSV, "ts,key\n1,a\n", Options{}, func(r *strings.Reader, opt Options) (Reader, error) { return NewCSVReader(r, "t", opt) }},
		{FormatJSONL, `{"ts":1,"key":"a"}` + "\n", Options{}, func(r *strings.Reader, opt Options) (Reader, error) { return NewJSONLReader(r, "t", opt) }},
		{FormatAccessLog, logCombined + "\n", Options{}, func(r *strings.Reader, opt Options) (Reader, error) { return NewAccessLogReader(r, "t", opt) }},
		{FormatALB, logALB + "\n", Options{}, func(r *strings.Reader, opt Options) (Reader, error) { return NewALBReader(r, "t", opt) }},
		{FormatCloudFront, cfHeader + logCloudFront + "\n", Options{}, func(r *strings.Reader, opt Options) (Reader, error) {
			return NewW3CReader(r, "t", FormatCloudFront, opt)
		}},
		{FormatW3C, iisHeader + logIIS + "\n", Options{Key: "user"}, func(r *strings.Reader, opt Options) (Reader, error) {
			return NewW3CReader(r, "t", FormatW3C, opt)
		}},
		{FormatHAProxy, logHAProxy + "\n", Options{}, func(r *strings.Reader, opt Options) (Reader, error) { return NewHAProxyReader(r, "t", opt) }},
		{FormatRegex, "a 1\n", Options{Pattern: `^(?P<key>\S+) (?P<ts>\S+)`}, func(r *strings.Reader, opt Options) (Reader, error) {
			return NewRegexReader(r, "t", opt)
		}},
	} {
		r, err := tt.new(strings.NewReader(tt.data), tt.opt)
		if err != nil {
			t.Fatalf("%v: %v", tt.f, err)
		}
		got, err := readAll(r)
		if err != nil || len(got) != 1 || FormatOf(r) != tt.f {
			t.Errorf("%v: New: format %v, %v, %v", tt.f, FormatOf(r), got, err)
		}
		r, err = newStreamReader(tt.f, strings.NewReader(tt.data), "t", tt.opt)
		if err != nil {
			t.Fatalf("%v: %v", tt.f, err)
		}
		table, err := readAll(r)
		if err != nil || len(table) != 1 || table[0].T != got[0].T || string(table[0].Key) != string(got[0].Key) || FormatOf(r) != tt.f {
			t.Errorf("%v: the table's: format %v, %v, %v; New's %v", tt.f, FormatOf(r), table, err, got)
		}
	}
	if _, err := NewW3CReader(strings.NewReader(""), "t", FormatALB, Options{}); errString(err) != "traces: alb is not a W3C extended log format" {
		t.Errorf("NewW3CReader(alb) = %v", err)
	}
}
