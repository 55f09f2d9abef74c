package compare

import (
	"ratebench/algorithms"
	"ratebench/internal/slicesx"
)

// smallWindow is one key's window of entries (time, signed cost) in time
// order, for what a key holds only for a while and then only a few of (a
// run's disagreements with the reference, the log's refusals in the
// window): up to smallInline of them in itself, in one cache line, while
// their times lie within smallSpan of one another and their costs fit a
// smallCost, and past that, until it is dropped, in a WindowSum of its
// pool's spills. Its pool, smallWindows, holds it by handle. (A WindowSum
// and its rings take some 160 bytes for the one or two entries most such
// windows hold; a window of three 64-bit times spilled at the fourth,
// which a key the log refuses five times in the window reaches.)
type smallWindow struct {
	base  int64               // the time the entries' offsets count from, at or before the oldest
	lo    [smallInline]uint32 // an entry's offset from base: hi<<32 | lo, below smallSpan
	spill uint32              // the handle of the WindowSum in smallWindows.spills that holds the entries instead; 0 none
	hi    [smallInline]uint16
	c     [smallInline]smallCost // the entries' costs
	n     uint8                  // how many entries it holds itself
}

// smallInline is how many entries a smallWindow holds itself: as many as
// fit 64 bytes.
const smallInline = 7

// smallCost is the cost of an entry a smallWindow holds itself: the
// disagreements and refusals of a trace of unit costs are ±1.
type smallCost = int8

// smallSpan bounds the offsets of a smallWindow's entries from its base:
// 2^48 ns, over 78 hours, as algorithms.KeyEntries.
const smallSpan = 1 << 48

// at returns the time of entry i.
func (e *smallWindow) at(i uint8) int64 { return e.base + int64(uint64(e.hi[i])<<32|uint64(e.lo[i])) }

// set puts an entry at time t, within smallSpan after the base, in slot i.
func (e *smallWindow) set(i uint8, t int64) {
	off := uint64(t - e.base)
	e.lo[i], e.hi[i] = uint32(off), uint16(off>>32)
}

// reaches reports whether the window can hold an entry at t, no earlier
// than its newest, moving its base up to its oldest entry if it must.
func (e *smallWindow) reaches(t int64) bool {
	if e.n == 0 {
		e.base = t
		return true
	}
	if uint64(t-e.base) < smallSpan {
		return true
	}
	oldest := e.at(0)
	if uint64(t-oldest) >= smallSpan {
		return false
	}
	for i := range e.n {
		e.set(i, e.at(i)-(oldest-e.base)) // its offset from oldest
	}
	e.base = oldest
	return true
}

// expire drops the entries at or before cutoff.
func (e *smallWindow) expire(x *smallWindows, cutoff int64) {
	if e.spill != 0 {
		x.spills.At(e.spill).Expire(cutoff)
		return
	}
	k := uint8(0)
	for k < e.n && e.at(k) <= cutoff {
		k++
	}
	if k > 0 {
		copy(e.lo[:], e.lo[k:e.n])
		copy(e.hi[:], e.hi[k:e.n])
		copy(e.c[:], e.c[k:e.n])
		e.n -= k
	}
}

// add appends an entry at t (not before the newest) of cost c.
func (e *smallWindow) add(x *smallWindows, t, c int64) {
	if e.spill == 0 && e.n < smallInline && c == int64(smallCost(c)) && e.reaches(t) {
		e.set(e.n, t)
		e.c[e.n] = smallCost(c)
		e.n++
		return
	}
	if e.spill == 0 {
		var w *algorithms.WindowSum
		e.spill, w = x.spills.New()
		for i := range e.n {
			w.Add(e.at(i), int64(e.c[i]))
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
	return e.at(e.n - 1)
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
