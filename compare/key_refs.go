package compare

import (
	"ratebench/internal/slicesx"
	"ratebench/traces"
)

// KeyRefer is a trace reader that says where each request's key is in a
// dictionary of keys (a Parquet key column's, traces.ParquetReader.KeyRef):
// within one dictionary an index always names the same key, so the engine
// hashes and looks up a key once per entry rather than once per request.
type KeyRefer interface {
	KeyRef() (dict uint64, index int32, ok bool)
}

// keyRefs remembers, for the entries of the current dictionary, a value
// found for each: its key's id in a worker (1 + id, 0 none), or its hash.
type keyRefs[T comparable] struct {
	dict uint64
	vals []T
}

// at returns the slot of entry index of dictionary dict, emptied when the
// dictionary changes.
func (r *keyRefs[T]) at(dict uint64, index int32) *T {
	if dict != r.dict {
		r.dict = dict
		clear(r.vals)
	}
	if int(index) >= len(r.vals) {
		r.vals = slicesx.Grow(r.vals, max(int(index)+1, 2*len(r.vals)))
	}
	return &r.vals[index]
}

// hashRef returns KeyHash(key), key being entry index of dictionary dict:
// computed once per entry.
func (e *Engine) hashRef(key []byte, dict uint64, index int32) uint64 {
	h := e.hashes.at(dict, index)
	if *h == 0 {
		*h = traces.KeyHash(key)
	}
	return *h
}

// addRef is Add for a request whose key is entry index of dictionary dict
// (KeyRefer).
func (e *Engine) addRef(key []byte, dict uint64, index int32, t, cost int64) error {
	if err := checkRequest(t, cost); err != nil {
		return err
	}
	e.offeredEnd = max(e.offeredEnd, t)
	e.read++
	if len(e.workers) == 1 && e.cfg.Shard == nil {
		return e.workers[0].addRef(key, 0, dict, index, t, cost)
	}
	h := e.hashRef(key, dict, index)
	if !owns(e.cfg.Shard, h) {
		return nil
	}
	return e.worker(workerOf(h, len(e.workers))).addRef(key, h, dict, index, t, cost)
}

// addRef replays a request, checked and owned, whose key is entry index of
// dictionary dict; h is its KeyHash, or 0 if the caller does not have it.
// The entry remembers the key's id, which is confirmed in the key's state
// (the id may have been released and given to another key since).
func (w *worker) addRef(key []byte, h, dict uint64, index int32, t, cost int64) error {
	slot := w.refs.at(dict, index)
	if v := *slot; v != 0 && w.keys.holds(v-1, key) {
		id := v - 1
		if err := w.keys.touch(id, t); err != nil {
			return err
		}
		return w.added(id, false, key, t, cost)
	}
	if h == 0 {
		h = traces.KeyHash(key)
	}
	id, isNew, err := w.keys.internHash(key, h, t)
	if err != nil {
		return err
	}
	*slot = id + 1
	return w.added(id, isNew, key, t, cost)
}
