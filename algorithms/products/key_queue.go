package products

import "ratebench/internal/slicesx"

// keyQueue is a queue of keys by their ids, the most recently used at the
// head, as nginx keeps the nodes of limit_req's zone (nginxZone) and of a
// lua_shared_dict (luaDict), and Django's local-memory cache its keys
// (drfCache): a doubly linked list over the ids, prev and next of each, -1
// at the ends, and whether the key is in the queue.
type keyQueue struct {
	prev, next []int32
	in         []bool // the key has a node
	head, tail int32
}

func newKeyQueue() keyQueue { return keyQueue{head: -1, tail: -1} }

func (q *keyQueue) grow(n int) {
	old := len(q.in)
	q.prev, q.next = slicesx.Grow(q.prev, n), slicesx.Grow(q.next, n)
	q.in = slicesx.Grow(q.in, n)
	for i := old; i < n; i++ {
		q.prev[i], q.next[i] = -1, -1
	}
}

// unlink takes id, in the queue, out of it.
func (q *keyQueue) unlink(id int32) {
	p, n := q.prev[id], q.next[id]
	if p >= 0 {
		q.next[p] = n
	} else {
		q.head = n
	}
	if n >= 0 {
		q.prev[n] = p
	} else {
		q.tail = p
	}
	q.prev[id], q.next[id] = -1, -1
}

// pushHead puts id, out of the queue, at its head.
func (q *keyQueue) pushHead(id int32) {
	q.prev[id], q.next[id] = -1, q.head
	if q.head >= 0 {
		q.prev[q.head] = id
	} else {
		q.tail = id
	}
	q.head = id
}

// touch moves id to the head, putting it in the queue if it is not.
func (q *keyQueue) touch(id int32) {
	if q.in[id] {
		q.unlink(id)
	}
	q.in[id] = true
	q.pushHead(id)
}

// release takes id out of the queue, if it is in it.
func (q *keyQueue) release(id int32) {
	if q.in[id] {
		q.unlink(id)
		q.in[id] = false
	}
}
