package compare

import (
	"ratebench/algorithms"
	"ratebench/internal/slicesx"
)

// smallWindow is one key's window of entries (time, signed cost) in time
// order, for what a key holds only for a while and then only a few of (a
// run's disagreements with the reference, the log's refusals in the
// window): up to smallInline of them in itself, 48 bytes, while their
// costs fit 32 bits, and past that, until it is dropped, in a WindowSum of
// its pool's spills. Its pool, smallWindows, holds it by handle. (A
// WindowSum and its rings took some 160 bytes for the one or two entries
// most such windows hold.)
type smallWindow struct {
	t     [smallInline]int64 // the entries' times, while spill is 0
	c     [smallInline]int32 // and their costs
	n     uint8              // how many of them
	spill uint32             // the handle of the WindowSum in smallWindows.spills that holds them instead; 0 none
}

// smallInline is how many entries a smallWindow holds itself.
const smallInline = 3

// expire drops the entries at or before cutoff.
func (e *smallWindow) expire(x *smallWindows, cutoff int64) {
	if e.spill != 0 {
		x.spills.At(e.spill).Expire(cutoff)
		return
	}
	k := uint8(0)
	for k < e.n && e.t[k] <= cutoff {
		k++
	}
	if k > 0 {
		copy(e.t[:], e.t[k:e.n])
		copy(e.c[:], e.c[k:e.n])
		e.n -= k
	}
}

// add appends an entry at t (not before the newest) of cost c.
func (e *smallWindow) add(x *smallWindows, t, c int64) {
	if e.spill == 0 && e.n < smallInline && c == int64(int32(c)) {
		e.t[e.n], e.c[e.n] = t, int32(c)
		e.n++
		return
	}
	if e.spill == 0 {
		var w *algorithms.WindowSum
		e.spill, w = x.spills.New()
		for i := range e.n {
			w.Add(e.t[i], int64(e.c[i]))
		}
		e.n = 0
	}
	x.spills.At(e.spill).Add(t, c)
}

// sum returns the cost of the entries held.
func (e *smallWindow) sum(x *smallWindows) int64 {
	if e.spill != 0 {
		return x.spills.At(e.spill).Sum()
	}
	var s int64
	for i := range e.n {
		s += int64(e.c[i])
	}
	return s
}

// empty reports whether it holds no entry.
func (e *smallWindow) empty(x *smallWindows) bool {
	if e.spill != 0 {
		return x.spills.At(e.spill).Len() == 0
	}
	return e.n == 0
}

// newest returns the time of the newest entry; it must not be empty.
func (e *smallWindow) newest(x *smallWindows) int64 {
	if e.spill != 0 {
		return x.spills.At(e.spill).Newest()
	}
	return e.t[e.n-1]
}

// smallWindows holds smallWindows by handle (1 + index), and gives those
// dropped to the next.
type smallWindows struct {
	all    slicesx.Chunked[smallWindow] // never moves: a window's address stays valid
	free   []uint32
	spills algorithms.WindowPool // the entries of the windows that hold more than smallInline (smallWindow.spill)
}

// at returns the window of handle h (not 0).
func (x *smallWindows) at(h uint32) *smallWindow { return x.all.At(int(h - 1)) }

// make returns the handle of an empty window.
func (x *smallWindows) make() uint32 {
	if n := len(x.free); n > 0 {
		h := x.free[n-1]
		x.free = x.free[:n-1]
		return h
	}
	x.all.Grow(x.all.Len() + 1)
	return uint32(x.all.Len())
}

// drop empties the window of handle h and frees the handle.
func (x *smallWindows) drop(h uint32) {
	e := x.at(h)
	if e.spill != 0 {
		x.spills.Free(e.spill)
	}
	*e = smallWindow{}
	x.free = append(x.free, h)
}

// inUse returns how many windows are in use.
func (x *smallWindows) inUse() int { return x.all.Len() - len(x.free) }
