package traces

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const logHAProxyTCP = `Feb  9 10:22:30 lb1 haproxy[1234]: 10.0.1.9:40000 [09/Feb/2024:10:22:30.000] tcp-in be/srv1 0/0/5007 212 -- 0/0/0/0/3 0/0`

// openSniffed opens in (written to a file of the given name, or on
// standard input when name is "") with FormatAuto and reads it all.
func openSniffed(t *testing.T, name, in string, opt Options) (f Format, got []Request, skipped int64, err error) {
	t.Helper()
	var r Reader
	if name == "" {
		r, err = openStream(strings.NewReader(in), "stdin", FormatAuto, opt)
	} else {
		path := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(path, []byte(in), 0o644); err != nil {
			t.Fatal(err)
		}
		r, err = Open(path, FormatAuto, opt)
	}
	if err != nil {
		return FormatAuto, nil, 0, err
	}
	defer r.Close()
	got, err = readAll(r)
	skipped, _ = r.(SkipCounter).Skipped()
	return FormatOf(r), got, skipped, err
}

// trimDir removes the directory of the test's files from an error.
func trimDir(err error) string {
	s := errString(err)
	if i := strings.Index(s, "/sniff"); i >= 0 {
		if j := strings.LastIndex(s[:i], " "); j >= 0 {
			return s[:j+1] + s[i+1:]
		}
		return s[i+1:]
	}
	return s
}

// An HAProxy log that opens with more TCP-mode lines than a few is told
// by its first HTTP line, however far (within the look-ahead): its reader
// reads the HTTP lines with SkipBad, skipping the TCP ones, and without
// stops at line 1 saying what it is.
func TestSniffHAProxyAfterTCPLines(t *testing.T) {
	const tcp = 15
	in := strings.Repeat(logHAProxyTCP+"\n", tcp) + logHAProxySys + "\n" + logHAProxySys + "\n"
	for _, name := range []string{"sniff", "sniff.log", ""} {
		f, got, skipped, err := openSniffed(t, name, in, Options{SkipBad: true})
		if f != FormatHAProxy || len(got) != 2 || skipped != tcp || err != nil {
			t.Errorf("%q, SkipBad: format %v, %d requests, %d skipped, %v; want HAProxy, 2, %d, none", name, f, len(got), skipped, err, tcp)
		}
		f, got, _, err = openSniffed(t, name, in, Options{})
		want := `:1: timers "0/0/5007" are Tw/Tc/Tt: a line of HAProxy's TCP log (option tcplog), not of its HTTP log (option httplog)`
		if f != FormatHAProxy || len(got) != 0 || !strings.HasSuffix(errString(err), want) {
			t.Errorf("%q: format %v, %d requests, %v; want HAProxy, 0, ...%s", name, f, len(got), err, want)
		}
	}
	// The look-ahead reaches line 1000, not 1001.
	for _, n := range []int{sniffMaxLines - 1, sniffMaxLines} {
		in := strings.Repeat("junk\n", n) + logHAProxySys + "\n"
		f, _, skipped, _ := openSniffed(t, "sniff.log", in, Options{SkipBad: true})
		if want := map[bool]Format{true: FormatHAProxy, false: FormatAccessLog}[n < sniffMaxLines]; f != want {
			t.Errorf("%d junk lines then an HAProxy line: format %v (%d skipped), want %v", n, f, skipped, want)
		}
	}
}

// When no line is a good line of any log, the format is the one the lines
// look like, and its error, naming file and line, says so: a one-line ALB
// or HAProxy log with one bad field gets its own format's error, not the
// access log's "no [date] field". With SkipBad it is read as that format,
// every line skipped and counted.
func TestSniffLooksLike(t *testing.T) {
	tcpOnly := strings.Repeat(logHAProxyTCP+"\n", 3)
	tests := []struct {
		name, in string
		f        Format
		err      string
		lines    int64
	}{
		{"alb bad time", strings.Replace(logALB, "2018-07-02T22:23:00.186641Z", "2018-07-02T25:23:00.186641Z", 1) + "\n", FormatALB,
			`:1: looks like an ALB access log, but time "2018-07-02T25:23:00.186641Z" is not a valid RFC 3339 time`, 1},
		{"alb bad status", strings.Replace(logALB, " 200 200 ", " 2000 200 ", 1) + "\n", FormatALB,
			`:1: looks like an ALB access log, but elb_status_code "2000" is not a 3-digit number or "-"`, 1},
		{"haproxy bad status", strings.Replace(logHAProxySys, " 200 2750 ", " 20 2750 ", 1) + "\n", FormatHAProxy,
			`:1: looks like an HAProxy log, but status "20" is not a 3-digit number or -1`, 1},
		{"haproxy bad date", strings.Replace(logHAProxy, "09/Feb/2024", "09/Fev/2024", 1) + "\n", FormatHAProxy,
			`:1: looks like an HAProxy log, but accept date "09/Fev/2024:10:22:33.123" is not a valid time`, 1},
		{"haproxy tcp only", tcpOnly, FormatHAProxy,
			`:1: looks like an HAProxy log, but timers "0/0/5007" are Tw/Tc/Tt: a line of HAProxy's TCP log (option tcplog), not of its HTTP log (option httplog)`, 3},
		{"haproxy, most lines", "x - - [y\n" + tcpOnly, FormatHAProxy, `:1: looks like an HAProxy log, but no client address:port and [accept date]`, 4},
		// The shape of an access log line is a good line (its date is
		// read later), so the reader's error is its own.
		{"access log bad date", `10.0.0.1 - - [32/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 1` + "\n", FormatAccessLog,
			`:1: date "32/Oct/2000:13:55:36 -0700" is not a valid time`, 1},
		{"access log no request", `10.0.0.1 - - [10/Oct/2000:13:55:36 -0700] 200 1` + "\n", FormatAccessLog,
			`:1: looks like an access log, but no "request" field after the date`, 1},
	}
	for _, tt := range tests {
		for _, name := range []string{"sniff", "sniff.log", ""} {
			_, _, _, err := openSniffed(t, name, tt.in, Options{})
			file := map[bool]string{true: "stdin", false: name}[name == ""]
			if got := trimDir(err); got != file+tt.err {
				t.Errorf("%s, %q:\n got %s\nwant %s", tt.name, name, got, file+tt.err)
			}
			f, got, skipped, err := openSniffed(t, name, tt.in, Options{SkipBad: true})
			if f != tt.f || len(got) != 0 || skipped != tt.lines || err != nil {
				t.Errorf("%s, %q, SkipBad: format %v, %d requests, %d skipped, %v; want %v, 0, %d, none",
					tt.name, name, f, len(got), skipped, err, tt.f, tt.lines)
			}
		}
	}
	// Lines that look like nothing: no format under a name that says
	// nothing, the access log's own error in a .log.
	if _, _, _, err := openSniffed(t, "sniff", "junk\n", Options{}); !strings.Contains(errString(err), "cannot tell the trace format") {
		t.Errorf("junk: %v", err)
	}
	if _, _, _, err := openSniffed(t, "sniff.log", "junk\n", Options{}); !strings.HasSuffix(errString(err), "sniff.log:1: no [date] field") {
		t.Errorf("junk.log: %v", err)
	}
}

// The look-ahead stops at sniffMaxBytes, even inside one long line, and
// what it read is read again by the reader.
func TestSniffLongLines(t *testing.T) {
	long := `10.0.0.1 - - [10/Oct/2000:13:55:36 -0700] "GET /` + strings.Repeat("a", 300<<10) + ` HTTP/1.1" 200 1`
	in := strings.Repeat("x\n", 3) + strings.Repeat(long+"\n", 2) + logHAProxy + "\n"
	f, got, skipped, err := openSniffed(t, "", in, Options{SkipBad: true, MaxLine: 1 << 20})
	if f != FormatAccessLog || len(got) != 2 || skipped != 4 || err != nil {
		t.Errorf("format %v, %d requests, %d skipped, %v", f, len(got), skipped, err)
	}
	huge := "x " + strings.Repeat("b", 2<<20) + "\n" + logHAProxy + "\n"
	f, _, _, err = openSniffed(t, "sniff.log", huge, Options{SkipBad: true})
	if f != FormatAccessLog || err != nil {
		t.Errorf("a line over the look-ahead: format %v, %v; want the access log, the line skipped", f, err)
	}
}

// Whatever the lines, telling a log's format never panics, an error names
// the file, and an error saying what the lines look like is that format's
// reader's own error on them.
func FuzzLogSniff(f *testing.F) {
	for _, s := range []string{
		logHAProxyTCP + "\n" + logHAProxySys + "\n",
		logHAProxyTCP + "\n",
		strings.Replace(logALB, " 200 200 ", " 2000 200 ", 1) + "\n",
		logALB + "\n" + logHAProxy + "\n",
		"x - - [y\n" + logHAProxyTCP + "\n",
		"\n\n" + logHAProxyTCP + "\r\n",
		iisHeader + logIIS + "\n",
		"#Remark: x\n" + logCombined + "\n",
	} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, skipBad bool) {
		const name = "fuzz"
		opt := Options{SkipBad: skipBad}
		r, err := openStream(strings.NewReader(string(data)), name, FormatAuto, opt)
		if err != nil {
			if !strings.HasPrefix(err.Error(), name) {
				t.Fatalf("error does not name the file: %v", err)
			}
			msg := err.Error()
			for _, lf := range []Format{FormatAccessLog, FormatALB, FormatHAProxy} {
				prefix := "looks like " + specOf(lf).title + ", but "
				i := strings.Index(msg, prefix)
				if i < 0 {
					continue
				}
				lr, lerr := specOf(lf).open(stream{r: strings.NewReader(string(data)), name: name}, opt)
				if lerr != nil {
					t.Fatal(lerr)
				}
				if lr.Scan() || errString(lr.Err()) != msg[:i]+msg[i+len(prefix):] {
					t.Fatalf("%v, but read as %v: %v", err, lf, lr.Err())
				}
			}
			return
		}
		got, _ := readAll(r)
		r.Close()
		checkRequests(t, got)
	})
}
