package compare

import (
	"fmt"

	"ratebench/internal/slicesx"
)

// keyTable interns keys to dense ids in order of first appearance and keeps
// what every run shares per key: the time of its last request (to check
// that time never goes backwards within a key) and its request count.
type keyTable struct {
	ids   map[string]int32
	names []string
	state []keyState
	seen  int     // keys seen: ids may have gaps when the caller assigns them
	live  int     // keys holding an id now
	free  []int32 // ids released, to give to new keys

	lastID int32 // the key of the last request (-1: none), checked before the map
}

// keyState is what the table keeps per key, together so that one cache
// line serves a request.
type keyState struct {
	last     int64 // time of the key's last request
	from     int64 // its state samples are settled before from (Engine.settle)
	requests int64
	live     bool // the id holds a key (not released)
}

func newKeyTable() *keyTable { return &keyTable{ids: map[string]int32{}, lastID: -1} }

// OrderError is a request whose time is before the previous request of the
// same key.
type OrderError struct {
	Key     string
	T, Prev int64
}

func (e *OrderError) Error() string {
	return fmt.Sprintf("key %q: time goes backwards: %d ns after %d ns (%d ns earlier)", e.Key, e.T, e.Prev, e.Prev-e.T)
}

// intern returns key's id (a new one for a key never seen, with isNew) and
// checks that t is not before the key's previous request. The lookup does
// not allocate; only a new key copies its bytes.
func (k *keyTable) intern(key []byte, t int64) (id int32, isNew bool, err error) {
	var ok bool
	if k.lastID >= 0 && string(key) == k.names[k.lastID] {
		id, ok = k.lastID, true // a client's requests often come in runs
	} else {
		id, ok = k.ids[string(key)]
	}
	if !ok {
		name := string(key)
		if n := len(k.free); n > 0 {
			id = k.free[n-1]
			k.free = k.free[:n-1]
			k.names[id] = name
			k.state[id] = keyState{last: t, from: t, live: true}
		} else {
			if len(k.names) >= 1<<31-1 {
				return 0, false, fmt.Errorf("more than %d keys at once", 1<<31-1)
			}
			id = int32(len(k.names))
			k.names = append(k.names, name)
			k.state = append(k.state, keyState{last: t, from: t, live: true})
		}
		k.ids[name] = id
		k.seen++
		k.live++
		isNew = true
	} else if st := &k.state[id]; t < st.last {
		return id, false, &OrderError{Key: k.names[id], T: t, Prev: st.last}
	}
	st := &k.state[id]
	st.last = t
	st.requests++
	k.lastID = id
	return id, isNew, nil
}

// internIndexed is intern for keys that come with a dense id of their own
// (a generator's source index), sparing the map: id must always name the
// same key.
func (k *keyTable) internIndexed(id int32, key []byte, t int64) (isNew bool, err error) {
	if int(id) >= len(k.names) {
		n := int(id) + 1
		k.names = slicesx.Grow(k.names, n)
		k.state = slicesx.Grow(k.state, n)
	}
	st := &k.state[id]
	if st.requests == 0 {
		k.names[id] = string(key)
		k.seen++
		k.live++
		st.live = true
		st.from = t
		isNew = true
	} else if t < st.last {
		return false, &OrderError{Key: k.names[id], T: t, Prev: st.last}
	}
	st.last = t
	st.requests++
	return isNew, nil
}

// len returns the number of keys seen.
func (k *keyTable) len() int { return k.seen }

// size returns one more than the largest id.
func (k *keyTable) size() int { return len(k.names) }

// release forgets key id and frees the id for another key.
func (k *keyTable) release(id int32) {
	delete(k.ids, k.names[id])
	if k.lastID == id {
		k.lastID = -1
	}
	k.names[id] = ""
	k.state[id] = keyState{}
	k.free = append(k.free, id)
	k.live--
}
