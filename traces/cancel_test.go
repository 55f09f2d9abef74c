package traces

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

// stopsWithin runs scan, closes cancel after a moment, and fails unless
// scan returns within a second of that.
func stopsWithin(t *testing.T, cancel chan struct{}, scan func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		scan()
	}()
	select {
	case <-done:
		t.Fatal("returned before the cancel")
	case <-time.After(50 * time.Millisecond):
	}
	close(cancel)
	select {
	case <-done:
	case <-time.After(time.Second):
		t.Fatal("still reading a second after the cancel")
	}
}

// A reader waiting on a pipe where nothing comes stops when cancelled.
func TestCancelStalledPipe(t *testing.T) {
	firsts := map[Format]string{
		FormatCSV:       "ts,key\n1,a\n",
		FormatJSONL:     `{"ts":1,"key":"a"}` + "\n",
		FormatAccessLog: logCommon + "\n",
	}
	for f, first := range logFirstLines {
		firsts[f] = first
	}
	for f, first := range firsts {
		pr, pw := io.Pipe()
		go pw.Write([]byte(first)) // then nothing, and no end
		cancel := make(chan struct{})
		r, err := newStreamReader(f, pr, "t", Options{Cancel: cancel})
		if err != nil {
			t.Fatal(err)
		}
		if !r.Scan() {
			t.Fatalf("%v: %v", f, r.Err())
		}
		stopsWithin(t, cancel, func() {
			if r.Scan() {
				t.Errorf("%v: read a request from nothing", f)
			}
		})
		want := fmt.Sprintf("t:%d: reading interrupted", strings.Count(first, "\n")+1) // the line it waits for
		if err := r.Err(); !errors.Is(err, ErrInterrupted) || err.Error() != want {
			t.Errorf("%v: %v, want %s", f, err, want)
		}
	}
}

// Opening a stream that stalls before a byte (standard input, say) stops
// when cancelled; so does a compressed one that stalls mid-stream.
func TestCancelStalledStream(t *testing.T) {
	pr, _ := io.Pipe()
	cancel := make(chan struct{})
	stopsWithin(t, cancel, func() {
		if _, err := openStream(pr, "stdin", FormatAuto, Options{Cancel: cancel}); !errors.Is(err, ErrInterrupted) {
			t.Errorf("open: %v", err)
		}
	})

	pr, pw := io.Pipe()
	go func() {
		zw := gzip.NewWriter(pw)
		zw.Write([]byte(`{"ts":1,"key":"a"}` + "\n"))
		zw.Flush() // then nothing, and no end
	}()
	cancel = make(chan struct{})
	r, err := openStream(pr, "stdin", FormatAuto, Options{Cancel: cancel})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Scan() {
		t.Fatal(r.Err())
	}
	stopsWithin(t, cancel, func() { r.Scan() })
	if err := r.Err(); !errors.Is(err, ErrInterrupted) || err.Error() != "stdin:2: reading interrupted" {
		t.Errorf("gzip: %v", err)
	}
}

// A run of bad records that SkipBad skips stops when cancelled: a stream of
// them that never ends, and the rows of a Parquet file.
func TestCancelSkipBadRun(t *testing.T) {
	in := &endless{prefix: []byte("ts,key\n"), chunk: []byte("x,a\n"), limit: 1 << 30}
	cancel := make(chan struct{})
	r, err := NewCSVReader(in, "t", Options{SkipBad: true, Cancel: cancel})
	if err != nil {
		t.Fatal(err)
	}
	stopsWithin(t, cancel, func() { r.Scan() })
	if err := r.Err(); !errors.Is(err, ErrInterrupted) {
		t.Errorf("csv: %v", err)
	}

	rows := make([]pqCost, 5000)
	for i := range rows {
		rows[i] = pqCost{int64(i), "k", 0}
	}
	cancel = make(chan struct{})
	close(cancel)
	data := writeParquetRows(t, rows)
	p, err := NewParquetReader(bytes.NewReader(data), int64(len(data)), "t.parquet", Options{SkipBad: true, Cancel: cancel})
	if err != nil {
		t.Fatal(err)
	}
	if p.Scan() {
		t.Fatal("read a bad row")
	}
	if n, _ := p.Skipped(); !errors.Is(p.Err(), ErrInterrupted) || p.Err().Error() != "t.parquet: row 1: reading interrupted" || n != 0 {
		t.Errorf("parquet: %v after %d skipped", p.Err(), n)
	}
}

// Reorder filling its buffer stops when its reader is cancelled.
func TestCancelReorder(t *testing.T) {
	rows := make([]pqPlain, 10000)
	for i := range rows {
		rows[i] = pqPlain{int64(i), "k"}
	}
	data := writeParquetRows(t, rows)
	cancel := make(chan struct{})
	close(cancel)
	p, err := NewParquetReader(bytes.NewReader(data), int64(len(data)), "t.parquet", Options{Cancel: cancel})
	if err != nil {
		t.Fatal(err)
	}
	r := Reorder(p, time.Hour)
	if r.Scan() || !errors.Is(r.Err(), ErrInterrupted) {
		t.Errorf("Reorder: %v", r.Err())
	}
}
