package products

import "ratebench/internal/slicesx"

// lruQueue is a shared memory zone's queue of nodes, most recently used
// at the head, as nginx keeps it for limit_req's zone (nginxZone) and for
// a lua_shared_dict (luaDict): a doubly linked list over the keys' ids,
// prev and next of each, -1 at the ends, and whether the key has a node.
type lruQueue struct {
	prev, next []int32
	in         []bool // the key has a node
	head, tail int32
}

func newLRUQueue() lruQueue { return lruQueue{head: -1, tail: -1} }

func (z *lruQueue) grow(n int) {
	old := len(z.in)
	z.prev, z.next = slicesx.Grow(z.prev, n), slicesx.Grow(z.next, n)
	z.in = slicesx.Grow(z.in, n)
	for i := old; i < n; i++ {
		z.prev[i], z.next[i] = -1, -1
	}
}

// unlink takes node id out of the queue.
func (z *lruQueue) unlink(id int32) {
	p, n := z.prev[id], z.next[id]
	if p >= 0 {
		z.next[p] = n
	} else {
		z.head = n
	}
	if n >= 0 {
		z.prev[n] = p
	} else {
		z.tail = p
	}
	z.prev[id], z.next[id] = -1, -1
}

// pushHead puts node id at the head of the queue.
func (z *lruQueue) pushHead(id int32) {
	z.prev[id], z.next[id] = -1, z.head
	if z.head >= 0 {
		z.prev[z.head] = id
	} else {
		z.tail = id
	}
	z.head = id
}

// touch moves key id's node to the head, creating it if the key has none.
func (z *lruQueue) touch(id int32) {
	if z.in[id] {
		z.unlink(id)
	}
	z.in[id] = true
	z.pushHead(id)
}

// release takes key id's node out of the zone.
func (z *lruQueue) release(id int32) {
	if z.in[id] {
		z.unlink(id)
		z.in[id] = false
	}
}
