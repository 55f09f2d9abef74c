package compare

import (
	"ratebench/algorithms"
	"ratebench/internal/slicesx"
)

// ownExtra is what a run with a history of its own keeps of a key only
// for a while: its disagreements with the reference still in the window
// (burstAcc), as signed costs (+cost over, -cost under) in time order. A
// key holds one only while it has some, as most keys, most of the time,
// have none: its ownRun keeps the handle. Up to disInline of them sit in
// the ownExtra itself, 56 bytes; past that, until the key holds none,
// they are in a WindowSum of ownExtras.spills (a WindowSum and its rings
// took some 160 bytes for the one or two most keys hold).
type ownExtra struct {
	t, c  [disInline]int64 // the disagreements' times and signed costs, while spill is 0
	n     uint8            // how many of them
	spill uint32           // the handle of the WindowSum that holds them instead; 0 none
}

// disInline is how many disagreements an ownExtra holds itself.
const disInline = 3

// expire drops the disagreements at or before cutoff.
func (e *ownExtra) expire(x *ownExtras, cutoff int64) {
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

// add appends a disagreement at t (not before the newest) of signed cost c.
func (e *ownExtra) add(x *ownExtras, t, c int64) {
	if e.spill == 0 && e.n < disInline {
		e.t[e.n], e.c[e.n] = t, c
		e.n++
		return
	}
	if e.spill == 0 {
		var w *algorithms.WindowSum
		e.spill, w = x.spills.New()
		for i := range e.n {
			w.Add(e.t[i], e.c[i])
		}
		e.n = 0
	}
	x.spills.At(e.spill).Add(t, c)
}

// sum returns the signed cost of the disagreements held.
func (e *ownExtra) sum(x *ownExtras) int64 {
	if e.spill != 0 {
		return x.spills.At(e.spill).Sum()
	}
	var s int64
	for i := range e.n {
		s += e.c[i]
	}
	return s
}

// empty reports whether it holds no disagreement.
func (e *ownExtra) empty(x *ownExtras) bool {
	if e.spill != 0 {
		return x.spills.At(e.spill).Len() == 0
	}
	return e.n == 0
}

// ownExtras holds the ownExtras in use by handle (1 + index), and gives
// those freed to the next.
type ownExtras struct {
	all    slicesx.Chunked[ownExtra] // never moves: an ownExtra's address stays valid
	free   []uint32
	spills algorithms.WindowPool // the disagreements of the ownExtras that hold more than disInline (ownExtra.spill)
}

// at returns the ownExtra of handle h (not 0).
func (x *ownExtras) at(h uint32) *ownExtra { return x.all.At(int(h - 1)) }

// make returns the handle of an empty ownExtra.
func (x *ownExtras) make() uint32 {
	if n := len(x.free); n > 0 {
		h := x.free[n-1]
		x.free = x.free[:n-1]
		return h
	}
	x.all.Grow(x.all.Len() + 1)
	return uint32(x.all.Len())
}

// drop empties the ownExtra of handle h and frees the handle.
func (x *ownExtras) drop(h uint32) {
	e := x.at(h)
	if e.spill != 0 {
		x.spills.Free(e.spill)
	}
	*e = ownExtra{}
	x.free = append(x.free, h)
}

// extra returns the ownExtra of the key whose row in the run is o, nil if
// it has none.
func (r runRows) extra(o *ownRun) *ownExtra {
	if o.extra == 0 {
		return nil
	}
	return r.rows.extras.at(o.extra)
}

// needExtra returns the ownExtra of the key whose row in the run is o,
// made if it has none.
func (r runRows) needExtra(o *ownRun) *ownExtra {
	if o.extra == 0 {
		o.extra = r.rows.extras.make()
	}
	return r.rows.extras.at(o.extra)
}

// tidy frees x, the ownExtra of the key whose row in the run is o, if it
// holds nothing.
func (r runRows) tidy(o *ownRun, x *ownExtra) {
	if x.empty(&r.rows.extras) {
		r.rows.extras.drop(o.extra)
		o.extra = 0
	}
}
