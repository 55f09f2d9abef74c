package distributed

import (
	"sort"

	"ratebench/algorithms"
)

// nodeLog is the log entries one node recorded for one key, in the order it
// recorded them, which is also stamp order: a node's clock never goes back
// and a key's requests come in non-decreasing true time.
type nodeLog struct {
	node  int32
	st    []int64 // stamps (the node's clock); live entries are st[head:]
	pre   []int64 // pre[i]: cost of the entries before entry i (rebased on compaction)
	total int64   // cost of all the entries: pre[len(st)]
	head  int     // first entry not yet expired
	sent  int     // entries [0, sent) are committed
}

// preAt returns the cost of the entries before entry i.
func (l *nodeLog) preAt(i int) int64 {
	if i < len(l.pre) {
		return l.pre[i]
	}
	return l.total
}

// sum returns the cost of the entries of [head, end) stamped in (lo, hi].
func (l *nodeLog) sum(end int, lo, hi int64) int64 {
	st := l.st[l.head:end]
	a := sort.Search(len(st), func(i int) bool { return st[i] > lo })
	b := a + sort.Search(len(st)-a, func(i int) bool { return st[a+i] > hi })
	return l.preAt(l.head+b) - l.preAt(l.head+a)
}

// add appends an entry; it is committed at once when central.
func (l *nodeLog) add(stamp, cost int64, central bool) {
	l.st = append(l.st, stamp)
	l.pre = append(l.pre, l.total)
	l.total += cost
	if central {
		l.sent = len(l.st)
	}
}

// expire drops the entries stamped at or before cutoff, compacting the
// slices once the dropped part is the larger.
func (l *nodeLog) expire(cutoff int64) {
	for l.head < len(l.st) && l.st[l.head] <= cutoff {
		l.head++
	}
	if l.head < 32 || 2*l.head < len(l.st) {
		return
	}
	base := l.preAt(l.head)
	n := copy(l.st, l.st[l.head:])
	l.st = l.st[:n]
	for i := range n {
		l.pre[i] = l.pre[l.head+i] - base
	}
	l.pre = l.pre[:n]
	l.total -= base
	l.sent = max(l.sent-l.head, 0)
	l.head = 0
}

// logKey is one key's log in the deployment: each node's entries.
type logKey struct {
	nodes []nodeLog // the nodes that recorded for the key, in first-record order
}

// visible returns the cost node sees stamped in (tp-W, tp]: every node's
// committed entries and its own uncommitted ones.
func (k *logKey) visible(node int32, tp, W int64) int64 {
	var a int64
	for i := range k.nodes {
		l := &k.nodes[i]
		end := l.sent
		if l.node == node {
			end = len(l.st)
		}
		if end > l.head {
			a = algorithms.SatAdd(a, l.sum(end, tp-W, tp))
		}
	}
	return a
}

// record stamps an entry at tp on node.
func (k *logKey) record(node int32, tp, cost int64, central bool) {
	for i := range k.nodes {
		if k.nodes[i].node == node {
			k.nodes[i].add(tp, cost, central)
			return
		}
	}
	k.nodes = append(k.nodes, nodeLog{node: node})
	k.nodes[len(k.nodes)-1].add(tp, cost, central)
}

// commit makes every entry visible to every node.
func (k *logKey) commit() {
	for i := range k.nodes {
		k.nodes[i].sent = len(k.nodes[i].st)
	}
}

// expire drops the entries stamped at or before cutoff.
func (k *logKey) expire(cutoff int64) {
	for i := range k.nodes {
		k.nodes[i].expire(cutoff)
	}
}
