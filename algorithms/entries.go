package algorithms

import (
	"iter"
	"unsafe"
)

// KeyEntries holds, for each key, its window of entries (time, cost) in
// time order, as a sliding log keeps them (the log's, and a product's own:
// Tyk's sorted set, Caddy's ring, DRF's history, NestJS Throttler's hits,
// Cloudflare WAF's requests still in its lag). While every entry of a
// key costs 1, they number at most its ring's length and they span less
// than entrySpan, they are in the key's ring, each entry's time as its
// offset from the key's base in 48 bits (the sum is then their number);
// past that, or at the first cost other than 1, in a WindowSum of the
// store's pool, by handle, until Drop. A key's Entries (Key) has
// WindowSum's methods.
//
// The ring's length is set when the store is made (RingFor): a rule that
// admits L a window needs L entries under count accepted, so a ring of 8
// serves L = 5 whole, in 72 bytes a key with its owner's peak, where a
// ring of 16 takes 120. A
// key's head and its ring are one value of the limiter's PerKey, words
// read as the head (entriesHead), then the ring's entries' offsets from
// the base, hi<<32 | lo (lo, 4 bytes each, then hi, 2 each): one lookup
// finds them together, and a replay places them in its Block beside the
// rest of the key's state. They hold no pointer. The zero KeyEntries
// holds rings of 16.
type KeyEntries struct {
	keys PerKey[uint64]
	ring int        // the ring's length
	pool WindowPool // the entries of the keys that left their ring
}

// entriesHead is what finds one key's entries: its ring's oldest slot and
// count, and the base their offsets count from, or its WindowSum; and the
// largest size its owner saw them take (Peak).
type entriesHead struct {
	peak    int64  // KeyEntries.Peak
	base    int64  // the time the ring's offsets count from, at or before its oldest entry
	ext     uint32 // the handle of its WindowSum in the pool, once its entries left the ring; 0 before
	head, n uint8  // the ring, while ext is 0
}

// ringMax is the longest ring a key holds (RingFor): 120 bytes with its
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
	return KeyEntries{keys: NewPerKey[uint64](ringWords(ring)), ring: ring}
}

// ringWords returns the words of a key's head and ring of ring entries.
func ringWords(ring int) int { return (int(unsafe.Sizeof(entriesHead{})) + 6*ring + 7) / 8 }

// entrySpan bounds the offsets of the ring's entries from its base: 2^48
// ns, over 78 hours, beyond any window of the ring's entries but the
// longest (whose entries then go to the pool).
const entrySpan = 1 << 48

// Place puts every key's ring and its head in b (see PerKey.Place).
func (s *KeyEntries) Place(b *Block) {
	s.fill()
	s.keys.Place(b)
}

// Grow makes ids below n valid, each holding no entry.
func (s *KeyEntries) Grow(n int) {
	s.fill()
	s.keys.Grow(n)
}

// fill gives the zero KeyEntries its rings of ringMax.
func (s *KeyEntries) fill() {
	if s.ring == 0 {
		*s = NewKeyEntries(ringMax)
	}
}

// Len returns one more than the largest valid id.
func (s *KeyEntries) Len() int { return s.keys.Len() }

// Entries is one key's entries in a KeyEntries (KeyEntries.Key): its
// head, the length of the ring that follows it less 1, and the store's
// pool. Three words, passed in registers: a caller takes a key's Entries
// once and reads and writes them through it. The ring's slots are reached
// from the head's address (a slot index is always below the length). Its
// methods are WindowSum's.
type Entries struct {
	*entriesHead
	mask uint8
	pool *WindowPool
}

// headSize is the bytes of a key's head, before its ring.
const headSize = unsafe.Sizeof(entriesHead{})

// Key returns key id's entries.
func (s *KeyEntries) Key(id int32) Entries {
	return Entries{(*entriesHead)(unsafe.Pointer(s.keys.At(id))), uint8(s.ring - 1), &s.pool}
}

// lo returns the low 32 bits of slot i's offset, and hi its high 16.
func (e Entries) lo(i uint8) *uint32 {
	return (*uint32)(unsafe.Add(unsafe.Pointer(e.entriesHead), headSize+4*uintptr(i)))
}

func (e Entries) hi(i uint8) *uint16 {
	return (*uint16)(unsafe.Add(unsafe.Pointer(e.entriesHead), headSize+4*(uintptr(e.mask)+1)+2*uintptr(i)))
}

// at returns the time of the entry in slot i of the ring.
func (e Entries) at(i uint8) int64 {
	return e.base + int64(uint64(*e.hi(i))<<32|uint64(*e.lo(i)))
}

// set puts an entry at time t, within entrySpan after the base, in slot i.
func (e Entries) set(i uint8, t int64) {
	off := uint64(t - e.base)
	*e.lo(i), *e.hi(i) = uint32(off), uint16(off>>32)
}

// slot reduces an index into the ring below twice its length to the
// ring's slot.
func (e Entries) slot(i uint8) uint8 { return i & e.mask }

// reaches reports whether the ring can hold an entry at t, no earlier than
// its newest, moving its base up to its oldest entry if it must.
func (e Entries) reaches(t int64) bool {
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
		j := e.slot(e.head + i)
		e.set(j, e.at(j)-(oldest-e.base)) // its offset from oldest
	}
	e.base = oldest
	return true
}

// spill returns the entries' WindowSum, nil while they are in the ring.
func (e Entries) spill() *WindowSum {
	if e.ext == 0 {
		return nil
	}
	return e.pool.At(e.ext)
}

// Sum returns the cost of the entries.
func (e Entries) Sum() int64 {
	if w := e.spill(); w != nil {
		return w.Sum()
	}
	return int64(e.n)
}

// Len returns the number of entries.
func (e Entries) Len() int {
	if w := e.spill(); w != nil {
		return w.Len()
	}
	return int(e.n)
}

// Bytes is WindowSum.Bytes of the entries: their analytic size.
func (e Entries) Bytes() int64 {
	if w := e.spill(); w != nil {
		return w.Bytes()
	}
	return 8*int64(e.n) + 8
}

// Newest returns the time of the newest entry; there must be one.
func (e Entries) Newest() int64 {
	if w := e.spill(); w != nil {
		return w.Newest()
	}
	return e.at(e.slot(e.head + e.n - 1))
}

// Expire drops the entries at or before cutoff, as WindowSum.Expire.
func (e Entries) Expire(cutoff int64) {
	if w := e.spill(); w != nil {
		w.Expire(cutoff)
		return
	}
	for e.n > 0 && e.at(e.head) <= cutoff {
		e.head = e.slot(e.head + 1)
		e.n--
	}
}

// All yields the entries, time and cost, oldest first, as WindowSum.All.
func (e Entries) All() iter.Seq2[int64, int64] {
	if w := e.spill(); w != nil {
		return w.All()
	}
	return func(yield func(t, cost int64) bool) {
		for i := range e.n {
			if !yield(e.at(e.slot(e.head+i)), 1) {
				return
			}
		}
	}
}

// SumThrough returns the cost of the entries at or before cutoff, without
// dropping them, as WindowSum.SumThrough.
func (e Entries) SumThrough(cutoff int64) int64 {
	if w := e.spill(); w != nil {
		return w.SumThrough(cutoff)
	}
	var n int64
	for i := range e.n {
		if e.at(e.slot(e.head+i)) > cutoff {
			break
		}
		n++
	}
	return n
}

// Add appends an entry at time t, which must not be before the newest.
func (e Entries) Add(t, cost int64) {
	w := e.spill()
	if w == nil {
		if cost == 1 && e.n <= e.mask && e.reaches(t) {
			e.set(e.slot(e.head+e.n), t)
			e.n++
			return
		}
		e.ext, w = e.pool.New()
		for i := range e.n {
			w.Add(e.at(e.slot(e.head+i)), 1)
		}
		e.head, e.n = 0, 0
	}
	w.Add(t, cost)
}

// Drop empties the entries and frees their WindowSum, if they have one;
// their Peak is 0 again.
func (e Entries) Drop() {
	if e.ext != 0 {
		e.pool.Free(e.ext)
	}
	*e.entriesHead = entriesHead{}
}

// Peak returns a word kept beside the entries for their owner, who reads
// in it the largest size they took (its Memory): 0 until it writes it,
// and again after Drop. It comes with the entries' head, in the same
// cache line.
func (e Entries) Peak() *int64 { return &e.peak }

// Warm loads what Expire reads first, and returns it (see Warmer).
func (e Entries) Warm() uint64 {
	if w := e.spill(); w != nil {
		return w.Warm()
	}
	return uint64(e.n)
}

// coveredAt is WindowSum.coveredAt of the entries.
func (e Entries) coveredAt(need int64) (int64, bool) {
	if w := e.spill(); w != nil {
		return w.coveredAt(need)
	}
	switch { // every cost is 1: the need-th oldest entry
	case e.n == 0 || need > int64(e.n):
		return 0, false
	case need < 1:
		need = 1
	}
	return e.at(e.slot(e.head + uint8(need) - 1)), true
}
