package traces

import (
	"bytes"
	"fmt"
	"io"
	"testing"
)

// readAll drains r, copying the keys.
func readAll(r Reader) ([]Request, error) {
	var out []Request
	for r.Scan() {
		q := r.Request()
		q.Key = bytes.Clone(q.Key)
		out = append(out, q)
	}
	return out, r.Err()
}

// newReader builds a reader of format f over data named name, as the
// format's New function does (TestNewReaders checks they agree).
func newReader(f Format, data []byte, name string, opt Options) (Reader, error) {
	if s := specOf(f); s != nil && s.openAt != nil {
		return s.openAt(bytes.NewReader(data), int64(len(data)), name, opt, nil)
	}
	return newStreamReader(f, bytes.NewReader(data), name, opt)
}

// newStreamReader builds a reader of format f, read as a stream, over r
// named name, as the format's New function does: Close leaves r alone.
func newStreamReader(f Format, r io.Reader, name string, opt Options) (Reader, error) {
	s := specOf(f)
	if s == nil || s.open == nil {
		return nil, fmt.Errorf("format %v is not read as a stream", f)
	}
	return s.open(stream{r: newCancelReader(r, opt.Cancel), name: name}, opt)
}

// read reads a whole trace; a constructor error is returned like a scan
// error.
func read(f Format, data []byte, name string, opt Options) ([]Request, error) {
	r, err := newReader(f, data, name, opt)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return readAll(r)
}

// write encodes reqs in format f.
func write(t testing.TB, f Format, reqs []Request) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, f)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range reqs {
		if err := w.Write(r); err != nil {
			t.Fatalf("%v: Write(%+v): %v", f, r, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatalf("%v: Close: %v", f, err)
	}
	return buf.Bytes()
}

func equalRequests(a, b []Request) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].T != b[i].T || a[i].Cost != b[i].Cost || !bytes.Equal(a[i].Key, b[i].Key) {
			return false
		}
	}
	return true
}

func diffRequests(t *testing.T, got, want []Request) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d requests, want %d", len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.T != w.T || g.Cost != w.Cost || !bytes.Equal(g.Key, w.Key) {
			t.Fatalf("request %d: got {%d %q %d}, want {%d %q %d}", i, g.T, g.Key, g.Cost, w.T, w.Key, w.Cost)
		}
	}
}

// awkwardKeys are keys that stress quoting and escaping.
var awkwardKeys = []string{
	"plain",
	"with,comma",
	`with"quote`,
	`""`,
	`"quoted"`,
	"new\nline",
	"crlf\r\ninside",
	"cr\ronly",
	"trailing\n",
	"\nleading",
	" spaced ",
	"\ttab\t",
	"unicode héllo 世界 🚀",
	"back\\slash",
	"ctrl\x01\x1f",
	"u2028\u2028u2029\u2029",
	"{\"json\":[1,2]}",
	",",
	"\"",
	"a",
}

// awkwardRequests returns n requests cycling through awkwardKeys.
func awkwardRequests(n int) []Request {
	reqs := make([]Request, n)
	for i := range reqs {
		reqs[i] = Request{
			T:    int64(i)*1_000_003 + 1_700_000_000_000_000_000,
			Key:  []byte(awkwardKeys[i%len(awkwardKeys)]),
			Cost: int64(i%5 + 1),
		}
	}
	reqs[0].T = 0
	reqs[n-1].Cost = MaxCost
	return reqs
}

// benchRequests returns n realistic requests: 10,000 keys, increasing ts.
func benchRequests(n int) []Request {
	reqs := make([]Request, n)
	ts := int64(1_700_000_000_000_000_000)
	for i := range reqs {
		ts += int64(i%97)*1000 + 1
		reqs[i] = Request{T: ts, Key: fmt.Appendf(nil, "user-%d", (i*7919)%10000), Cost: int64(i%3 + 1)}
	}
	return reqs
}
