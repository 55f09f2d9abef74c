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
