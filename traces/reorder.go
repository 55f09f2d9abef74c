package traces

import (
	"container/heap"
	"fmt"
	"time"
)

// Reorder returns a reader that gives r's requests in time order, as long
// as none arrives more than d after a later one: it holds the requests
// within d of the latest time seen and releases the earliest first (in file
// order among equal times). Memory is bounded by the requests of a span d.
//
// It asks no more of the trace than a replay without it, which needs time
// order within each key only: a request that arrives more than d late, after
// later requests of other keys were released, is released as it comes. A
// key's requests keep their order whenever the trace has it; a key whose
// time goes backwards by more than the window comes out so, for the replay
// to report.
//
// When r is a reader of this package, its Options.Cancel also stops the
// filling of the buffer, which may read a long span without a request to
// release.
func Reorder(r Reader, d time.Duration) Reader {
	ir, _ := r.(interruptible)
	// Before the first Scan, Pos names the file, as the reader's own does.
	return &reorderReader{in: r, d: int64(d), ir: ir, cur: held{pos: Position{File: r.Pos().File}}}
}

type reorderReader struct {
	in     Reader
	ir     interruptible // in, when it can tell it was cancelled
	d      int64
	h      heldHeap
	seq    int64
	latest int64 // the latest time read
	cur    held
	err    error
	eof    bool
}

// traceFormat is the format of the trace r sorts.
func (r *reorderReader) traceFormat() Format { return FormatOf(r.in) }

// held is a request waiting in the buffer, with its own copy of the key,
// and how late it came: the latest time read before it, less its own (0 if
// it was not before).
type held struct {
	req  Request
	pos  Position
	seq  int64
	late int64
}

// Lateness is implemented by the reader Reorder returns, for the errors of
// a replay it did not put in order: Late is how late the current request
// came, the latest time read before it (in file order) less its own, 0 if
// it was the latest; a window of Late would have put it in order. Window
// is the reorder window.
type Lateness interface {
	Late() int64
	Window() time.Duration
}

func (r *reorderReader) Late() int64           { return r.cur.late }
func (r *reorderReader) Window() time.Duration { return time.Duration(r.d) }

func (r *reorderReader) Scan() bool {
	if r.err != nil {
		return false
	}
	for !r.eof && (len(r.h) == 0 || r.h[0].req.T > r.latest-r.d) {
		if !r.in.Scan() {
			r.eof = true
			if err := r.in.Err(); err != nil {
				r.err = err
				return false
			}
			break
		}
		if r.seq&4095 == 4095 && r.ir != nil && r.ir.interrupted() {
			r.err = fmt.Errorf("%v: %w", r.in.Pos(), ErrInterrupted)
			return false
		}
		q := r.in.Request()
		q.Key = append([]byte(nil), q.Key...)
		heap.Push(&r.h, held{req: q, pos: r.in.Pos(), seq: r.seq, late: max(0, r.latest-q.T)})
		r.seq++
		r.latest = max(r.latest, q.T)
	}
	if len(r.h) == 0 {
		return false
	}
	r.cur = heap.Pop(&r.h).(held)
	return true
}

func (r *reorderReader) Request() Request { return r.cur.req }
func (r *reorderReader) Pos() Position    { return r.cur.pos }
func (r *reorderReader) Err() error       { return r.err }
func (r *reorderReader) Close() error     { return r.in.Close() }

// Skipped returns what the underlying reader skipped.
func (r *reorderReader) Skipped() (int64, []*ParseError) {
	if sc, ok := r.in.(SkipCounter); ok {
		return sc.Skipped()
	}
	return 0, nil
}

// heldHeap orders held requests by time, then arrival.
type heldHeap []held

func (h heldHeap) Len() int { return len(h) }
func (h heldHeap) Less(i, j int) bool {
	return h[i].req.T < h[j].req.T || (h[i].req.T == h[j].req.T && h[i].seq < h[j].seq)
}
func (h heldHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *heldHeap) Push(x any)   { *h = append(*h, x.(held)) }
func (h *heldHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
