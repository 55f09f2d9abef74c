package compare

import (
	"fmt"
	"math/bits"
	"unsafe"

	"ratebench/internal/prefetch"
	"ratebench/internal/slicesx"
	"ratebench/traces"
)

// keyTable interns keys to dense ids in order of first appearance and keeps
// what every run shares per key: the time of its last request (to check
// that time never goes backwards within a key) and its request count.
//
// The lookup is laid out for the cache: an open-addressing table of 8-byte
// slots (a tag of the key's hash and its id) finds the candidate id, and the
// key's state, which the request reads and writes anyway, holds the hash
// and the first bytes of the name to confirm it, so that a request for a
// key of up to inlineKey bytes touches one slot and one state line.
type keyTable struct {
	slots []uint64 // 0 empty; else tag<<32 | id+1, tag the hash's high 32 bits
	shift uint     // 64 - log2(len(slots))

	long  slicesx.Chunked[string]   // by id, the names longer than inlineKey (the rest are whole in their state); grown only as far as the last id of one
	state slicesx.Chunked[keyState] // by id: chunks never move, so growing copies nothing
	seen  int                       // keys seen: ids may have gaps when the caller assigns them
	live  int                       // keys holding an id now
	free  []int32                   // ids released, to give to new keys

	lastID int32 // the key of the last request (-1: none), checked before hashing

	releases uint64 // keys released so far: while it stays, every id names the key it named (epoch)

	sameTime int64 // requests at the same time as their key's previous one (resolution.go)
}

// inlineKey is how many bytes of a key's name its state holds: a name
// of up to that many is held there whole, and nowhere else.
const inlineKey = 30

// keyState is what the table keeps per key, together so that one cache
// line serves a request: 64 bytes.
type keyState struct {
	last     int64  // time of the key's last request
	from     int64  // its state samples are settled before from (Engine.settle)
	requests int64  //
	hash     uint64 // KeyHash of its name
	live     bool   // the id holds a key (not released)
	n        uint8  // the name's length up to inlineKey, whose bytes head holds; inlineKey+1 for a longer name (keyTable.long), whose first inlineKey bytes it holds
	head     [inlineKey]byte
}

// headLen returns n for a name of length n: its length up to inlineKey,
// inlineKey+1 past it.
func headLen(n int) uint8 { return uint8(min(n, inlineKey+1)) }

// held returns the bytes of the name that head holds.
func (s *keyState) held() []byte { return s.head[:min(s.n, inlineKey)] }

// setName puts the first bytes of name in the state (keyTable.setName
// keeps a longer name whole).
func (s *keyState) setName(name []byte) {
	s.n = headLen(len(name))
	copy(s.head[:], name)
}

// is reports whether key id, whose state is st, is key, whose hash is h:
// the name is read whole only where it is longer than inlineKey.
func (k *keyTable) is(id int32, st *keyState, key []byte, h uint64) bool {
	if st.hash != h || st.n != headLen(len(key)) || string(st.held()) != string(key[:min(len(key), inlineKey)]) {
		return false
	}
	return len(key) <= inlineKey || *k.long.At(int(id)) == string(key)
}

// holds reports whether id is live and holds key (whatever its hash: a
// caller that has none, or keys the table was not asked to hash).
func (k *keyTable) holds(id int32, key []byte) bool {
	if int(id) >= k.state.Len() {
		return false
	}
	st := k.state.At(int(id))
	return st.live && k.is(id, st, key, st.hash)
}

func newKeyTable() *keyTable { return &keyTable{lastID: -1} }

// OrderError is a request whose time is before the previous request of the
// same key. Replay fills in how late it came and how the trace was read,
// for its message to say how to fix it (order_error.go).
type OrderError struct {
	Key     string
	T, Prev int64
	// Late is the latest time read before the request, in file order, less
	// its own: a -reorder window of Late puts it in order (0: unknown, at
	// least Prev - T).
	Late int64
	// Reorder is the reorder window the trace was read with (0: none), and
	// File the trace's name.
	Reorder int64
	File    string
	// Need, when the caller has read the whole trace for it, is the
	// reorder window that puts every request of it in order (what
	// ratebench inspect reports), and Command the command line that
	// replays the trace with it; 0 and "" when unknown.
	Need    int64
	Command string
}

// intern returns key's id (a new one for a key never seen, with isNew) and
// checks that t is not before the key's previous request. The lookup does
// not allocate; only a new key copies its bytes.
func (k *keyTable) intern(key []byte, t int64) (id int32, isNew bool, err error) {
	if id := k.lastID; id >= 0 && k.holds(id, key) { // a client's requests often come in runs
		return id, false, k.touch(id, t)
	}
	return k.internHash(key, traces.KeyHash(key), t)
}

// internHash is intern for a key whose hash h (KeyHash) the caller has.
func (k *keyTable) internHash(key []byte, h uint64, t int64) (id int32, isNew bool, err error) {
	if id := k.find(key, h); id >= 0 {
		return id, false, k.touch(id, t)
	}
	id, err = k.add(key, h, t)
	return id, err == nil, err
}

// home is the slot a key of hash h is looked for first: the hash's bits
// mixed by a Fibonacci multiplier, so that keys of one shard or worker
// (whose hashes agree modulo their count) spread over every slot.
func (k *keyTable) home(h uint64) uint64 { return h * 0x9e3779b97f4a7c15 >> k.shift }

// find returns the id of key, whose hash is h, or -1 if it holds none: a
// lookup that changes nothing.
func (k *keyTable) find(key []byte, h uint64) int32 {
	if len(k.slots) == 0 {
		return -1
	}
	tag := h >> 32 << 32
	for i := k.home(h); ; i = (i + 1) & uint64(len(k.slots)-1) {
		s := k.slots[i]
		if s == 0 {
			return -1
		}
		if s&^(1<<32-1) == tag {
			id := int32(uint32(s) - 1)
			if k.is(id, k.state.At(int(id)), key, h) {
				return id
			}
		}
	}
}

// prefetchSlot asks for the table's slot of a key of hash h, ahead of its
// lookup.
func (k *keyTable) prefetchSlot(h uint64) {
	if len(k.slots) > 0 {
		prefetch.Line(unsafe.Pointer(&k.slots[k.home(h)]))
	}
}

// prefetchState asks for the state of the key in the table's slot of hash
// h (prefetched before), if the slot holds one, ahead of its lookup, and
// returns that key's id, the likely id of the key of hash h (a guess: the
// slot may hold another key), or -1.
func (k *keyTable) prefetchState(h uint64) int32 {
	if len(k.slots) == 0 {
		return -1
	}
	if s := k.slots[k.home(h)]; s != 0 && int(uint32(s)-1) < k.state.Len() {
		prefetch.Line(unsafe.Pointer(k.state.At(int(uint32(s) - 1))))
		return int32(uint32(s) - 1)
	}
	return -1
}

// prefetchID asks for the state of key id, ahead of its lookup.
func (k *keyTable) prefetchID(id int32) {
	if int(id) < k.state.Len() {
		prefetch.Line(unsafe.Pointer(k.state.At(int(id))))
	}
}

// touch counts a request of key id at t, which must not be before its last.
func (k *keyTable) touch(id int32, t int64) error {
	st := k.state.At(int(id))
	if t < st.last {
		return &OrderError{Key: k.name(id), T: t, Prev: st.last}
	}
	if t == st.last {
		k.sameTime++
	}
	st.last = t
	st.requests++
	k.lastID = id
	return nil
}

// add gives a new key an id: a released one, or the next.
func (k *keyTable) add(key []byte, h uint64, t int64) (int32, error) {
	var id int32
	if n := len(k.free); n > 0 {
		id = k.free[n-1]
		k.free = k.free[:n-1]
	} else {
		if k.state.Len() >= 1<<31-1 {
			return 0, fmt.Errorf("more than %d keys at once", 1<<31-1)
		}
		id = int32(k.state.Len())
		k.state.Grow(int(id) + 1)
	}
	st := k.state.At(int(id))
	*st = keyState{last: t, from: t, requests: 1, hash: h, live: true}
	k.setName(id, st, key)
	k.seen++
	k.live++
	if 2*k.live > len(k.slots) {
		k.rehash(max(1024, 4*k.live))
	}
	k.insert(id, h)
	k.lastID = id
	return id, nil
}

// insert puts id, whose hash is h, in the table (it is not there).
func (k *keyTable) insert(id int32, h uint64) {
	mask := uint64(len(k.slots) - 1)
	i := k.home(h)
	for k.slots[i] != 0 {
		i = (i + 1) & mask
	}
	k.slots[i] = h>>32<<32 | uint64(id+1)
}

// rehash rebuilds the table with n slots (rounded up to a power of two).
func (k *keyTable) rehash(n int) {
	b := bits.Len(uint(n - 1))
	k.slots, k.shift = slicesx.Make[uint64](1<<b), uint(64-b)
	for id := range k.state.Len() {
		if st := k.state.At(id); st.live {
			k.insert(int32(id), st.hash)
		}
	}
}

// remove takes id, whose hash is h, out of the table, shifting back the
// entries after it that their probe would otherwise no longer reach.
func (k *keyTable) remove(id int32, h uint64) {
	mask := uint64(len(k.slots) - 1)
	i := k.home(h)
	for uint32(k.slots[i]) != uint32(id+1) {
		i = (i + 1) & mask
	}
	for j := (i + 1) & mask; k.slots[j] != 0; j = (j + 1) & mask {
		home := k.home(k.state.At(int(uint32(k.slots[j]) - 1)).hash)
		if (j-home)&mask >= (j-i)&mask { // home is not in (i, j]: the entry may move to i
			k.slots[i] = k.slots[j]
			i = j
		}
	}
	k.slots[i] = 0
}

// internIndexed is intern for keys that come with a dense id of their own
// (a generator's source index), sparing the lookup: id must always name
// the same key.
func (k *keyTable) internIndexed(id int32, key []byte, t int64) (isNew bool, err error) {
	if int(id) >= k.state.Len() {
		k.state.Grow(int(id) + 1)
	}
	st := k.state.At(int(id))
	if st.requests == 0 {
		k.setName(id, st, key)
		k.seen++
		k.live++
		st.live = true
		st.from = t
		isNew = true
	} else if t < st.last {
		return false, &OrderError{Key: k.name(id), T: t, Prev: st.last}
	} else if t == st.last {
		k.sameTime++
	}
	st.last = t
	st.requests++
	return isNew, nil
}

// len returns the number of keys seen.
func (k *keyTable) len() int { return k.seen }

// size returns one more than the largest id.
func (k *keyTable) size() int { return k.state.Len() }

// name returns the name of key id (a copy of it, for a name its state
// holds whole).
func (k *keyTable) name(id int32) string {
	st := k.state.At(int(id))
	if st.n <= inlineKey {
		return string(st.held())
	}
	return *k.long.At(int(id))
}

// nameBefore reports whether the name of key id sorts before s, without
// copying it.
func (k *keyTable) nameBefore(id int32, s string) bool {
	st := k.state.At(int(id))
	if st.n <= inlineKey {
		return string(st.held()) < s
	}
	return *k.long.At(int(id)) < s
}

// setName gives key id, whose state is st, its name: in its state, and
// whole in the long names if it is longer than inlineKey.
func (k *keyTable) setName(id int32, st *keyState, name []byte) {
	st.setName(name)
	if len(name) > inlineKey {
		if int(id) >= k.long.Len() {
			k.long.Grow(int(id) + 1)
		}
		*k.long.At(int(id)) = string(name)
	}
}

// at returns the state of key id.
func (k *keyTable) at(id int32) *keyState { return k.state.At(int(id)) }

// epoch returns a mark of the keys released so far, for sameEpoch.
func (k *keyTable) epoch() uint32 { return uint32(k.releases) }

// sameEpoch reports whether no key was released since epoch returned e:
// every id live then names the same key now. (Past 2^32 releases the
// mark no longer tells, and it reports false.)
func (k *keyTable) sameEpoch(e uint32) bool { return k.releases < 1<<32 && uint32(k.releases) == e }

// release forgets key id and frees the id for another key.
func (k *keyTable) release(id int32) {
	k.releases++
	k.remove(id, k.at(id).hash)
	if k.lastID == id {
		k.lastID = -1
	}
	if k.at(id).n > inlineKey {
		*k.long.At(int(id)) = ""
	}
	*k.at(id) = keyState{}
	k.free = append(k.free, id)
	k.live--
}
