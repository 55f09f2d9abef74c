package live

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"

	"ratebench/traces"
)

// MaxRequests bounds the trace a live replay holds in memory.
const MaxRequests = 10_000_000

// Trace is a trace as a live replay sends it: times in ns, in order, and
// dense key ids in order of first appearance. The software sees key id i
// as KeyName(i), never the trace's own key, so that no key can break a
// header, a command line or a driver's line protocol.
//
// Cost holds the requests' costs, which the models read and only software
// whose Target takes costs is sent: other software is sent one request
// for each, whatever its cost, as a product whose API takes no cost sees
// it. Nil means every request costs 1.
type Trace struct {
	T    []int64
	Key  []int32
	Keys int
	Cost []int64
}

// CostOf returns request i's cost: 1 when the trace has no costs.
func (tr *Trace) CostOf(i int) int64 {
	if tr.Cost == nil {
		return 1
	}
	return tr.Cost[i]
}

// KeyName is the name the software sees for key id.
func KeyName(id int32) string { return fmt.Sprintf("k%d", id) }

// Load reads r whole (at most MaxRequests requests). With costs, the
// requests keep their costs (for software that is sent them); without,
// a request of cost other than 1 is an error naming it, as the products
// count requests. A time that goes back is an error too.
func Load(r traces.Reader, name string, costs bool) (*Trace, error) {
	tr := &Trace{}
	ids := map[string]int32{}
	costly := false
	for r.Scan() {
		q := r.Request()
		if q.Cost != 1 && !costs {
			return nil, fmt.Errorf("%s: cost %d: a live replay through this software sends one request per line, of cost 1", r.Pos(), q.Cost)
		}
		if q.Cost < 1 || q.Cost > traces.MaxCost {
			return nil, fmt.Errorf("%s: cost %d out of range", r.Pos(), q.Cost)
		}
		if len(tr.T) >= MaxRequests {
			return nil, fmt.Errorf("%s: more than %d requests: a live replay holds its trace in memory; cut the trace", name, MaxRequests)
		}
		if n := len(tr.T); n > 0 && q.T < tr.T[n-1] {
			return nil, fmt.Errorf("%s: time goes back: a live replay sends requests in time order (read it with -reorder)", r.Pos())
		}
		id, ok := ids[string(q.Key)]
		if !ok {
			id = int32(len(ids))
			ids[string(q.Key)] = id
		}
		if q.Cost != 1 && !costly {
			costly, tr.Cost = true, make([]int64, len(tr.T), cap(tr.T))
			for i := range tr.Cost {
				tr.Cost[i] = 1
			}
		}
		tr.T = append(tr.T, q.T)
		tr.Key = append(tr.Key, id)
		if costly {
			tr.Cost = append(tr.Cost, q.Cost)
		}
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	if len(tr.T) == 0 {
		return nil, fmt.Errorf("%s: no requests", name)
	}
	tr.Keys = len(ids)
	return tr, nil
}

// CheckRule is the rule the check's trace is made for.
const CheckRule = "5/1s"

// CheckTraceName names Bursty3Keys in results.
const CheckTraceName = "bursty-3-keys"

// Bursty3Keys is the check's trace: three keys over about 12 seconds, each
// in bursts of 2 to 9 requests 10 to 150 ms apart, with pauses of 0.1 to
// 1.5 s between bursts and one pause of 4 s per key (longer than three
// windows of 1 s, so that an idle key's state expires), all on whole
// milliseconds. Under 5/1s the bursts cross the limit, the window's edges
// and an idle key's expiry. It is the same on every call (a fixed seed).
func Bursty3Keys() *Trace {
	const ms = int64(1e6)
	rng := rand.New(rand.NewPCG(27, 5))
	type req struct {
		t   int64
		key int32
	}
	var all []req
	for k := int32(0); k < 3; k++ {
		t := int64(k) * 137 * ms
		for burst := 0; t < 12_000*ms; burst++ {
			n := 2 + rng.IntN(8)
			gap := (10 + rng.Int64N(141)) * ms
			for range n {
				all = append(all, req{t, k})
				t += gap
			}
			if burst == 3+int(k) {
				t += 4000 * ms
			} else {
				t += (100 + rng.Int64N(1401)) * ms
			}
		}
	}
	// In time order; at equal times, in key order.
	slices.SortStableFunc(all, func(a, b req) int { return cmp.Or(cmp.Compare(a.t, b.t), cmp.Compare(a.key, b.key)) })
	tr := &Trace{Keys: 3}
	for _, q := range all {
		tr.T = append(tr.T, q.t)
		tr.Key = append(tr.Key, q.key)
	}
	return tr
}

// Bursty3KeysWithCosts is the check's trace with costs (WithCosts, a fixed
// seed). The software is sent the very requests of Bursty3Keys, so a
// product whose API takes no cost, counting one per request, decides it
// as it decides Bursty3Keys, and its model must too; under 5/1s charging
// the costs decides some requests otherwise.
func Bursty3KeysWithCosts() *Trace { return Bursty3Keys().WithCosts(27) }

// WithCosts returns tr's requests with costs drawn from seed: about a
// third cost 2 or 3, the others 1.
func (tr *Trace) WithCosts(seed uint64) *Trace {
	rng := rand.New(rand.NewPCG(seed, 6))
	c := *tr
	c.Cost = make([]int64, len(tr.T))
	for i := range c.Cost {
		c.Cost[i] = 1
		if rng.IntN(3) == 0 {
			c.Cost[i] = 2 + rng.Int64N(2)
		}
	}
	return &c
}
