package distributed

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"strconv"
	"testing"

	"ratebench/algorithms"
)

// naive is the model of the package doc written as directly as possible:
// every record of every key is kept forever, and each decision scans them.
type naive struct {
	c     Config
	skews []int64
	recs  map[string][]naiveRec
	ref   map[string][]naiveRec // the central log's records (true time)
}

type naiveRec struct {
	node           int
	t, stamp, cost int64
}

func (m *naive) visible(r naiveRec, node int, t int64) bool {
	return r.node == node || m.c.Sync == 0 || r.t/m.c.Sync < t/m.c.Sync
}

// decide decides key's request at t of cost on node, and records it.
func (m *naive) decide(key string, node int, t, cost int64) (admit, ref bool) {
	L, W := m.c.Rule.L, m.c.Rule.W
	tp := t + m.skews[node]
	if tp < 0 {
		tp = 0
	}
	w := tp / W
	e := tp - w*W
	var a, prev, curr int64
	for _, r := range m.recs[key] {
		if !m.visible(r, node, t) {
			continue
		}
		if r.stamp > tp-W && r.stamp <= tp {
			a += r.cost
		}
		switch r.stamp / W {
		case w:
			curr += r.cost
		case w - 1:
			prev += r.cost
		}
	}
	bi := func(v int64) *big.Int { return big.NewInt(v) }
	lhs := new(big.Int).Mul(bi(prev), bi(W-e)) // prev*(W-e)
	switch m.c.Spec {
	case "log":
		admit = a+cost <= L
	case "fixed":
		admit = curr+cost <= L
	case "counter":
		lhs.Add(lhs, new(big.Int).Mul(bi(curr+cost), bi(W)))
		admit = lhs.Cmp(new(big.Int).Mul(bi(L), bi(W))) <= 0
	case "counter-lt":
		lhs.Add(lhs, new(big.Int).Mul(bi(curr), bi(W)))
		admit = lhs.Cmp(new(big.Int).Mul(bi(L), bi(W))) < 0
	case "counter-floor":
		q := new(big.Int).Quo(lhs, bi(W)).Int64()
		admit = q+curr+cost <= L
	case "buckets:3":
		// sub-window of a stamp: floor(stamp*3/W); the estimate counts
		// sw-2..sw and sw-3 weighted by (W - (tp*3 - sw*W))/W.
		const n = 3
		sub := func(v int64) int64 { return new(big.Int).Quo(new(big.Int).Mul(bi(v), bi(n)), bi(W)).Int64() }
		sw := sub(tp)
		rem := tp*n - sw*W // tp*3 fits: the grid traces stay far below 2^61
		var sum, old int64
		for _, r := range m.recs[key] {
			if !m.visible(r, node, t) {
				continue
			}
			switch j := sub(r.stamp); {
			case j > sw-n && j <= sw:
				sum += r.cost
			case j == sw-n:
				old += r.cost
			}
		}
		l := new(big.Int).Mul(bi(sum+cost), bi(W))
		l.Add(l, new(big.Int).Mul(bi(old), bi(W-rem)))
		admit = l.Cmp(new(big.Int).Mul(bi(L), bi(W))) <= 0
	}
	if admit || m.c.CountAll {
		m.recs[key] = append(m.recs[key], naiveRec{node, t, tp, cost})
	}
	var exact int64
	for _, r := range m.ref[key] {
		if r.t > t-W {
			exact += r.cost
		}
	}
	ref = exact+cost <= L
	if ref || m.c.CountAll {
		m.ref[key] = append(m.ref[key], naiveRec{0, t, t, cost})
	}
	return admit, ref
}

// grid generates keys clients whose requests fall on a grid of step ns
// (so that stamps, window edges, expiries and sync instants coincide
// often), over dur, costs in [1, 3], in time order.
func grid(rng *rand.Rand, keys int, dur, step int64) []req {
	var out []req
	for t := int64(0); t < dur; t += step {
		for k := range keys {
			for range rng.IntN(3) {
				out = append(out, req{"g" + strconv.Itoa(k), t, 1 + rng.Int64N(3)})
			}
		}
	}
	return out
}

// The Sim decides, request by request, as the brute-force model, over
// random configurations on grid traces where boundaries coincide (window
// edges, expiries at exactly W, sync instants, stamps of skewed nodes, the
// clamp at 0).
func TestAgainstNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 34))
	for i := range 1000 {
		// A grid of 1 or 3 ns makes stamps hit every boundary, including the
		// ones a nanosecond off what a 250 ms grid reaches.
		step := []int64{1, 3, 250 * ms}[rng.IntN(3)]
		c := Config{
			Spec:       specs[rng.IntN(len(specs))],
			Rule:       algorithms.Rule{L: 2 + rng.Int64N(8), W: step * (2 + rng.Int64N(10))},
			Nodes:      1 + rng.IntN(5),
			Route:      Routes[rng.IntN(len(Routes))],
			Sync:       []int64{0, step, 2 * step, 4 * step, 13 * step}[rng.IntN(5)],
			Skew:       []int64{0, step, 4 * step, 10 * step}[rng.IntN(4)],
			SkewRandom: rng.IntN(4) == 0,
			CountAll:   rng.IntN(4) == 0,
			Seed:       rng.Uint64(),
		}
		if c.SkewRandom { // random skews off the grid still hit the clamp at 0
			c.Skew += rng.Int64N(step)
		}
		if c.Spec == "buckets:3" && c.Rule.W < 3 {
			c.Rule.W = 3 // N sub-windows need W >= N ns
		}
		trace := grid(rng, 1+rng.IntN(3), step*(40+rng.Int64N(80)), step)
		m := &naive{c: c, skews: c.Skews(), recs: map[string][]naiveRec{}, ref: map[string][]naiveRec{}}
		s := newSim(t, c)
		what := fmt.Sprintf("config %d %+v", i, c)
		var bad bool
		var over int64
		keyOf := map[int32]string{}
		for _, q := range trace {
			cur := q
			s.onDecide = func(id int32, tt, cost int64, node int, admit, ref bool) {
				if k, ok := keyOf[id]; ok && k != cur.key {
					t.Fatalf("%s: id %d is %q and %q", what, id, k, cur.key)
				}
				keyOf[id] = cur.key
				a, r := m.decide(cur.key, node, tt, cost)
				if a && !r {
					over++
				}
				if !bad && (a != admit || r != ref) {
					bad = true
					t.Errorf("%s: key %s at %d cost %d node %d: sim %v/%v, model %v/%v", what, cur.key, tt, cost, node, admit, ref, a, r)
				}
			}
			if err := s.Add([]byte(q.key), q.t, q.cost); err != nil {
				t.Fatal(err)
			}
		}
		if r := s.Result(); r.Over != over {
			t.Errorf("%s: over %d, model %d", what, r.Over, over)
		}
	}
}
