package compare

// ownExtra is what a run with a history of its own keeps of a key only
// for a while, for its burst (burstAcc): under count accepted its
// disagreements with the reference still in the window, as signed costs
// (+cost over, -cost under), under count all its admissions in the window
// while one of its refusals is there; in time order, in a smallWindow of
// keyRows.extras. A key holds one only while it needs it, as most keys,
// most of the time, do not: its ownRun keeps the handle.
type ownExtra = smallWindow

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
		r.dropExtra(o)
	}
}

// dropExtra frees the ownExtra of the key whose row in the run is o, if
// it has one.
func (r runRows) dropExtra(o *ownRun) {
	if o.extra != 0 {
		r.rows.extras.drop(o.extra)
		o.extra = 0
	}
}
