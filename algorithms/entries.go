package algorithms

// Entries is one key's window of entries (time, cost) in time order, as a
// sliding log keeps them (the log's, and a product's own: Tyk's sorted
// set, Caddy's ring), held in the limiter's PerKey and so in a replay's
// Block: while every entry costs 1 and they number at most entriesInline,
// in a ring of its own (the sum is then their number); past that, or at
// the first cost other than 1, in a WindowSum of the limiter's WindowPool,
// by handle, until Drop. Its methods are WindowSum's, given the pool. It
// holds no pointer; the zero Entries is empty. 112 bytes.
type Entries struct {
	ext     uint32 // the handle of its WindowSum in the pool, once its entries left ts; 0 before
	head, n uint8  // the ring in ts, while ext is 0
	ts      [entriesInline]int64
}

// entriesInline is the number of entries an Entries holds in its own ring:
// with a log's bookkeeping, 120 bytes (under two cache lines).
const entriesInline = 13

// spill returns the entries' WindowSum, nil while they are in the ring.
func (e *Entries) spill(p *WindowPool) *WindowSum {
	if e.ext == 0 {
		return nil
	}
	return p.At(e.ext)
}

// ringIndex reduces an index into ts below 2*entriesInline to the ring.
func ringIndex(i uint8) uint8 {
	if i >= entriesInline {
		i -= entriesInline
	}
	return i
}

// Sum returns the cost of the entries.
func (e *Entries) Sum(p *WindowPool) int64 {
	if w := e.spill(p); w != nil {
		return w.Sum()
	}
	return int64(e.n)
}

// Len returns the number of entries.
func (e *Entries) Len(p *WindowPool) int {
	if w := e.spill(p); w != nil {
		return w.Len()
	}
	return int(e.n)
}

// Bytes is WindowSum.Bytes of the entries: their analytic size.
func (e *Entries) Bytes(p *WindowPool) int64 {
	if w := e.spill(p); w != nil {
		return w.Bytes()
	}
	return 8*int64(e.n) + 8
}

// Newest returns the time of the newest entry; there must be one.
func (e *Entries) Newest(p *WindowPool) int64 {
	if w := e.spill(p); w != nil {
		return w.Newest()
	}
	return e.ts[ringIndex(e.head+e.n-1)]
}

// Expire drops the entries at or before cutoff, as WindowSum.Expire.
func (e *Entries) Expire(p *WindowPool, cutoff int64) {
	if w := e.spill(p); w != nil {
		w.Expire(cutoff)
		return
	}
	for e.n > 0 && e.ts[e.head] <= cutoff {
		e.head = ringIndex(e.head + 1)
		e.n--
	}
}

// SumThrough returns the cost of the entries at or before cutoff, without
// dropping them, as WindowSum.SumThrough.
func (e *Entries) SumThrough(p *WindowPool, cutoff int64) int64 {
	if w := e.spill(p); w != nil {
		return w.SumThrough(cutoff)
	}
	var s int64
	for i := range e.n {
		if e.ts[ringIndex(e.head+i)] > cutoff {
			break
		}
		s++
	}
	return s
}

// Add appends an entry at time t, which must not be before the newest.
func (e *Entries) Add(p *WindowPool, t, cost int64) {
	w := e.spill(p)
	if w == nil {
		if cost == 1 && e.n < entriesInline {
			e.ts[ringIndex(e.head+e.n)] = t
			e.n++
			return
		}
		e.ext, w = p.New()
		for i := range e.n {
			w.Add(e.ts[ringIndex(e.head+i)], 1)
		}
		e.head, e.n = 0, 0
	}
	w.Add(t, cost)
}

// Drop empties the entries and frees their WindowSum, if they have one.
func (e *Entries) Drop(p *WindowPool) {
	if e.ext != 0 {
		p.Free(e.ext)
	}
	*e = Entries{}
}

// Warm loads what Expire reads first, and returns it (see Warmer).
func (e *Entries) Warm(p *WindowPool) uint64 {
	if w := e.spill(p); w != nil {
		return w.Warm()
	}
	return uint64(e.n)
}

// coveredAt is WindowSum.coveredAt of the entries.
func (e *Entries) coveredAt(p *WindowPool, need int64) (int64, bool) {
	if w := e.spill(p); w != nil {
		return w.coveredAt(need)
	}
	switch { // every cost is 1: the need-th oldest entry
	case e.n == 0 || need > int64(e.n):
		return 0, false
	case need < 1:
		need = 1
	}
	return e.ts[ringIndex(e.head+uint8(need)-1)], true
}
