package compare

import (
	"math"

	"ratebench/algorithms"
)

// keyRun is what every run with a row keeps of one key and reads or
// writes at its requests, in one 64-bit word: the mark of the last window
// the key's state was counted in (windowGrid.mark, markBits bits; 0 none)
// and its over- and under-admissions (runAcc; countBits bits each, read
// through runRows.counts). A count that reaches its field's narrow limit
// (keyRows.limit, 2^22-1) stays at it and the count itself is kept in
// keyRows.wide, so that none is ever miscounted.
type keyRun struct{ w uint64 }

// The fields of a keyRun.
const (
	markBits  = 20
	countBits = 22
	countMax  = 1<<countBits - 1 // the most a count field holds: the narrow limit of the counts
	overShift = markBits
	undShift  = markBits + countBits
)

// stateEnd returns the mark of the last window the key's state was counted
// in, 0 for none.
func (h *keyRun) stateEnd() uint32 { return uint32(h.w & (1<<markBits - 1)) }

// setStateEnd makes m (below 2^markBits) the mark of the last window the
// key's state was counted in.
func (h *keyRun) setStateEnd(m uint32) { h.w = h.w&^(1<<markBits-1) | uint64(m) }

// agreed reports whether the row counts no over- or under-admission.
func (h *keyRun) agreed() bool { return h.w>>markBits == 0 }

// count returns the value of count field f (wideOver or wideUnder).
func (h *keyRun) count(f wideField) uint32 {
	return uint32(h.w>>countShift(f)) & countMax
}

// setCount makes v (at most countMax) the value of count field f.
func (h *keyRun) setCount(f wideField, v uint32) {
	s := countShift(f)
	h.w = h.w&^(countMax<<s) | uint64(v)<<s
}

// countShift returns the shift of count field f in a keyRun.
func countShift(f wideField) uint {
	if f == wideUnder {
		return undShift
	}
	return overShift
}

// ownRun is what a run with a history of its own (runAcc.burst and
// runAcc.client: the reference, and the candidates that record their own
// decisions) keeps of one key besides its keyRun, 16 bytes. A shadow run
// has none. The open run of rejections is here, not in the ownExtra: a key
// over its limit holds one at nearly every request, and a million of them
// would each take an ownExtra, and a cache miss to reach it.
type ownRun struct {
	peak     uint32 // its burst so far (burstAcc), narrow as keyRun's counts: read through runRows.peak
	extra    uint32 // the handle of its ownExtra in keyRows.extras; 0 none
	rejSince int64  // 1 + the time of the first rejection of its open run of them (clientAcc); 0 none
}

// keptRun is what of a run's rows outlives its key's release, for the
// key's record in the release ledger: its counts, its burst and its open
// run of rejections. The rest follows state that is back to its initial
// value once the key is idle.
type keptRun struct {
	over, under, peak, rejSince int64
}

// keyRows holds, per key, the keyRun of every run of an engine side by
// side, at the start of the key's part of the worker's block, before the
// limiters' states placed there: a request finds what all its runs keep of
// its key, and the state of every placed limiter, in a few adjacent cache
// lines rather than one line per run, per metric and per limiter.
type keyRows struct {
	runs algorithms.PerKey[keyRun] // key id's runs, in the engine's order (Engine.runs)
	own  algorithms.PerKey[ownRun] // and of those with a history of their own, in the same order

	extras smallWindows        // what runs keep of a key only for a while (ownRun.extra)
	wide   map[wideCount]int64 // the counts that reached their field's limit, by key, run and field

	countLimit, peakLimit uint32 // the fields' narrow limits (limit)
}

// wideCount names one count of keyRows.wide: a key's over- or
// under-admissions, or its burst, in one run.
type wideCount struct {
	id, run int32
	field   wideField
}

// wideField is the field of a run's rows a wideCount stands for.
type wideField uint8

const (
	wideOver  wideField = iota // keyRun.over
	wideUnder                  // keyRun.under
	widePeak                   // ownRun.peak
)

// setNarrow sets the fields' narrow limits: countMax for a keyRun's
// counts, 2^32-1 for an ownRun's burst, or narrowMax where it is lower
// (tuning.narrowMax; 0 means none).
func (k *keyRows) setNarrow(narrowMax uint32) {
	k.countLimit, k.peakLimit = countMax, math.MaxUint32
	if narrowMax != 0 {
		k.countLimit, k.peakLimit = min(k.countLimit, narrowMax), min(k.peakLimit, narrowMax)
	}
}

// limit returns the value of field f at which the wide table holds it.
func (k *keyRows) limit(f wideField) uint32 {
	if f == widePeak {
		return k.peakLimit
	}
	return k.countLimit
}

// get returns the count that v, a row's field of w, stands for.
func (k *keyRows) get(v uint32, w wideCount) int64 {
	if v < k.limit(w.field) {
		return int64(v)
	}
	return k.wide[w]
}

// put returns the value of a row's field of w, now v, that stands for x,
// keeping x in the wide table if it reaches the field's limit.
func (k *keyRows) put(v uint32, w wideCount, x int64) uint32 {
	n := k.limit(w.field)
	if x >= int64(n) {
		if k.wide == nil {
			k.wide = map[wideCount]int64{}
		}
		k.wide[w] = x
		return n
	}
	if v == n {
		delete(k.wide, w)
	}
	return uint32(x)
}

// place puts the rows of n runs, owns of them with a history of their
// own, in b.
func (k *keyRows) place(b *algorithms.Block, n, owns int) {
	k.runs = algorithms.NewPerKey[keyRun](max(n, 1))
	k.own = algorithms.NewPerKey[ownRun](max(owns, 1))
	k.runs.Place(b)
	k.own.Place(b)
}

// row returns key id's runs, in the engine's order (Engine.runs).
func (k *keyRows) row(id int32) []keyRun { return k.runs.Row(id) }

// ownRow returns key id's runs with a history of their own, in the
// engine's order.
func (k *keyRows) ownRow(id int32) []ownRun { return k.own.Row(id) }

// ids returns one more than the largest valid id.
func (k *keyRows) ids() int { return k.runs.Len() }

// runRows is one run's column of keyRows.
type runRows struct {
	rows *keyRows
	run  int // the run's index in the engine's order
	own  int // its index among the runs with a history of their own; -1 for none
}

// at returns what the run keeps of key id.
func (r runRows) at(id int32) *keyRun { return &r.rows.row(id)[r.run] }

// counts returns key id's over- and under-admissions in the run.
func (r runRows) counts(id int32) (over, under int64) {
	h := r.at(id)
	return r.rows.get(h.count(wideOver), r.wide(id, wideOver)), r.rows.get(h.count(wideUnder), r.wide(id, wideUnder))
}

// setCount makes key id's count f (wideOver or wideUnder) in the run v.
func (r runRows) setCount(id int32, f wideField, v int64) {
	h := r.at(id)
	h.setCount(f, r.rows.put(h.count(f), r.wide(id, f), v))
}

// wide names key id's field f in the run, in keyRows.wide.
func (r runRows) wide(id int32, f wideField) wideCount { return wideCount{id, int32(r.run), f} }

// count adds a disagreement on a request of key id, whose row in the run
// is h: an under-admission if under, else an over-admission. A run
// without rows (a product's companion: h is its group's scratch row, which
// no figure reads) only counts it there, up to the narrow limit.
func (r runRows) count(h *keyRun, id int32, under bool) {
	f := wideOver
	if under {
		f = wideUnder
	}
	v := h.count(f)
	switch {
	case r.rows == nil:
		if v < countMax {
			h.setCount(f, v+1)
		}
	case v < r.rows.countLimit-1: // the common case: the row holds the count
		h.setCount(f, v+1)
	default:
		w := r.wide(id, f)
		h.setCount(f, r.rows.put(v, w, r.rows.get(v, w)+1))
	}
}

// ownAt returns what the run keeps of key id as a run with a history of
// its own, nil for a run without one.
func (r runRows) ownAt(id int32) *ownRun {
	if r.own < 0 {
		return nil
	}
	return &r.rows.ownRow(id)[r.own]
}

// peak returns key id's burst in the run, which must have a history of
// its own.
func (r runRows) peak(id int32) int64 { return r.rows.get(r.ownAt(id).peak, r.wide(id, widePeak)) }

// raisePeak makes key id's burst, whose row in the run is o, at least v.
func (r runRows) raisePeak(o *ownRun, id int32, v int64) {
	if n := r.rows.peakLimit; o.peak < n && v < int64(n) { // the common case: both fit the row
		o.peak = max(o.peak, uint32(v))
		return
	}
	if w := r.wide(id, widePeak); v > r.rows.get(o.peak, w) {
		o.peak = r.rows.put(o.peak, w, v)
	}
}

// setPeak makes key id's burst in the run v.
func (r runRows) setPeak(id int32, v int64) {
	o := r.ownAt(id)
	o.peak = r.rows.put(o.peak, r.wide(id, widePeak), v)
}

// kept returns what of key id's rows outlives its release.
func (r runRows) kept(id int32) keptRun {
	var k keptRun
	k.over, k.under = r.counts(id)
	if o := r.ownAt(id); o != nil {
		k.peak, k.rejSince = r.peak(id), o.rejSince
	}
	return k
}

// restore gives key id's rows back what they kept.
func (r runRows) restore(id int32, k keptRun) {
	r.setCount(id, wideOver, k.over)
	r.setCount(id, wideUnder, k.under)
	if o := r.ownAt(id); o != nil {
		r.setPeak(id, k.peak)
		o.rejSince = k.rejSince
	}
}

// reset clears key id's rows and frees its ownExtra.
func (r runRows) reset(id int32) {
	r.restore(id, keptRun{}) // drops its wide counts
	*r.at(id) = keyRun{}
	if o := r.ownAt(id); o != nil {
		r.dropExtra(o)
		*o = ownRun{}
	}
}

// ids returns one more than the largest valid id.
func (r runRows) ids() int { return r.rows.ids() }
