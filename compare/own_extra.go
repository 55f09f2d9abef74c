package compare

import (
	"ratebench/algorithms"
	"ratebench/internal/slicesx"
)

// ownExtra is what a run with a history of its own keeps of a key only
// for a while: its disagreements with the reference still in the window
// (burstAcc). A key holds one only while it has some, as most keys, most
// of the time, have none: its ownRun keeps the handle.
type ownExtra struct {
	dis algorithms.WindowSum // +cost over, -cost under
}

// ownExtras holds the ownExtras in use by handle (1 + index), and gives
// those freed, their windows' rings with them, to the next.
type ownExtras struct {
	all  slicesx.Chunked[ownExtra] // never moves: an ownExtra's address stays valid
	free []uint32
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
	e.dis.Clear()
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
	if x.dis.Len() == 0 {
		r.rows.extras.drop(o.extra)
		o.extra = 0
	}
}
