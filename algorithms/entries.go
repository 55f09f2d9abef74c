package algorithms

// Entries is one key's window of entries (time, cost) in time order, as a
// sliding log keeps them (the log's, and a product's own: Tyk's sorted
// set, Caddy's ring), held in the limiter's PerKey and so in a replay's
// Block: while every entry costs 1, they number at most entriesInline and
// they span less than entrySpan, in a ring of its own, each entry's time
// as its offset from a base in 48 bits (the sum is then their number);
// past that, or at the first cost other than 1, in a WindowSum of the
// limiter's WindowPool, by handle, until Drop. Its methods are
// WindowSum's, given the pool. It holds no pointer; the zero Entries is
// empty. 112 bytes.
type Entries struct {
	ext     uint32 // the handle of its WindowSum in the pool, once its entries left the ring; 0 before
	head, n uint8  // the ring, while ext is 0
	base    int64  // the time the ring's offsets count from, at or before its oldest entry
	lo      [entriesInline]uint32
	hi      [entriesInline]uint16 // an entry's offset from base: hi<<32 | lo
}

// entriesInline is the number of entries an Entries holds in its own ring
// (a power of two): with a log's bookkeeping, 120 bytes (under two cache
// lines).
const entriesInline = 16

// entrySpan bounds the offsets of the ring's entries from its base: 2^48
// ns, over 78 hours, beyond any window of the ring's entries but the
// longest (whose entries then go to the pool).
const entrySpan = 1 << 48

// at returns the time of the entry in slot i of the ring.
func (e *Entries) at(i uint8) int64 { return e.base + int64(uint64(e.hi[i])<<32|uint64(e.lo[i])) }

// set puts an entry at time t, within entrySpan after the base, in slot i.
func (e *Entries) set(i uint8, t int64) {
	off := uint64(t - e.base)
	e.lo[i], e.hi[i] = uint32(off), uint16(off>>32)
}

// reaches reports whether the ring can hold an entry at t, no earlier than
// its newest, moving its base up to its oldest entry if it must.
func (e *Entries) reaches(t int64) bool {
	if e.n == 0 {
		e.base, e.head = t, 0
		return true
	}
	if t-e.base < entrySpan {
		return true
	}
	oldest := e.at(e.head)
	if t-oldest >= entrySpan {
		return false
	}
	for i := range e.n {
		j := ringIndex(e.head + i)
		e.set(j, e.at(j)-(oldest-e.base)) // its offset from oldest
	}
	e.base = oldest
	return true
}

// spill returns the entries' WindowSum, nil while they are in the ring.
func (e *Entries) spill(p *WindowPool) *WindowSum {
	if e.ext == 0 {
		return nil
	}
	return p.At(e.ext)
}

// ringIndex reduces an index into the ring below 2*entriesInline to it.
func ringIndex(i uint8) uint8 { return i & (entriesInline - 1) }

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
	return e.at(ringIndex(e.head + e.n - 1))
}

// Expire drops the entries at or before cutoff, as WindowSum.Expire.
func (e *Entries) Expire(p *WindowPool, cutoff int64) {
	if w := e.spill(p); w != nil {
		w.Expire(cutoff)
		return
	}
	for e.n > 0 && e.at(e.head) <= cutoff {
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
		if e.at(ringIndex(e.head+i)) > cutoff {
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
		if cost == 1 && e.n < entriesInline && e.reaches(t) {
			e.set(ringIndex(e.head+e.n), t)
			e.n++
			return
		}
		e.ext, w = p.New()
		for i := range e.n {
			w.Add(e.at(ringIndex(e.head+i)), 1)
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
	return e.at(ringIndex(e.head + uint8(need) - 1)), true
}
