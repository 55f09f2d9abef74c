package traces

import (
	"container/heap"
	"fmt"
	"time"
)

// Reorder returns a reader that gives r's requests in time order, as long
// as none arrives more than d after a later one: it holds the requests
// within d of the latest time seen and releases the earliest first (in file
// order among equal times). A request older than one already released is a
// *ParseError naming its line, or, with skipBad, a skipped record. Memory is
// bounded by the requests of a span d.
func Reorder(r Reader, d time.Duration, skipBad bool) Reader {
	return &reorderReader{in: r, d: int64(d), skipBad: skipBad, released: -1 << 63}
}

type reorderReader struct {
	in       Reader
	d        int64
	skipBad  bool
	h        heldHeap
	seq      int64
	latest   int64 // the latest time read
	released int64 // the time of the last request released
	cur      held
	err      error
	eof      bool
	skipped  int64
	examples []*ParseError
}

// held is a request waiting in the buffer, with its own copy of the key.
type held struct {
	req Request
	pos Position
	seq int64
}

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
		q := r.in.Request()
		if q.T < r.released {
			e := &ParseError{Pos: r.in.Pos(), Msg: fmt.Sprintf("time %d is %v before a request already released at %d: more than the -reorder window %v out of order",
				q.T, time.Duration(r.released-q.T), r.released, time.Duration(r.d))}
			if !r.skipBad {
				r.err = e
				return false
			}
			r.skipped++
			if len(r.examples) < MaxSkipExamples {
				r.examples = append(r.examples, e)
			}
			continue
		}
		q.Key = append([]byte(nil), q.Key...)
		heap.Push(&r.h, held{req: q, pos: r.in.Pos(), seq: r.seq})
		r.seq++
		r.latest = max(r.latest, q.T)
	}
	if len(r.h) == 0 {
		return false
	}
	r.cur = heap.Pop(&r.h).(held)
	r.released = r.cur.req.T
	return true
}

func (r *reorderReader) Request() Request { return r.cur.req }
func (r *reorderReader) Pos() Position    { return r.cur.pos }
func (r *reorderReader) Err() error       { return r.err }
func (r *reorderReader) Close() error     { return r.in.Close() }

// Skipped adds the requests dropped for arriving too late to what the
// underlying reader skipped.
func (r *reorderReader) Skipped() (int64, []*ParseError) {
	n, first := int64(0), []*ParseError(nil)
	if sc, ok := r.in.(interface {
		Skipped() (int64, []*ParseError)
	}); ok {
		n, first = sc.Skipped()
	}
	first = append(first, r.examples...)
	if len(first) > MaxSkipExamples {
		first = first[:MaxSkipExamples]
	}
	return n + r.skipped, first
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
