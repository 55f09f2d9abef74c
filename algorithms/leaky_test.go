package algorithms_test

import (
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"ratebench/algorithms"
)

// modelQueue is docs/definitions.md §10 in exact rationals, written as a queue level
// rather than a finishing time: the level drains (t-last)*L/W units, never
// below 0; a request fits iff level + cost <= B; a queued request waits
// level*W/L (the queue ahead of it drains), then adds cost to the level.
type modelQueue struct {
	r     algorithms.Rule
	b     int64
	level map[int]*big.Rat
	last  map[int]int64
}

func (m *modelQueue) drain(k int, t int64) *big.Rat {
	q, ok := m.level[k]
	if !ok {
		q = new(big.Rat)
		m.level[k] = q
	}
	q.Sub(q, new(big.Rat).SetFrac(new(big.Int).Mul(bigInt(t-m.last[k]), bigInt(m.r.L)), bigInt(m.r.W)))
	if q.Sign() < 0 {
		q.SetInt64(0)
	}
	m.last[k] = t
	return q
}

func (m *modelQueue) decide(k int, t, cost int64) bool {
	q := m.drain(k, t)
	return new(big.Rat).Add(q, rat(cost)).Cmp(rat(m.b)) <= 0
}

// record queues the request and returns its delay, the time until the
// queue with it has drained (it has left), rounded up to whole ns, and
// whether the exact delay was a whole number.
func (m *modelQueue) record(k int, t, cost int64) (delay int64, whole bool) {
	q := m.drain(k, t)
	q.Add(q, rat(cost))
	d := new(big.Rat).Mul(q, new(big.Rat).SetFrac(bigInt(m.r.W), bigInt(m.r.L)))
	num, den := d.Num(), d.Denom()
	ceil := new(big.Int).Add(num, new(big.Int).Sub(den, big.NewInt(1)))
	ceil.Quo(ceil, den)
	return ceil.Int64(), d.IsInt()
}

var leakyRules = append([]algorithms.Rule{
	{L: 3, W: int64(7 * time.Second)},
	{L: 7, W: 1000},
}, modelRules...)

// TestLeakyAgainstQueueModel checks Leaky's decisions and delays against
// the queue written as a level in exact rationals, under each policy.
func TestLeakyAgainstQueueModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	delayed, fractional := 0, 0
	for _, r := range leakyRules {
		for _, trace := range retryTraces(rng, r) {
			for _, b := range []int64{0, 2, 40} {
				for _, policy := range []string{"independent", "shadow"} {
					lk := algorithms.NewLeaky(r, b)
					mod := &modelQueue{r: r, b: lk.Capacity(), level: map[int]*big.Rat{}, last: map[int]int64{}}
					ref := algorithms.NewLog(r)
					lk.Grow(3)
					ref.Grow(3)
					for i, q := range trace {
						id := int32(q.Key)
						got, want := lk.Decide(id, q.T, q.Cost), mod.decide(q.Key, q.T, q.Cost)
						if got != want {
							t.Fatalf("%s %v %s: request %d %+v: admit=%v, the queue model says %v", lk.Name(), r, policy, i, q, got, want)
						}
						if recordsAs(lk, ref, policy, got, id, q) {
							lk.Record(id, q.T, q.Cost)
							want, whole := mod.record(q.Key, q.T, q.Cost)
							if d := lk.Delay(id); d != want {
								t.Fatalf("%s %v %s: request %d %+v: delay %d, the queue model says %d", lk.Name(), r, policy, i, q, d, want)
							}
							if want > 0 {
								delayed++
								if !whole {
									fractional++
								}
							}
						}
					}
				}
			}
		}
	}
	if delayed < 1000 || fractional < 100 {
		t.Errorf("only %d delayed requests, %d with a fractional delay: the traces do not exercise the queue", delayed, fractional)
	}
}

// TestLeakyAdmitsAsToken shows what the Leaky doc claims: with the same B,
// the queue admits exactly the requests the token bucket (and GCRA) admits,
// whether it records its own admissions or (shadow) the reference's.
func TestLeakyAdmitsAsToken(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	admitted, refused := 0, 0
	for _, r := range append(leakyRules, propertyRules...) {
		traces := append(retryTraces(rng, r), poissonish(rng, r, 20, 20000))
		for _, trace := range traces {
			for _, b := range []string{"", ":B=1", ":B=2", ":B=40"} {
				for _, policy := range []string{"independent", "shadow"} {
					var got [3][]bool
					for j, name := range []string{"leaky", "token", "gcra"} {
						lim, err := algorithms.New(name+b, r)
						if err != nil {
							t.Fatal(err)
						}
						got[j] = replayPolicy(lim, algorithms.NewLog(r), trace, policy)
					}
					if !slices.Equal(got[0], got[1]) || !slices.Equal(got[0], got[2]) {
						i := 0
						for got[0][i] == got[1][i] && got[0][i] == got[2][i] {
							i++
						}
						t.Fatalf("leaky%s on %v %s: request %d %+v: leaky %v, token %v, gcra %v", b, r, policy, i, trace[i], got[0][i], got[1][i], got[2][i])
					}
					for _, ok := range got[0] {
						if ok {
							admitted++
						} else {
							refused++
						}
					}
				}
			}
		}
	}
	if admitted < 10000 || refused < 10000 {
		t.Errorf("%d admitted, %d refused: the traces do not exercise the limit", admitted, refused)
	}
}

// TestLeakyDelays follows one key of rule 3/10ns (a unit drains every
// 10/3 ns) with B = 3: a burst of three is admitted at once, as by the
// token bucket, but has left the queue 10/3, 20/3 and 10 ns later; a
// request of cost 3 into an empty queue leaves it 10 ns later, not at once.
func TestLeakyDelays(t *testing.T) {
	lk, err := algorithms.New("leaky", algorithms.Rule{L: 3, W: 10})
	if err != nil {
		t.Fatal(err)
	}
	d := lk.(algorithms.Delayer)
	lk.Grow(1)
	for _, s := range []struct {
		t, cost int64
		admit   bool
		delay   int64
	}{
		{0, 1, true, 4},   // empty queue: its unit drains in ceil(10/3)
		{0, 1, true, 7},   // after one unit: ceil(20/3)
		{0, 1, true, 10},  // after two: 10
		{0, 1, false, 0},  // full
		{3, 1, false, 0},  // level 3 - 9/10 = 2.1: 1 more does not fit
		{4, 1, true, 10},  // level 1.8; F = 10 + 10/3: ceil(28/3)
		{4, 2, false, 0},  // level 2.8
		{30, 3, true, 10}, // drained: a whole burst of B again, gone at F = 40
		{31, 1, false, 0}, // F = 40: level 2.7
		{34, 1, true, 10}, // level 1.8; F = 40 + 10/3: ceil(28/3)
	} {
		if got := lk.Decide(0, s.t, s.cost); got != s.admit {
			t.Fatalf("t=%d cost %d: admit=%v, want %v", s.t, s.cost, got, s.admit)
		}
		if s.admit {
			lk.Record(0, s.t, s.cost)
			if got := d.Delay(0); got != s.delay {
				t.Errorf("t=%d cost %d: delay %d, want %d", s.t, s.cost, got, s.delay)
			}
		}
	}
	if l := lk.(*algorithms.Leaky); l.Level(0, 34) != 2.8 || l.Level(0, 44) != 0 {
		t.Errorf("level after the last request: %v at 34, %v at 44; want 2.8 and 0", l.Level(0, 34), l.Level(0, 44))
	}
}

func TestLeakySpec(t *testing.T) {
	r := algorithms.Rule{L: 5, W: int64(time.Second)}
	for spec, want := range map[string]string{"leaky": "leaky", " leaky:B=9 ": "leaky:B=9"} {
		lim, err := algorithms.New(spec, r)
		if err != nil || lim.Name() != want {
			t.Errorf("New(%q) = %v, %v; want %s", spec, lim, err, want)
			continue
		}
		if lim.CountsRejected() || !lim.FixedSize() || lim.Bytes(0) != 8 {
			t.Errorf("%s: CountsRejected %v, FixedSize %v, Bytes %d", want, lim.CountsRejected(), lim.FixedSize(), lim.Bytes(0))
		}
	}
	for _, bad := range []string{"leaky:B=0", "leaky:9", "leaky:B=x"} {
		if _, err := algorithms.New(bad, r); err == nil {
			t.Errorf("New(%q) accepted", bad)
		}
	}
	if slices.Contains(algorithms.DefaultSpecs, "leaky") {
		t.Error("leaky is in DefaultSpecs")
	}
	found := false
	for _, c := range algorithms.Catalogue() {
		found = found || c.Spec == "leaky[:B=N]"
	}
	if !found {
		t.Error("leaky is not in the Catalogue")
	}
}
