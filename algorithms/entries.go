package algorithms

// KeyEntries holds, for each key, its window of entries (time, cost) in
// time order, as a sliding log keeps them (the log's, and a product's own:
// Tyk's sorted set, Caddy's ring, DRF's history). While every entry of a
// key costs 1, they number at most its ring's length and they span less
// than entrySpan, they are in the key's ring, each entry's time as its
// offset from the key's base in 48 bits (the sum is then their number);
// past that, or at the first cost other than 1, in a WindowSum of the
// store's pool, by handle, until Drop. Its methods are WindowSum's, for
// one key.
//
// The ring's length is set when the store is made (RingFor): a rule that
// admits L a window needs L entries under count accepted, so a ring of 8
// serves L = 5 whole, in 64 bytes a key, where a ring of 16 took 112. Each
// key's ring and the head that finds it are values of the limiter's
// PerKeys, placed in a replay's Block beside the rest of its state; they
// hold no pointer. The zero KeyEntries holds rings of 16.
type KeyEntries struct {
	heads PerKey[entriesHead]
	lo    PerKey[uint32] // a key's ring: an entry's offset from its base, hi<<32 | lo
	hi    PerKey[uint16]
	pool  WindowPool // the entries of the keys that left their ring
}

// entriesHead is what finds one key's entries: its ring's oldest slot and
// count, and the base their offsets count from, or its WindowSum.
type entriesHead struct {
	base    int64  // the time the ring's offsets count from, at or before its oldest entry
	ext     uint32 // the handle of its WindowSum in the pool, once its entries left the ring; 0 before
	head, n uint8  // the ring, while ext is 0
}

// ringMax is the longest ring a key holds (RingFor): 112 bytes with its
// head, under two cache lines.
const ringMax = 16

// RingFor returns the length of ring that holds a window of L entries, as
// a log that records only what it admits holds under a rule of limit L:
// the least power of two at or above L, from 4 to ringMax.
func RingFor(L int64) int {
	n := 4
	for n < ringMax && int64(n) < L {
		n *= 2
	}
	return n
}

// NewKeyEntries returns the entries of keys whose rings hold ring entries
// (a power of two from 1 to 128).
func NewKeyEntries(ring int) KeyEntries {
	if ring < 1 || ring > 128 || ring&(ring-1) != 0 {
		panic("algorithms: a ring of entries of a length other than a power of two up to 128")
	}
	return KeyEntries{heads: NewPerKey[entriesHead](1), lo: NewPerKey[uint32](ring), hi: NewPerKey[uint16](ring)}
}

// entrySpan bounds the offsets of the ring's entries from its base: 2^48
// ns, over 78 hours, beyond any window of the ring's entries but the
// longest (whose entries then go to the pool).
const entrySpan = 1 << 48

// Place puts every key's ring and its head in b (see PerKey.Place).
func (s *KeyEntries) Place(b *Block) {
	s.fill()
	s.heads.Place(b)
	s.lo.Place(b)
	s.hi.Place(b)
}

// Grow makes ids below n valid, each holding no entry.
func (s *KeyEntries) Grow(n int) {
	s.fill()
	s.heads.Grow(n)
	s.lo.Grow(n)
	s.hi.Grow(n)
}

// fill gives the zero KeyEntries its rings of ringMax.
func (s *KeyEntries) fill() {
	if s.lo.per == 0 {
		*s = NewKeyEntries(ringMax)
	}
}

// Len returns one more than the largest valid id.
func (s *KeyEntries) Len() int { return s.heads.Len() }

// ring is one key's entries while they are read: its head and its ring.
type ring struct {
	*entriesHead
	lo []uint32
	hi []uint16
}

// key returns key id's entries.
func (s *KeyEntries) key(id int32) ring {
	return ring{s.heads.At(id), s.lo.Row(id), s.hi.Row(id)}
}

// at returns the time of the entry in slot i of the ring.
func (r ring) at(i uint8) int64 {
	return r.base + int64(uint64(r.hi[i])<<32|uint64(r.lo[i]))
}

// set puts an entry at time t, within entrySpan after the base, in slot i.
func (r ring) set(i uint8, t int64) {
	off := uint64(t - r.base)
	r.lo[i], r.hi[i] = uint32(off), uint16(off>>32)
}

// slot reduces an index into the ring below twice its length to the
// ring's slot.
func (r ring) slot(i uint8) uint8 { return i & uint8(len(r.lo)-1) }

// reaches reports whether the ring can hold an entry at t, no earlier than
// its newest, moving its base up to its oldest entry if it must.
func (r ring) reaches(t int64) bool {
	if r.n == 0 {
		r.base, r.head = t, 0
		return true
	}
	if t-r.base < entrySpan {
		return true
	}
	oldest := r.at(r.head)
	if t-oldest >= entrySpan {
		return false
	}
	for i := range r.n {
		j := r.slot(r.head + i)
		r.set(j, r.at(j)-(oldest-r.base)) // its offset from oldest
	}
	r.base = oldest
	return true
}

// spill returns key id's WindowSum, nil while its entries are in its ring.
func (s *KeyEntries) spill(h *entriesHead) *WindowSum {
	if h.ext == 0 {
		return nil
	}
	return s.pool.At(h.ext)
}

// Sum returns the cost of key id's entries.
func (s *KeyEntries) Sum(id int32) int64 {
	h := s.heads.At(id)
	if w := s.spill(h); w != nil {
		return w.Sum()
	}
	return int64(h.n)
}

// Count returns the number of key id's entries.
func (s *KeyEntries) Count(id int32) int {
	h := s.heads.At(id)
	if w := s.spill(h); w != nil {
		return w.Len()
	}
	return int(h.n)
}

// Bytes is WindowSum.Bytes of key id's entries: their analytic size.
func (s *KeyEntries) Bytes(id int32) int64 {
	h := s.heads.At(id)
	if w := s.spill(h); w != nil {
		return w.Bytes()
	}
	return 8*int64(h.n) + 8
}

// Newest returns the time of key id's newest entry; there must be one.
func (s *KeyEntries) Newest(id int32) int64 {
	r := s.key(id)
	if w := s.spill(r.entriesHead); w != nil {
		return w.Newest()
	}
	return r.at(r.slot(r.head + r.n - 1))
}

// Expire drops key id's entries at or before cutoff, as WindowSum.Expire.
func (s *KeyEntries) Expire(id int32, cutoff int64) {
	r := s.key(id)
	if w := s.spill(r.entriesHead); w != nil {
		w.Expire(cutoff)
		return
	}
	for r.n > 0 && r.at(r.head) <= cutoff {
		r.head = r.slot(r.head + 1)
		r.n--
	}
}

// SumThrough returns the cost of key id's entries at or before cutoff,
// without dropping them, as WindowSum.SumThrough.
func (s *KeyEntries) SumThrough(id int32, cutoff int64) int64 {
	r := s.key(id)
	if w := s.spill(r.entriesHead); w != nil {
		return w.SumThrough(cutoff)
	}
	var n int64
	for i := range r.n {
		if r.at(r.slot(r.head+i)) > cutoff {
			break
		}
		n++
	}
	return n
}

// Add appends an entry of key id at time t, which must not be before its
// newest.
func (s *KeyEntries) Add(id int32, t, cost int64) {
	r := s.key(id)
	w := s.spill(r.entriesHead)
	if w == nil {
		if cost == 1 && int(r.n) < len(r.lo) && r.reaches(t) {
			r.set(r.slot(r.head+r.n), t)
			r.n++
			return
		}
		r.ext, w = s.pool.New()
		for i := range r.n {
			w.Add(r.at(r.slot(r.head+i)), 1)
		}
		r.head, r.n = 0, 0
	}
	w.Add(t, cost)
}

// Drop empties key id's entries and frees their WindowSum, if they have
// one.
func (s *KeyEntries) Drop(id int32) {
	h := s.heads.At(id)
	if h.ext != 0 {
		s.pool.Free(h.ext)
	}
	*h = entriesHead{}
}

// Warm loads what Expire reads of key id first, and returns it (see
// Warmer).
func (s *KeyEntries) Warm(id int32) uint64 {
	h := s.heads.At(id)
	if w := s.spill(h); w != nil {
		return w.Warm()
	}
	return uint64(h.n)
}

// coveredAt is WindowSum.coveredAt of key id's entries.
func (s *KeyEntries) coveredAt(id int32, need int64) (int64, bool) {
	r := s.key(id)
	if w := s.spill(r.entriesHead); w != nil {
		return w.coveredAt(need)
	}
	switch { // every cost is 1: the need-th oldest entry
	case r.n == 0 || need > int64(r.n):
		return 0, false
	case need < 1:
		need = 1
	}
	return r.at(r.slot(r.head + uint8(need) - 1)), true
}
