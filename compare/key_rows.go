package compare

import "ratebench/algorithms"

// keyRun is what one run keeps of one key and reads or writes at its
// requests.
type keyRun struct {
	over, under int64 // the key's over- and under-admissions (runAcc)
	peak        int64 // its burst so far (burstAcc)
	lastDis     int64 // time of its latest disagreement with the reference (burstAcc)
	rejSince    int64 // 1 + the time of the first rejection of its current run of them; 0 none (clientAcc)
	stateEnd    int64 // 1 + the end of the last window the key's state was counted in (windowGrid); 0 none
	statePeak   int64 // a reference's: the log's size counted in that window
}

// kept is what of h outlives its key's release, for the key's record in
// the release ledger: its counts, its burst and its open run of
// rejections. The rest follows state that is back to its initial value
// once the key is idle.
func (h *keyRun) kept() keyRun {
	return keyRun{over: h.over, under: h.under, peak: h.peak, rejSince: h.rejSince}
}

// keyRows holds, per key, the keyRun of every run of an engine side by
// side, at the start of the key's part of the worker's block, before the
// limiters' states placed there: a request finds what all its runs keep of
// its key, and the state of every placed limiter, in a few adjacent cache
// lines rather than one line per run, per metric and per limiter.
type keyRows struct {
	runs algorithms.PerKey[keyRun] // key id's runs, in the engine's order (Engine.runs)
}

// place puts the rows of n runs in b.
func (k *keyRows) place(b *algorithms.Block, n int) {
	k.runs = algorithms.NewPerKey[keyRun](max(n, 1))
	k.runs.Place(b)
}

// row returns key id's runs, in the engine's order (Engine.runs).
func (k *keyRows) row(id int32) []keyRun { return k.runs.Row(id) }

// ids returns one more than the largest valid id.
func (k *keyRows) ids() int { return k.runs.Len() }

// runRows is one run's column of keyRows.
type runRows struct {
	rows *keyRows
	run  int // the run's index in the engine's order
}

// at returns what the run keeps of key id.
func (r runRows) at(id int32) *keyRun { return &r.rows.row(id)[r.run] }

// ids returns one more than the largest valid id.
func (r runRows) ids() int { return r.rows.ids() }
