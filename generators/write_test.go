package generators

import (
	"bytes"
	"errors"
	"testing"

	"ratebench/traces"
)

// WriteTo writes exactly what a Scan loop gives, in order, across many
// batches, and stops at the first write error.
func TestWriteToMatchesScan(t *testing.T) {
	spec, p := "mix:poisson=0.5,onoff=0.5", Params{Requests: 3*batchSize + 17, Keys: 50, Rate: 2}
	var a, b bytes.Buffer
	g, _ := New(spec, p)
	wa, _ := traces.NewWriter(&a, traces.FormatCSV)
	n, err := g.WriteTo(wa)
	if err != nil || n != p.Requests {
		t.Fatalf("WriteTo = %d, %v", n, err)
	}
	wa.Close()
	g, _ = New(spec, p)
	wb, _ := traces.NewWriter(&b, traces.FormatCSV)
	for g.Scan() {
		wb.Write(g.Request())
	}
	wb.Close()
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("WriteTo and a Scan loop write different traces")
	}

	g, _ = New(spec, p)
	fw := &failingWriter{after: batchSize + 5}
	n, err = g.WriteTo(fw)
	if !errors.Is(err, errFull) || n != batchSize+5 {
		t.Fatalf("WriteTo into a failing writer = %d, %v", n, err)
	}
}

var errFull = errors.New("disk full")

type failingWriter struct{ after, n int }

func (f *failingWriter) Write(traces.Request) error {
	if f.n == f.after {
		return errFull
	}
	f.n++
	return nil
}
func (f *failingWriter) Close() error { return nil }

// WriteTo into a Parquet writer, which takes the batches with their keys
// known by ids, writes the stream of Scan exactly: with every source
// kept, and with only the sending ones (ids are positions among them).
func TestWriteToParquetMatchesScan(t *testing.T) {
	for _, c := range []identityCase{identityCases[0], identityCases[5], identityCases[14], identityCases[16]} {
		var buf bytes.Buffer
		g, _ := New(c.spec, c.p)
		w := traces.NewParquetWriter(&buf)
		n, err := g.WriteTo(w)
		if err != nil || n != c.p.Requests {
			t.Fatalf("%s: WriteTo = %d, %v", c.spec, n, err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		r, err := traces.NewParquetReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()), "t.parquet", traces.Options{})
		if err != nil {
			t.Fatal(err)
		}
		g, _ = New(c.spec, c.p)
		for g.Scan() {
			if !r.Scan() {
				t.Fatalf("%s: the file ends at request %d: %v", c.spec, g.Pos().Row, r.Err())
			}
			got, want := r.Request(), g.Request()
			if got.T != want.T || got.Cost != want.Cost || !bytes.Equal(got.Key, want.Key) {
				t.Fatalf("%s: request %d is %+v, want %+v", c.spec, g.Pos().Row, got, want)
			}
		}
		if r.Scan() || r.Err() != nil {
			t.Fatalf("%s: the file goes on past the trace, or fails: %v", c.spec, r.Err())
		}
		r.Close()
	}
}
