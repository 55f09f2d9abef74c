package traces

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The shape of a log that none of the log readers reads: a client, a
// ctime date, a path in parentheses.
const ctimePattern = `^(?P<key>[^:]+): (?P<ts>\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4}) \((?P<path>[^)]*)\):`

func TestRegexReader(t *testing.T) {
	in := "in24.inetnebr.com: Tue Aug 22 00:00:01 1995 (/shuttle/missions/sts-68/news/sts-68-mcc-05.txt): 200 1839\n" +
		"uplherc.upl.com: Tue Aug 22 00:00:07 1995 (/): 304 0\n" +
		"in24.inetnebr.com: Tue Aug 22 00:00:09 1995 (/images/ksclogo-medium.gif): 200 5866\n"
	opt := Options{Pattern: ctimePattern, TSFormat: "%a %b %d %H:%M:%S %Y"}
	got, err := read(FormatRegex, []byte(in), "t", opt)
	base := time.Date(1995, 8, 22, 0, 0, 0, 0, time.UTC).UnixNano()
	want := []Request{{base + 1e9, []byte("in24.inetnebr.com"), 1}, {base + 7e9, []byte("uplherc.upl.com"), 1}, {base + 9e9, []byte("in24.inetnebr.com"), 1}}
	if err != nil || !equalRequests(got, want) {
		t.Fatalf("got %v, %v", got, err)
	}
	// The groups named by -ts, -key and -cost; ts in the default forms; a
	// cost group that matches nothing is 1.
	in = "t=1700000000.5 user=bob n=3\nt=1700000001 user=amy\n"
	got, err = read(FormatRegex, []byte(in), "t", Options{Pattern: `t=(?P<time>\S+) user=(?P<who>\S+)(?: n=(?P<n>\d+))?`, TS: "time", Key: "who", Cost: "n"})
	want = []Request{{1700000000.5e9, []byte("bob"), 3}, {1700000001e9, []byte("amy"), 1}}
	if err != nil || !equalRequests(got, want) {
		t.Fatalf("named groups: %v, %v", got, err)
	}
	// Integer times in the unit of -ts-unit, or the first one's magnitude.
	got, err = read(FormatRegex, []byte("1700000000123 a\n1700000000124 b\n"), "t", Options{Pattern: `(?P<ts>\d+) (?P<key>\w+)`})
	if err != nil || len(got) != 2 || got[1].T != 1700000000124e6 {
		t.Fatalf("auto unit: %v, %v", got, err)
	}
	if r, err := NewRegexReader(strings.NewReader("1700000000123 a\n"), "t", Options{Pattern: `(?P<ts>\d+) (?P<key>\w+)`}); err != nil || !r.Scan() ||
		TimeUnitOf(r) != (TimeUnit{Unit: time.Millisecond, From: "auto"}) {
		t.Fatalf("time unit: %v", err)
	}
}

// Every bad line names the file and the line; -skip-bad skips and counts
// the lines the pattern does not match.
func TestRegexReaderBadLines(t *testing.T) {
	opt := Options{Pattern: `^(?P<ts>\S+) (?P<key>\S*)(?: (?P<cost>\S+))?$`}
	in := "1 a\nwrapped line of text\n2 b 0\n3 c x\n4\n5 \xff\n-1 d\n6  \n7 e\n"
	got, err := read(FormatRegex, []byte(in), "t.log", opt)
	if len(got) != 1 || err == nil || err.Error() != "t.log:2: "+errNoMatch {
		t.Fatalf("got %v, %v", got, err)
	}
	got, n, msgs, err := readSkipping(t, FormatRegex, []byte(in), opt)
	wantMsgs := []string{"t:2: " + errNoMatch, `t:3: cost "0" is not positive`, `t:4: cost "x" is not an integer`, "t:5: " + errNoMatch,
		"t:6: key is not valid UTF-8", "t:7: ts \"-1\" is negative", "t:8: " + errNoMatch}
	if err != nil || n != 7 || strings.Join(msgs, "\n") != strings.Join(wantMsgs, "\n") ||
		!equalRequests(got, []Request{{1, []byte("a"), 1}, {7, []byte("e"), 1}}) {
		t.Fatalf("skipping %d: %v\n%s", n, err, strings.Join(msgs, "\n"))
	}
	// An empty key group is an empty key, an unmatched one too.
	if _, err := read(FormatRegex, []byte("1 \n"), "t", Options{Pattern: `(?P<ts>\d+) (?P<key>\S*)`}); err == nil || err.Error() != "t:1: empty key" {
		t.Errorf("empty key: %v", err)
	}
	if _, err := read(FormatRegex, []byte("1\n"), "t", Options{Pattern: `(?P<ts>\d+)(?: (?P<key>\S+))?`}); err == nil || err.Error() != "t:1: empty key" {
		t.Errorf("unmatched key: %v", err)
	}
}

// A pattern without the groups of ts and key is refused, naming what it
// lacks; so are options that do not apply.
func TestRegexPatternErrors(t *testing.T) {
	for _, tt := range []struct {
		opt  Options
		want string
	}{
		{Options{}, "traces: -format regex needs -pattern, a regular expression with the named groups (?P<ts>...) and (?P<key>...)"},
		{Options{Pattern: `(`}, "traces: -pattern \"(\": error parsing regexp: missing closing ): `(`"},
		{Options{Pattern: `(?P<ts>\d+) (\w+)`}, `traces: -pattern "(?P<ts>\\d+) (\\w+)" has no group (?P<key>...) (the key, -key)`},
		{Options{Pattern: `\d+ \w+`}, `traces: -pattern "\\d+ \\w+" has no group (?P<ts>...) (the timestamp, -ts) and no group (?P<key>...) (the key, -key)`},
		{Options{Pattern: `(?P<ts>\d+) (?P<key>\w+)`, Key: "client"}, `has no group (?P<client>...) (the key, -key)`},
		{Options{Pattern: `(?P<ts>\d+) (?P<key>\w+)`, Cost: "n"}, `has no group (?P<n>...) (the cost, -cost)`},
		{Options{Pattern: `(?P<ts>\d+) (?P<key>\w+) (?P<key>\w+)`}, `traces: -pattern "(?P<ts>\\d+) (?P<key>\\w+) (?P<key>\\w+)" names the group (?P<key>...) (the key, -key) twice; name it once`},
		{Options{Pattern: `(?P<ts>\d+) (?P<ts>\d+) (?P<key>\w+)`}, `names the group (?P<ts>...) (the timestamp, -ts) twice`},
		{Options{Pattern: `(?P<ts>\d+) (?P<key>\w+) (?P<cost>\d+)?(?P<cost>\d+)`}, `names the group (?P<cost>...) (the cost, -cost) twice`},
		{Options{Pattern: `(?P<ts>\d+) (?P<key>\w+) (?P<n>\d+)?(?P<n>\d+)`, Cost: "n"}, `names the group (?P<n>...) (the cost, -cost) twice`},
		{Options{Pattern: `(?P<ts>\d+) (?P<key>\w+)`, Sep: ','}, "traces: -sep does not apply to -format regex"},
		{Options{Pattern: `(?P<ts>\d+) (?P<key>\w+)`, Columns: []string{"ts"}}, "traces: -columns does not apply to -format regex"},
	} {
		_, err := read(FormatRegex, nil, "t", tt.opt)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: %v\nwant %s", tt.opt, err, tt.want)
		}
	}
	for f, what := range map[Format]string{FormatCSV: "CSV", FormatJSONL: "JSON lines", FormatAccessLog: "an access log", FormatALB: "an ALB access log"} {
		_, err := read(f, nil, "t", Options{Pattern: `(?P<ts>\d+) (?P<key>\w+)`})
		if err == nil || err.Error() != "traces: -pattern applies to -format regex, not to "+what {
			t.Errorf("%v: %v", f, err)
		}
	}
}

// Open reads a file by -pattern whatever its name, FormatAuto included.
func TestOpenRegex(t *testing.T) {
	path := filepath.Join(t.TempDir(), "app.log")
	if err := os.WriteFile(path, []byte("10.0.0.1: Tue Aug 22 00:00:01 1995 (/): 200\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range []Format{FormatAuto, FormatRegex} {
		r, err := Open(path, f, Options{Pattern: ctimePattern, TSFormat: "%a %b %d %H:%M:%S %Y"})
		if err != nil {
			t.Fatal(err)
		}
		if !r.Scan() || string(r.Request().Key) != "10.0.0.1" || FormatOf(r) != FormatRegex || r.Pos() != (Position{File: path, Line: 1}) {
			t.Errorf("%v: %+v %v", f, r.Request(), r.Err())
		}
		r.Close()
	}
	if f, err := ParseFormat("regex"); err != nil || f != FormatRegex || f.String() != "regex" {
		t.Errorf("ParseFormat(regex) = %v, %v", f, err)
	}
	if _, err := Create(filepath.Join(t.TempDir(), "x"), FormatRegex); err == nil || !strings.Contains(err.Error(), "read only") {
		t.Errorf("Create: %v", err)
	}
}

// Reading by a pattern allocates nothing per line of its own: the one
// allocation a line is the index slice of Regexp.FindSubmatchIndex.
func TestRegexReaderAllocs(t *testing.T) {
	line := []byte("in24.inetnebr.com: Tue Aug 22 00:00:01 1995 (/shuttle/missions/sts-68/news/sts-68-mcc-05.txt): 200 1839\n")
	for _, opt := range []Options{
		{Pattern: ctimePattern, TSFormat: "%a %b %d %H:%M:%S %Y"},
		{Pattern: `^(?P<key>[^:]+): (?P<ts>\S+) (?P<cost>\d+)`},
	} {
		in := line
		if opt.TSFormat == "" {
			in = []byte("in24.inetnebr.com: 1700000000.25 3\n")
		}
		r, err := NewRegexReader(bytes.NewReader(bytes.Repeat(in, 3000)), "t", opt)
		if err != nil {
			t.Fatal(err)
		}
		allocs := testing.AllocsPerRun(2000, func() {
			if !r.Scan() {
				t.Fatal(r.Err())
			}
		})
		if allocs > 1 {
			t.Errorf("%q: %v allocations a line, want at most the regexp's 1", opt.Pattern, allocs)
		}
	}
}
