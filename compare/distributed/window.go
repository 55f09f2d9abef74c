package distributed

import "ratebench/algorithms"

// winCount is a count of cost in one fixed window (by window index).
type winCount struct{ win, cost int64 }

// pendCount is a node's uncommitted count in one window.
type pendCount struct {
	node int32
	win  int64
	cost int64
}

// windowKey is one key's window counts in the deployment: the committed
// counts (the shared store) and each node's counts of the current sync
// interval. Nodes count in the windows of their own clocks.
type windowKey struct {
	g []winCount  // committed, by increasing window
	p []pendCount // uncommitted, one per (node, window) pair
}

// view returns what node sees of window w: the committed count plus its
// own uncommitted one.
func (k *windowKey) view(node int32, w int64) int64 {
	var c int64
	for i := range k.g {
		if k.g[i].win == w {
			c = k.g[i].cost
			break
		}
	}
	for i := range k.p {
		if k.p[i].win == w && k.p[i].node == node {
			return algorithms.SatAdd(c, k.p[i].cost)
		}
	}
	return c
}

// commitCount adds cost to the committed count of window w.
func (k *windowKey) commitCount(w, cost int64) {
	i := len(k.g)
	for i > 0 && k.g[i-1].win >= w {
		i--
	}
	if i < len(k.g) && k.g[i].win == w {
		k.g[i].cost = algorithms.SatAdd(k.g[i].cost, cost)
		return
	}
	k.g = append(k.g, winCount{})
	copy(k.g[i+1:], k.g[i:])
	k.g[i] = winCount{w, cost}
}

// record counts cost in node's window w, uncommitted unless central.
func (k *windowKey) record(node int32, w, cost int64, central bool) {
	if central {
		k.commitCount(w, cost)
		return
	}
	for i := range k.p {
		if k.p[i].win == w && k.p[i].node == node {
			k.p[i].cost = algorithms.SatAdd(k.p[i].cost, cost)
			return
		}
	}
	k.p = append(k.p, pendCount{node, w, cost})
}

// commit folds every node's uncommitted counts into the committed ones.
func (k *windowKey) commit() {
	for _, c := range k.p {
		k.commitCount(c.win, c.cost)
	}
	k.p = k.p[:0]
}

// prune drops the counts of windows before low, which no node reads again.
func (k *windowKey) prune(low int64) {
	i := 0
	for i < len(k.g) && k.g[i].win < low {
		i++
	}
	if i > 0 {
		k.g = append(k.g[:0], k.g[i:]...)
	}
	j := 0
	for _, c := range k.p {
		if c.win >= low {
			k.p[j] = c
			j++
		}
	}
	k.p = k.p[:j]
}

// decideWindow is the window algorithms' decision for a request of cost at
// clock tp on node, from the counts that node sees.
func (s *Sim) decideWindow(k *windowKey, node int32, tp, cost int64) bool {
	W := s.rule.W
	w := tp / W
	curr := k.view(node, w)
	if s.alg == algFixed {
		return s.fixed.Admits(curr, cost)
	}
	return s.counter.Admits(k.view(node, w-1), curr, tp-w*W, cost)
}

// decideBuckets is buckets:N's decision for a request of cost in
// sub-window sw with remainder rem (of clock tp, algorithms.Buckets.SubWindow)
// from the counts node sees: the cost in sub-windows sw-N+1..sw, plus that
// of sw-N weighted by (W-rem)/W, plus cost, at most L. Each node counts in
// the sub-windows of its own clock.
func (s *Sim) decideBuckets(k *windowKey, node int32, sw, rem, cost int64) bool {
	var sum int64
	for j := sw - s.nb + 1; j <= sw; j++ {
		sum = algorithms.SatAdd(sum, k.view(node, j))
	}
	return s.buckets.Admits(sum, k.view(node, sw-s.nb), rem, cost)
}
