package compare

import (
	"math"

	"ratebench/algorithms"
	"ratebench/internal/slicesx"
)

// keyRun is what every run with a row keeps of one key and reads or
// writes at its requests, 12 bytes. Its counts take 32 bits: a count that
// reaches the rows' narrow limit (keyRows.narrow, 2^32-1) stays at it and
// the count itself is kept in keyRows.wide, so that none is ever
// miscounted.
type keyRun struct {
	over, under uint32 // the key's over- and under-admissions (runAcc), read through runRows.counts
	stateEnd    uint32 // the mark of the last window the key's state was counted in (windowGrid.mark); 0 none
}

// ownRun is what a run with a history of its own (runAcc.burst and
// runAcc.client: the reference, and the candidates that record their own
// decisions) keeps of one key besides its keyRun, 8 bytes. A shadow run
// has none.
type ownRun struct {
	peak  uint32 // its burst so far (burstAcc), narrow as keyRun's counts: read through runRows.peak
	extra uint32 // the handle of its ownExtra in keyRows.extras; 0 none
}

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

	extras    ownExtras           // what runs keep of a key only for a while (ownRun.extra)
	wide      map[wideCount]int64 // the counts that reached narrowMax, by key, run and field
	narrowMax uint32              // narrow's value, the count from which the wide table holds it; 0 means math.MaxUint32 (tuning.narrowMax)
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

// narrow returns the value at which a row's count is kept in wide.
func (k *keyRows) narrow() uint32 {
	if k.narrowMax == 0 {
		return math.MaxUint32
	}
	return k.narrowMax
}

// get returns the count that v, a row's count of w, stands for.
func (k *keyRows) get(v uint32, w wideCount) int64 {
	if v < k.narrow() {
		return int64(v)
	}
	return k.wide[w]
}

// inc adds one to *p, a row's count of w.
func (k *keyRows) inc(p *uint32, w wideCount) {
	if *p < k.narrow()-1 { // the common case: the row holds the count
		*p++
		return
	}
	k.set(p, w, k.get(*p, w)+1)
}

// raise makes *p, a row's count of w, stand for v if v is larger.
func (k *keyRows) raise(p *uint32, w wideCount, v int64) {
	if n := k.narrow(); *p < n && v < int64(n) { // the common case: both fit the row
		*p = max(*p, uint32(v))
		return
	}
	if v > k.get(*p, w) {
		k.set(p, w, v)
	}
}

// set makes *p, a row's count of w, stand for v.
func (k *keyRows) set(p *uint32, w wideCount, v int64) {
	if n := k.narrow(); v >= int64(n) {
		if k.wide == nil {
			k.wide = map[wideCount]int64{}
		}
		*p, k.wide[w] = n, v
		return
	}
	if *p == k.narrow() {
		delete(k.wide, w)
	}
	*p = uint32(v)
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
	return r.rows.get(h.over, r.wide(id, wideOver)), r.rows.get(h.under, r.wide(id, wideUnder))
}

// wide names key id's field f in the run, in keyRows.wide.
func (r runRows) wide(id int32, f wideField) wideCount { return wideCount{id, int32(r.run), f} }

// count adds a disagreement on a request of key id, whose row in the run
// is h: an under-admission if under, else an over-admission. A run
// without rows (a product's companion: h is its group's scratch row, which
// no figure reads) only counts it there, up to the narrow limit.
func (r runRows) count(h *keyRun, id int32, under bool) {
	p, f := &h.over, wideOver
	if under {
		p, f = &h.under, wideUnder
	}
	if r.rows == nil {
		if *p < math.MaxUint32 {
			*p++
		}
		return
	}
	r.rows.inc(p, r.wide(id, f))
}

// ownAt returns what the run keeps of key id as a run with a history of
// its own, nil for a run without one.
func (r runRows) ownAt(id int32) *ownRun {
	if r.own < 0 {
		return nil
	}
	return &r.rows.ownRow(id)[r.own]
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

// peak returns key id's burst in the run, which must have a history of
// its own.
func (r runRows) peak(id int32) int64 { return r.rows.get(r.ownAt(id).peak, r.wide(id, widePeak)) }

// raisePeak makes key id's burst, whose row in the run is o, at least v.
func (r runRows) raisePeak(o *ownRun, id int32, v int64) {
	r.rows.raise(&o.peak, r.wide(id, widePeak), v)
}

// setPeak makes key id's burst in the run v.
func (r runRows) setPeak(id int32, v int64) { r.rows.set(&r.ownAt(id).peak, r.wide(id, widePeak), v) }

// kept returns what of key id's rows outlives its release.
func (r runRows) kept(id int32) keptRun {
	var k keptRun
	k.over, k.under = r.counts(id)
	if o := r.ownAt(id); o != nil {
		k.peak, k.rejSince = r.peak(id), r.rejSince(id)
	}
	return k
}

// restore gives key id's rows back what they kept.
func (r runRows) restore(id int32, k keptRun) {
	h := r.at(id)
	r.rows.set(&h.over, r.wide(id, wideOver), k.over)
	r.rows.set(&h.under, r.wide(id, wideUnder), k.under)
	if o := r.ownAt(id); o != nil {
		r.setPeak(id, k.peak)
		if k.rejSince != 0 {
			r.needExtra(o).rejSince = k.rejSince
		} else if x := r.extra(o); x != nil {
			x.rejSince = 0
			r.tidy(o, x)
		}
	}
}

// reset clears key id's rows and frees its ownExtra.
func (r runRows) reset(id int32) {
	r.restore(id, keptRun{}) // drops its wide counts
	*r.at(id) = keyRun{}
	if o := r.ownAt(id); o != nil {
		if o.extra != 0 {
			r.rows.extras.drop(o.extra)
		}
		*o = ownRun{}
	}
}

// ids returns one more than the largest valid id.
func (r runRows) ids() int { return r.rows.ids() }
