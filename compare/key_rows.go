package compare

import "ratebench/algorithms"

// keyRun is what every run with a row keeps of one key and reads or
// writes at its requests.
type keyRun struct {
	over, under int64 // the key's over- and under-admissions (runAcc)
	stateEnd    int64 // 1 + the end of the last window the key's state was counted in (windowGrid); 0 none
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
	h := r.at(id)
	k := keptRun{over: h.over, under: h.under}
	if o := r.ownAt(id); o != nil {
		k.peak, k.rejSince = o.peak, o.rejSince
	}
	return k
}

// restore gives key id's rows back what they kept.
func (r runRows) restore(id int32, k keptRun) {
	h := r.at(id)
	h.over, h.under = k.over, k.under
	if o := r.ownAt(id); o != nil {
		o.peak, o.rejSince = k.peak, k.rejSince
	}
}

// reset clears key id's rows.
func (r runRows) reset(id int32) {
	*r.at(id) = keyRun{}
	if o := r.ownAt(id); o != nil {
		*o = ownRun{}
	}
}

// ids returns one more than the largest valid id.
func (r runRows) ids() int { return r.rows.ids() }
