package algorithms_test

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"
	"time"

	"ratebench/algorithms"
)

// This file checks every limiter against a model written straight from the
// formulas of docs/definitions.md in math/big rationals: slow, obviously right, and immune to
// overflow and rounding. Random traces aim at the edges: requests at the same
// instant, exactly W apart, on sub-window boundaries, after long gaps, with
// large costs, and with limits and windows whose products overflow int64.

// model is a limiter's specification in exact rationals.
type model interface {
	decide(key int, t, cost int64) bool
	record(key int, t, cost int64)
}

func rat(v int64) *big.Rat { return new(big.Rat).SetInt64(v) }

func bigInt(v int64) *big.Int { return big.NewInt(v) }

// floorDiv returns floor(a*b/d) for non-negative values, exactly.
func floorDiv(a, b, d int64) int64 {
	p := new(big.Int).Mul(bigInt(a), bigInt(b))
	return p.Quo(p, bigInt(d)).Int64()
}

type entry struct{ t, c int64 }

// modelLog: A = cost in (t-W, t]; admit iff A + cost <= L.
type modelLog struct {
	r   algorithms.Rule
	log map[int][]entry
}

func (m *modelLog) decide(k int, t, cost int64) bool {
	var a int64
	for _, e := range m.log[k] {
		if e.t > t-m.r.W {
			a += e.c
		}
	}
	return a+cost <= m.r.L
}

func (m *modelLog) record(k int, t, cost int64) { m.log[k] = append(m.log[k], entry{t, cost}) }

// modelWindows counts cost per fixed window (or sub-window) index.
type modelWindows map[int]map[int64]int64

func (m modelWindows) get(k int, w int64) int64 { return m[k][w] }
func (m modelWindows) add(k int, w, c int64) {
	if m[k] == nil {
		m[k] = map[int64]int64{}
	}
	m[k][w] += c
}

// modelCounter implements counter, counter-lt, counter-floor and fixed.
type modelCounter struct {
	r       algorithms.Rule
	variant string
	w       modelWindows
}

func (m *modelCounter) decide(k int, t, cost int64) bool {
	W, L := m.r.W, m.r.L
	win := t / W
	e := t - win*W
	prev, curr := m.w.get(k, win-1), m.w.get(k, win)
	weighted := new(big.Rat).SetFrac(new(big.Int).Mul(bigInt(prev), bigInt(W-e)), bigInt(W))
	switch m.variant {
	case "fixed":
		return curr+cost <= L
	case "counter-floor":
		return floorDiv(prev, W-e, W)+curr+cost <= L
	case "counter-lt":
		est := weighted.Add(weighted, rat(curr))
		return est.Cmp(rat(L)) < 0
	}
	est := weighted.Add(weighted, rat(curr+cost))
	return est.Cmp(rat(L)) <= 0
}

func (m *modelCounter) record(k int, t, cost int64) { m.w.add(k, t/m.r.W, cost) }

// modelBuckets: s = floor(t*N/W), x = (t*N - s*W)/W, estimate = sum of
// sub-windows s-N+1..s + c[s-N]*(1-x).
type modelBuckets struct {
	r algorithms.Rule
	n int64
	w modelWindows
}

func (m *modelBuckets) sub(t int64) (s int64, x *big.Rat) {
	tn := new(big.Int).Mul(bigInt(t), bigInt(m.n))
	s = new(big.Int).Quo(tn, bigInt(m.r.W)).Int64()
	rem := tn.Sub(tn, new(big.Int).Mul(bigInt(s), bigInt(m.r.W)))
	return s, new(big.Rat).SetFrac(rem, bigInt(m.r.W))
}

func (m *modelBuckets) decide(k int, t, cost int64) bool {
	s, x := m.sub(t)
	est := rat(cost)
	for j := s - m.n + 1; j <= s; j++ {
		est.Add(est, rat(m.w.get(k, j)))
	}
	oneMinusX := new(big.Rat).Sub(rat(1), x)
	est.Add(est, oneMinusX.Mul(oneMinusX, rat(m.w.get(k, s-m.n))))
	return est.Cmp(rat(m.r.L)) <= 0
}

func (m *modelBuckets) record(k int, t, cost int64) {
	s, _ := m.sub(t)
	m.w.add(k, s, cost)
}

// modelToken: tokens = min(B, tokens + (t-last)*L/W), starting full; admit
// iff tokens >= cost; recording subtracts cost (possibly below zero).
type modelToken struct {
	r      algorithms.Rule
	b      int64
	tokens map[int]*big.Rat
	last   map[int]int64
}

func (m *modelToken) refill(k int, t int64) *big.Rat {
	tok, ok := m.tokens[k]
	if !ok {
		tok = rat(m.b)
		m.tokens[k] = tok
	} else {
		gain := new(big.Rat).SetFrac(new(big.Int).Mul(bigInt(t-m.last[k]), bigInt(m.r.L)), bigInt(m.r.W))
		tok.Add(tok, gain)
		if tok.Cmp(rat(m.b)) > 0 {
			tok.Set(rat(m.b))
		}
	}
	m.last[k] = t
	return tok
}

func (m *modelToken) decide(k int, t, cost int64) bool { return m.refill(k, t).Cmp(rat(cost)) >= 0 }
func (m *modelToken) record(k int, t, cost int64) {
	tok := m.refill(k, t)
	tok.Sub(tok, rat(cost))
}

func newModel(spec string, r algorithms.Rule) model {
	var n, b int64
	switch {
	case spec == "log":
		return &modelLog{r: r, log: map[int][]entry{}}
	case spec == "counter" || spec == "counter-lt" || spec == "counter-floor" || spec == "fixed":
		return &modelCounter{r: r, variant: spec, w: modelWindows{}}
	case spec == "token" || spec == "gcra":
		return &modelToken{r: r, b: r.L, tokens: map[int]*big.Rat{}, last: map[int]int64{}}
	}
	if _, err := fmt.Sscanf(spec, "buckets:%d", &n); err == nil {
		return &modelBuckets{r: r, n: n, w: modelWindows{}}
	}
	if _, err := fmt.Sscanf(spec, "token:B=%d", &b); err == nil {
		return &modelToken{r: r, b: b, tokens: map[int]*big.Rat{}, last: map[int]int64{}}
	}
	if _, err := fmt.Sscanf(spec, "gcra:B=%d", &b); err == nil {
		return &modelToken{r: r, b: b, tokens: map[int]*big.Rat{}, last: map[int]int64{}}
	}
	panic("no model for " + spec)
}

// policy says when a limiter records a request: "independent" (its own
// admits), "all" (every request, where --count all applies), or "shadow"
// (what the reference log admitted).
func replayAgainstModel(t *testing.T, spec string, r algorithms.Rule, trace []req, policy string) {
	t.Helper()
	lim, err := algorithms.New(spec, r)
	if err != nil {
		t.Fatal(err)
	}
	mod := newModel(spec, r)
	ref := algorithms.NewLog(r)
	keys := 0
	for _, q := range trace {
		keys = max(keys, q.Key+1)
	}
	lim.Grow(keys)
	ref.Grow(keys)
	for i, q := range trace {
		id := int32(q.Key)
		refAdmit := ref.Decide(id, q.T, q.Cost)
		got, want := lim.Decide(id, q.T, q.Cost), mod.decide(q.Key, q.T, q.Cost)
		if got != want {
			t.Fatalf("%s %v %s: request %d (key %d, t=%d, cost %d): admit=%v, model says %v", spec, r, policy, i, q.Key, q.T, q.Cost, got, want)
		}
		rec := got
		switch policy {
		case "all":
			rec = got || lim.CountsRejected()
		case "shadow":
			rec = refAdmit
		}
		if rec {
			lim.Record(id, q.T, q.Cost)
			mod.record(q.Key, q.T, q.Cost)
		}
		if refAdmit {
			ref.Record(id, q.T, q.Cost)
		}
	}
}

var modelRules = []algorithms.Rule{
	{L: 5, W: int64(30 * time.Second)},
	{L: 3, W: 7}, // W/N is never a whole number of ns
	{L: 10, W: int64(time.Second)},
	{L: 1000000, W: int64(24 * time.Hour)}, // L*W overflows int64
	{L: 97, W: int64(time.Minute) + 13},
}

func TestAlgorithmsAgreeWithModel(t *testing.T) {
	specs := []string{"log", "counter", "counter-lt", "counter-floor", "fixed", "token", "token:B=2", "token:B=40",
		"gcra", "gcra:B=2", "gcra:B=40", "buckets:1", "buckets:2", "buckets:3", "buckets:7"}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, r := range modelRules {
		for _, start := range []int64{0, 1_700_000_000_123_456_789} {
			trace := edgeTrace(rng, r, 3, 600, start)
			for _, spec := range specs {
				for _, policy := range []string{"independent", "all", "shadow"} {
					replayAgainstModel(t, spec, r, trace, policy)
				}
			}
		}
	}
}
