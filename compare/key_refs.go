package compare

import (
	"unsafe"

	"ratebench/internal/prefetch"
	"ratebench/internal/slicesx"
	"ratebench/traces"
)

// KeyRefer is a trace reader that says where each request's key is in a
// dictionary of keys (a Parquet key column's, traces.ParquetReader.KeyRef):
// within one dictionary an index always names the same key, so the engine
// hashes and looks up a key once per entry rather than once per request.
// A parallel replay gets the entries from the reader's runs instead
// (traces.Part.Ref).
type KeyRefer interface {
	KeyRef() (dict uint64, index int32, ok bool)
}

// keyRefs remembers, for the entries of the current dictionary, a value
// found for each: its key's id in a worker (1 + id, 0 none), or its hash.
type keyRefs[T comparable] struct {
	dict  uint64
	slots []refSlot[T]
}

// refSlot is what keyRefs remembers of an entry: the value, and for a
// key's id when it was last found to hold the key (the key table's epoch:
// see addRef).
type refSlot[T comparable] struct {
	val   T
	epoch uint32
}

// at returns the slot of entry index of dictionary dict, emptied when the
// dictionary changes.
func (r *keyRefs[T]) at(dict uint64, index int32) *refSlot[T] {
	r.use(dict)
	if int(index) >= len(r.slots) {
		r.slots = slicesx.Grow(r.slots, max(int(index)+1, 2*len(r.slots)))
	}
	return &r.slots[index]
}

// use makes dict the current dictionary, emptying the slots when it
// changes.
func (r *keyRefs[T]) use(dict uint64) {
	if dict != r.dict {
		r.dict = dict
		clear(r.slots)
	}
}

// peek returns the value of entry index of the current dictionary (use),
// the zero value if it has none, changing nothing.
func (r *keyRefs[T]) peek(index int32) (v T) {
	if uint(index) < uint(len(r.slots)) {
		v = r.slots[index].val
	}
	return v
}

// prefetch asks for the slot of entry index of the current dictionary,
// ahead of its use.
func (r *keyRefs[T]) prefetch(index int32) {
	if uint(index) < uint(len(r.slots)) {
		prefetch.Line(unsafe.Pointer(&r.slots[index]))
	}
}

// hashRef returns KeyHash(key), key being entry index of dictionary dict:
// computed once per entry.
func (e *Engine) hashRef(key []byte, dict uint64, index int32) uint64 {
	h := &e.hashes.at(dict, index).val
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
// The entry remembers the key's id. An id may have been released and given
// to another key since: the entry is trusted as it is when no key was
// released since it was last found to hold the key (its epoch), and
// otherwise confirmed in the key's state, which reads the key's bytes.
func (w *worker) addRef(key []byte, h, dict uint64, index int32, t, cost int64) error {
	slot := w.refs.at(dict, index)
	if v := slot.val; v != 0 && (w.keys.sameEpoch(slot.epoch) || w.keys.holds(v-1, key)) {
		id := v - 1
		slot.epoch = w.keys.epoch()
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
	slot.val, slot.epoch = id+1, w.keys.epoch()
	return w.added(id, isNew, key, t, cost)
}

// addEntry is addRef for request i of part p, whose key is an entry of
// dictionary dict, without its hash: it reads the key's bytes only when it
// must, the entry's id not being trusted as it is (see addRef) or the key
// being fed to a simulation.
func (w *worker) addEntry(p *traces.Part, i int, dict uint64, t, cost int64) error {
	ref := p.Ref[i]
	slot := w.refs.at(dict, ref)
	if v := slot.val; v != 0 && w.keys.sameEpoch(slot.epoch) {
		id := v - 1
		if err := w.keys.touch(id, t); err != nil {
			return err
		}
		var key []byte // added reads the name of a key seen before only to feed the simulations
		if w.sims.on {
			key = p.Key(i)
		}
		return w.added(id, false, key, t, cost)
	}
	return w.addRef(p.Key(i), 0, dict, ref, t, cost)
}
