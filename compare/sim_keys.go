package compare

import "ratebench/internal/slicesx"

// simKeys gives the closed-loop and distributed simulations the ids of
// their keys from the worker's interning, so that they look no key up: a
// key's id in order of first appearance, which stays with the key when the
// worker releases it and gives its worker id to another key (the release
// ledger keeps it, by the key's record).
type simKeys struct {
	on    bool    // the worker has simulations
	ids   []int32 // per worker id: the key's simulation id
	seen  int32   // keys given one
	byRec []int32 // per ledger record: the released key's simulation id
}

// assign gives a key new to worker id the next simulation id.
func (s *simKeys) assign(id int32) {
	if !s.on {
		return
	}
	s.ids = slicesx.Grow(s.ids, int(id)+1)
	s.ids[id] = s.seen
	s.seen++
}

// release keeps the simulation id of key id, released as ledger record rec.
func (s *simKeys) release(id, rec int32) {
	if !s.on {
		return
	}
	s.byRec = slicesx.Grow(s.byRec, int(rec)+1)
	s.byRec[rec] = s.ids[id]
}

// restore gives key id, back as ledger record rec, its simulation id; the
// one assign gave it was the last, which it returns.
func (s *simKeys) restore(id, rec int32) {
	if !s.on || int(rec) >= len(s.byRec) {
		return
	}
	s.seen--
	s.ids[id] = s.byRec[rec]
}
