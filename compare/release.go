package compare

import (
	"fmt"

	"ratebench/algorithms"
)

// Releasing idle keys keeps a replay's memory set by the keys that are
// active, not by every key the trace ever had: a key whose state in every
// limiter and accumulator is back to its initial value (its log entries
// expired, its windows long past, its bucket full) gives its id back for
// another key.
//
// Nothing reported changes. What a released key leaves behind is a record
// in the ledger, found by the 64-bit hash of its name: its request count,
// and per group the reference's largest burst and the log's largest size
// for it. A key that disagreed anywhere (or whose burst passed L) keeps a
// full record besides: its name and its per-run counts. Everything else
// about it is, for a key that never disagreed, what the reference measured.
// When the key returns, its record is handed back to its new id, so that
// per-key figures (top keys, burst, memory per key) are those of one key.
// Two keys whose names hash alike would be taken for one (for ten million
// keys, about one chance in 370,000): the decisions do not depend on it,
// only the key count and a returning key's figures would.
//
// Keys are released only while the trace is in time order across keys:
// the idle test at the latest time seen must hold for every later request.
// Once a request arrives earlier than the latest time, releasing stops, and
// a released key coming back earlier than its release is an error (the
// state it had then is gone): sort the trace, or use -reorder.
type releaser struct {
	enabled   bool  // no key indexes, every limiter can release
	ordered   bool  // every request so far came in time order
	now       int64 // the latest time seen
	horizon   int64 // a key is considered once this long without a request
	minSweep  int   // no sweep below this many live keys
	nextSweep int   // sweep when this many keys are live
	lastSweep int64 // time of the last sweep that released a key
	released  int64 // keys released so far
	peakLive  int   // most keys live at once

	index    map[uint64]int32 // hash of a released key's name -> its record
	requests []int64          // per record: the key's requests
	groupRec []int64          // per record, per group: reference burst, log peak, refused flag (groupRecLen)
	full     map[int32]*fullRecord
}

// fullRecord is what a released key that disagreed somewhere keeps: per
// run in the engine's order (runs), what its rows kept (runRows.kept).
type fullRecord struct {
	name     string
	requests int64
	runs     []keptRun
}

// defaultMinSweep is the number of live keys below which no sweep is made
// (Config.tuning.minSweep, which the tests lower, overrides it).
const defaultMinSweep = 1 << 16

func newReleaser(w *worker) releaser {
	minSweep := w.cfg.tuning.minSweep
	if minSweep == 0 {
		minSweep = defaultMinSweep
	}
	r := releaser{enabled: true, ordered: true, minSweep: minSweep, nextSweep: minSweep, index: map[uint64]int32{}, full: map[int32]*fullRecord{}}
	for _, g := range w.groups {
		for _, l := range g.layers {
			r.horizon = max(r.horizon, 2*l.W)
		}
		if _, ok := algorithms.Limiter(g.ref).(algorithms.Releaser); !ok {
			r.enabled = false
		}
		for _, c := range g.cands {
			if _, ok := c.lim.(algorithms.Releaser); !ok {
				r.enabled = false
			}
		}
	}
	return r
}

// runs returns the accumulators of the runs that keep a row per key (each
// group's reference, then its candidates but the companions) in a fixed
// order: the order of the runs in a key's row.
func (w *worker) runs() []*runAcc {
	var out []*runAcc
	for _, g := range w.groups {
		out = append(out, g.refAcc)
		for _, c := range g.cands {
			if c.slot >= 0 {
				out = append(out, c.acc)
			}
		}
	}
	return out
}

// rowRuns returns the number of the group's runs in a key's row: the
// reference and the candidates but the companions.
func (g *group) rowRuns() int {
	n := 1
	for _, c := range g.cands {
		if c.slot >= 0 {
			n++
		}
	}
	return n
}

// observe notes the time of a request and sweeps when it is time.
func (r *releaser) observe(w *worker, t int64) {
	if t < r.now {
		r.ordered = false
	}
	r.now = max(r.now, t)
	if live := w.keys.live; r.enabled && r.ordered && live >= r.nextSweep {
		w.sweep()
		r.nextSweep = max(2*w.keys.live, r.minSweep)
	}
	r.peakLive = max(r.peakLive, w.keys.live)
}

// sweep releases every idle key.
func (w *worker) sweep() {
	r := &w.rel
	now := r.now
	runs := w.runs()
	for id := range w.keys.size() {
		st := w.keys.at(int32(id))
		if !st.live || st.last > now-r.horizon {
			continue
		}
		w.settle(int32(id), now-1) // before the idle test advances the state to now
		if !w.idle(int32(id), now) {
			continue
		}
		w.release(int32(id), runs)
		r.lastSweep = now
	}
}

// idle reports whether key id's state is initial everywhere at now, and
// was already at the start of now's window in each group: then the key
// holds nothing counted in that window (windowGrid), and counts afresh if
// it returns there. The key's last request must be before those starts
// (the horizon is at least two windows).
func (w *worker) idle(id int32, now int64) bool {
	for _, g := range w.groups {
		now := windowStart(now, g.win.w)
		if !g.ref.Idle(id, now) || !g.refAcc.boundIdle(id, now) || g.refBlock != nil && g.refBlock.Blocking(id, now) {
			return false
		}
		for _, l := range g.guards {
			if !l.Idle(id, now) {
				return false
			}
		}
		if g.use != nil && !g.use.idle(id, now) {
			return false
		}
		row := w.rows.row(id)[g.base:]
		for _, c := range g.cands {
			own := c.of == nil && !c.sharesState(row) // else the run whose state it shares answers
			if own && !c.lim.(algorithms.Releaser).Idle(id, now) || !c.acc.boundIdle(id, now) {
				return false
			}
		}
	}
	return true
}

// boundIdle reports whether the run's token bound check holds nothing for key
// id at now (true where it is not checked).
func (a *runAcc) boundIdle(id int32, now int64) bool {
	return a.bound == nil || a.bound.idle(id, now)
}

// release writes key id's record and frees its id: its entry in the
// ledger, a full record if some run needs one (needsFullRecord), then its
// state in every run and limiter.
func (w *worker) release(id int32, runs []*runAcc) {
	rec := w.ledger(id)
	w.keepFull(id, rec, runs)
	for _, a := range runs {
		if a.burst != nil {
			a.burst.fold(a.rows.peak(id), id, w.keys)
		}
		a.release(id)
	}
	for _, g := range w.groups {
		g.releaseLimiters(id)
		*g.statePeak.At(id) = 0
	}
	w.keys.release(id)
	w.rel.released++
}

// ledger writes what every released key leaves, found by its name's hash:
// its requests, its closed-loop and deployment ids, and per group the
// reference's largest burst and the log's largest size for it. It returns
// the record's index.
func (w *worker) ledger(id int32) int32 {
	r := &w.rel
	h := w.keys.at(id).hash
	rec, ok := r.index[h]
	if !ok {
		rec = int32(len(r.requests))
		r.index[h] = rec
		r.requests = append(r.requests, 0)
		r.groupRec = append(r.groupRec, make([]int64, groupRecLen*len(w.groups))...)
	}
	r.requests[rec] = w.keys.at(id).requests
	w.sims.release(id, rec)
	gr := r.groupRec[int(rec)*groupRecLen*len(w.groups):]
	for i, g := range w.groups {
		gr[groupRecLen*i] = 0
		if b := g.refAcc.burst; b != nil {
			gr[groupRecLen*i] = g.refAcc.rows.peak(id)
		}
		gr[groupRecLen*i+1] = g.ref.KeyPeak(id)
		gr[groupRecLen*i+2] = 0
		if g.use != nil {
			gr[groupRecLen*i+2] = g.use.kept(id)
		}
	}
	return rec
}

// keepFull gives key id, released as record rec, a full record (its name
// and what each run kept of it) if any run needs one (needsFullRecord).
func (w *worker) keepFull(id, rec int32, runs []*runAcc) {
	keep := false
	for _, a := range runs {
		keep = keep || a.needsFullRecord(a.rows.kept(id))
	}
	if !keep {
		return
	}
	f := &fullRecord{name: w.keys.name(id), requests: w.keys.at(id).requests, runs: make([]keptRun, len(runs))}
	for i, a := range runs {
		f.runs[i] = a.rows.kept(id)
	}
	w.rel.full[rec] = f
}

// groupRecLen is the number of a group's figures in a release record:
// the reference's burst, the log's peak size and whether the log refused
// the key (useAcc.kept).
const groupRecLen = 3

// releaseLimiters resets key id in the group's reference, its layers' logs
// and every candidate.
func (g *group) releaseLimiters(id int32) {
	stateOf(g.ref, g.refBlock).Release(id)
	for _, l := range g.guards {
		l.Release(id)
	}
	for _, c := range g.cands {
		if c.of == nil { // a run sharing an earlier mode's limiter is released there
			c.lim.(algorithms.Releaser).Release(id)
		}
	}
	if g.use != nil {
		g.use.release(id)
	}
}

// restore hands a returning key (now id) the record it left, if any, and
// reports whether there was one. t is the time of its request.
func (w *worker) restore(id int32, key []byte, t int64) (bool, error) {
	r := &w.rel
	if len(r.index) == 0 {
		return false, nil
	}
	rec, ok := r.index[w.keys.at(id).hash]
	if !ok {
		return false, nil
	}
	w.sims.restore(id, rec)
	if t < r.lastSweep && !r.ordered {
		return true, fmt.Errorf("key %q: request at %d ns is earlier than %d ns, when the key's state was released as idle: the trace is not in time order across keys (sort it, or use -reorder)", key, t, r.lastSweep)
	}
	w.keys.at(id).requests += r.requests[rec] // intern counted this request
	gr := r.groupRec[int(rec)*groupRecLen*len(w.groups):]
	f := r.full[rec]
	delete(r.full, rec)
	runs := w.runs() // each group's reference, then its candidates
	i := 0
	for gi, g := range w.groups {
		g.ref.Restore(id, gr[groupRecLen*gi+1])
		if g.use != nil {
			g.use.restore(id, gr[groupRecLen*gi+2])
		}
		for _, a := range runs[i : i+g.rowRuns()] {
			switch {
			case f != nil:
				a.rows.restore(id, f.runs[i])
			case a.burst != nil:
				a.rows.setPeak(id, gr[groupRecLen*gi]) // a run that never disagreed admitted as the reference
			}
			i++
		}
	}
	return true, nil
}

// retained returns the full records of released keys, for the summary.
func (r *releaser) retained() []*fullRecord {
	out := make([]*fullRecord, 0, len(r.full))
	for _, f := range r.full {
		out = append(out, f)
	}
	return out
}
