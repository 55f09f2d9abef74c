package products

import "ratebench/internal/slicesx"

// nginxZone is the zone's queue of nodes in the order they were last
// looked up, as ngx_http_limit_req_lookup keeps it (the file and commit of
// Nginx's doc): every request moves its key's node to the head (lines
// 442-443), refused or not, and creating a node first calls
// ngx_http_limit_req_expire(ctx, 1) (line 492), which looks at the node at
// the tail up to twice (lines 651-684) and drops it when it has been idle
// for at least 60 s and is drained, |now - last| >= 60000 and
// excess - rate*ms/1000 <= 0, stopping at the first it keeps. A dropped
// key's next request finds no node and starts afresh with excess 0. With
// one limit_req a node's count is always 0 (account is set, lines 466-475
// and 515-518), so the count test (line 655) never stops the expiry.
//
// The queue is a keyQueue; last holds each node's last, in the clock's
// units.
type nginxZone struct {
	keyQueue
	last []int64
}

func newNginxZone() *nginxZone { return &nginxZone{keyQueue: newKeyQueue()} }

func (z *nginxZone) grow(n int) {
	z.keyQueue.grow(n)
	z.last = slicesx.Grow(z.last, n)
}

// lookup is the zone's part of a request of key id at now (clock units):
// its node moves to the head; a key without a node first lets the expiry
// drop up to two drained nodes idle for 60 s from the tail (drop resets
// a dropped key's state), then gets a node at the head.
func (z *nginxZone) lookup(id int32, now, minute int64, drained func(id int32, ms int64) bool, drop func(id int32)) {
	if z.in[id] {
		z.touch(id)
		return
	}
	for range 2 {
		q := z.tail
		if q < 0 {
			break
		}
		ms := now - z.last[q]
		if ms < 0 {
			ms = -ms
		}
		if ms < minute || !drained(q, ms) {
			break
		}
		z.unlink(q)
		z.in[q] = false
		drop(q)
	}
	z.last[id] = now
	z.touch(id)
}
