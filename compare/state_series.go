package compare

// stateSeries samples, for one group (rule × count), the state all keys
// hold together at each edge of the reference's timeline, so that the
// peak total memory is additive over keys and merges exactly across
// workers and shards:
//
//   - the exact log holds, at instant e, the entries recorded in (e-W, e]
//     (8 bytes each, 16 when the cost is not 1) and an 8-byte running sum
//     per key with at least one of them;
//   - an algorithm of fixed size holds its bytes for every key active at
//     e: with a request in (e-W, e].
//
// Edges are at least W apart, so a request is in the window of at most one
// edge: the first at or after it. Each key keeps the last edge it was
// counted at, so it counts once per edge.
type stateSeries struct {
	w    int64
	keys []edges // per key, together so that one cache line serves both
}

// edges are one key's last edges counted, each 1 + the edge (0: none):
// active at, and with its log's sum at.
type edges struct{ act, log int64 }

func (s *stateSeries) grow(n int) { s.keys = grow(s.keys, n) }

// add samples a request of key id at t (just added to tl); recorded says
// whether the log recorded it.
func (s *stateSeries) add(tl *timelineAcc, id int32, t, cost int64, recorded bool) {
	e, ok := tl.edge(t, s.w)
	if !ok {
		return
	}
	k := &s.keys[id]
	if k.act != e+1 {
		k.act = e + 1
		tl.sample(&tl.act, e, 1)
	}
	if !recorded {
		return
	}
	size := int64(8)
	if cost != 1 {
		size = 16
	}
	if k.log != e+1 {
		k.log = e + 1
		size += 8
	}
	tl.sample(&tl.mem, e, size)
}

// release forgets key id, whose state is back to its initial value.
func (s *stateSeries) release(id int32) {
	s.keys[id] = edges{}
}
