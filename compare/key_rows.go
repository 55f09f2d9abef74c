package compare

import (
	"math"

	"ratebench/algorithms"
)

// keyRun is what every run with a row keeps of one key and reads or
// writes at its requests. Its counts take 32 bits: a count that reaches
// the rows' narrow limit (keyRows.narrow, 2^32-1) stays at it and the
// count itself is kept in keyRows.wide, so that the common key costs 16
// bytes per run and none is ever miscounted.
type keyRun struct {
	over, under uint32 // the key's over- and under-admissions (runAcc), read through runRows.counts
	stateEnd    int64  // 1 + the end of the last window the key's state was counted in (windowGrid); 0 none
}

// ownRun is what a run with a history of its own (runAcc.burst and
// runAcc.client: the reference, and the candidates that record their own
// decisions) keeps of one key besides its keyRun. A shadow run has none.
type ownRun struct {
	peak     int64 // its burst so far (burstAcc)
	lastDis  int64 // time of its latest disagreement with the reference (burstAcc)
	rejSince int64 // 1 + the time of the first rejection of its current run of them; 0 none (clientAcc)
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

	wide      map[wideCount]int64 // the counts that reached narrowMax, by key, run and direction
	narrowMax uint32              // narrow's value, the count from which the wide table holds it; 0 means math.MaxUint32 (tuning.narrowMax)
}

// wideCount names one count of keyRows.wide: a key's over- (or under-)
// admissions in one run.
type wideCount struct {
	id, run int32
	under   bool
}

// narrow returns the value at which a keyRun's count is kept in wide.
func (k *keyRows) narrow() uint32 {
	if k.narrowMax == 0 {
		return math.MaxUint32
	}
	return k.narrowMax
}

// get returns the count that v, a keyRun's count of w, stands for.
func (k *keyRows) get(v uint32, w wideCount) int64 {
	if v < k.narrow() {
		return int64(v)
	}
	return k.wide[w]
}

// inc adds one to *p, a keyRun's count of w.
func (k *keyRows) inc(p *uint32, w wideCount) {
	if *p < k.narrow()-1 { // the common case: the row holds the count
		*p++
		return
	}
	k.set(p, w, k.get(*p, w)+1)
}

// set makes *p, a keyRun's count of w, stand for v.
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
	return r.rows.get(h.over, wideCount{id, int32(r.run), false}), r.rows.get(h.under, wideCount{id, int32(r.run), true})
}

// count adds a disagreement on a request of key id, whose row in the run
// is h: an under-admission if under, else an over-admission. A run
// without rows (a product's companion: h is its group's scratch row, which
// no figure reads) only counts it there, up to the narrow limit.
func (r runRows) count(h *keyRun, id int32, under bool) {
	p := &h.over
	if under {
		p = &h.under
	}
	if r.rows == nil {
		if *p < math.MaxUint32 {
			*p++
		}
		return
	}
	r.rows.inc(p, wideCount{id, int32(r.run), under})
}

// ownAt returns what the run keeps of key id as a run with a history of
// its own, nil for a run without one.
func (r runRows) ownAt(id int32) *ownRun {
	if r.own < 0 {
		return nil
	}
	return &r.rows.ownRow(id)[r.own]
}

// kept returns what of key id's rows outlives its release.
func (r runRows) kept(id int32) keptRun {
	var k keptRun
	k.over, k.under = r.counts(id)
	if o := r.ownAt(id); o != nil {
		k.peak, k.rejSince = o.peak, o.rejSince
	}
	return k
}

// restore gives key id's rows back what they kept.
func (r runRows) restore(id int32, k keptRun) {
	h := r.at(id)
	r.rows.set(&h.over, wideCount{id, int32(r.run), false}, k.over)
	r.rows.set(&h.under, wideCount{id, int32(r.run), true}, k.under)
	if o := r.ownAt(id); o != nil {
		o.peak, o.rejSince = k.peak, k.rejSince
	}
}

// reset clears key id's rows.
func (r runRows) reset(id int32) {
	r.restore(id, keptRun{}) // drops its wide counts
	*r.at(id) = keyRun{}
	if o := r.ownAt(id); o != nil {
		*o = ownRun{}
	}
}

// ids returns one more than the largest valid id.
func (r runRows) ids() int { return r.rows.ids() }
