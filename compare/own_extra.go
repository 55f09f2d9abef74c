package compare

import (
	"ratebench/algorithms"
	"ratebench/internal/slicesx"
)

// ownExtra is what a run with a history of its own keeps of a key only
// for a while: its disagreements with the reference still in the window
// (burstAcc) and its open run of rejections (clientAcc). A key holds one
// only while it has either, as most keys, most of the time, have neither:
// its ownRun keeps the handle.
type ownExtra struct {
	dis      algorithms.WindowSum // +cost over, -cost under
	rejSince int64                // 1 + the time of the first rejection of its open run of them; 0 none
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
	e.rejSince = 0
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
	if x.rejSince == 0 && x.dis.Len() == 0 {
		r.rows.extras.drop(o.extra)
		o.extra = 0
	}
}

// rejSince returns 1 + the time of the first rejection of key id's open
// run of them in the run, 0 for none.
func (r runRows) rejSince(id int32) int64 {
	if x := r.extra(r.ownAt(id)); x != nil {
		return x.rejSince
	}
	return 0
}
