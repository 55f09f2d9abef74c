package products

import "ratebench/internal/slicesx"

// keyQueue is a queue of keys by their ids, the most recently used at the
// head: a doubly linked list over the ids, prev and next of each, -1 at
// the ends. nginx's zone (nginxZone) and Django's local-memory cache
// (drfCache) keep their keys in one.
type keyQueue struct {
	prev, next []int32
	head, tail int32
}

func newKeyQueue() keyQueue { return keyQueue{head: -1, tail: -1} }

// grow makes the ids below n valid, each in no queue.
func (q *keyQueue) grow(n int) {
	old := len(q.prev)
	q.prev, q.next = slicesx.Grow(q.prev, n), slicesx.Grow(q.next, n)
	for i := old; i < n; i++ {
		q.prev[i], q.next[i] = -1, -1
	}
}

// unlink takes id out of the queue.
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

// pushHead puts id, in no queue, at the head.
func (q *keyQueue) pushHead(id int32) {
	q.prev[id], q.next[id] = -1, q.head
	if q.head >= 0 {
		q.prev[q.head] = id
	} else {
		q.tail = id
	}
	q.head = id
}
