package algorithms_test

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"ratebench/algorithms"
)

// tatTrace returns a random trace over keys from time 0 with gaps around
// rule r's emission interval W/L (none, 1 ns, a third, one, two, a window,
// random ones) and costs from 1 to 10, stopping a key before its time
// would pass the largest int64.
func tatTrace(rng *rand.Rand, r algorithms.Rule, keys, n int) []req {
	last := make([]int64, keys)
	stopped := make([]bool, keys)
	out := make([]req, 0, n)
	T := max(r.W/r.L, 1)
	T2 := min(T, math.MaxInt64/2) * 2
	for range n {
		k := rng.IntN(keys)
		if stopped[k] {
			continue
		}
		gaps := []int64{0, 0, 0, 1, T / 3, T, T2, r.W, rng.Int64N(T) + 1}
		gap := gaps[rng.IntN(len(gaps))]
		if gap > math.MaxInt64-last[k] {
			stopped[k] = true
			continue
		}
		last[k] += gap
		cost := int64(1)
		if rng.IntN(5) == 0 {
			cost = 1 + rng.Int64N(10)
		}
		out = append(out, req{Key: k, T: last[k], Cost: cost})
	}
	return out
}

// atEnd shifts a trace so that its last request is at the largest int64
// nanosecond (2262-04-11T23:47:16.854775807Z), keeping its gaps.
func atEnd(trace []req) []req {
	var last int64
	for _, q := range trace {
		last = max(last, q.T)
	}
	out := make([]req, len(trace))
	for i, q := range trace {
		out[i] = req{Key: q.Key, T: q.T + (math.MaxInt64 - last), Cost: q.Cost}
	}
	return out
}

// GCRA and the leaky bucket keep a virtual time that runs ahead of the
// requests by their backlog: near the end of int64 time it lies beyond the
// largest int64 nanosecond. They must still decide as the token bucket,
// request by request, and give the same Retry-After, without overflow,
// near math.MaxInt64 as near 0.
func TestTATDecidesAsTokenAtTheEndsOfTime(t *testing.T) {
	rules := []algorithms.Rule{
		{L: 5, W: int64(time.Hour)},
		{L: 3, W: 7},
		{L: 10, W: int64(time.Second)},
		{L: 1000000, W: int64(24 * time.Hour)},
		{L: 1, W: 1 << 62}, // a backlog of B requests is 2^62*B ns: beyond 2^64 at B = 8
		{L: 7, W: math.MaxInt64},
	}
	rng := rand.New(rand.NewPCG(8, 9))
	checked, refused, never := 0, 0, 0
	for _, r := range rules {
		for _, end := range []bool{false, true} {
			for range 3 {
				trace := tatTrace(rng, r, 3, 400)
				if end {
					trace = atEnd(trace)
				}
				for _, b := range []string{"", ":B=1", ":B=8", ":B=40"} {
					for _, policy := range []string{"independent", "shadow"} {
						var lims [3]algorithms.Limiter
						refs := [3]algorithms.Limiter{algorithms.NewLog(r), algorithms.NewLog(r), algorithms.NewLog(r)}
						for j, name := range []string{"token", "gcra", "leaky"} {
							lim, err := algorithms.New(name+b, r)
							if err != nil {
								t.Fatal(err)
							}
							lim.Grow(3)
							refs[j].Grow(3)
							lims[j] = lim
						}
						for i, q := range trace {
							id := int32(q.Key)
							var admit [3]bool
							var ra [3]int64
							var ok [3]bool
							for j, lim := range lims {
								admit[j] = lim.Decide(id, q.T, q.Cost)
								ra[j], ok[j] = lim.(algorithms.RetryAfterer).RetryAfter(id, q.T, q.Cost)
							}
							if admit[1] != admit[0] || admit[2] != admit[0] {
								t.Fatalf("%s on %v %s (end %v): request %d %+v: token %v, gcra %v, leaky %v", b, r, policy, end, i, q, admit[0], admit[1], admit[2])
							}
							if ok[1] != ok[0] || ok[2] != ok[0] || ok[0] && (ra[1] != ra[0] || ra[2] != ra[0]) {
								t.Fatalf("%s on %v %s (end %v): request %d %+v: Retry-After token %d %v, gcra %d %v, leaky %d %v",
									b, r, policy, end, i, q, ra[0], ok[0], ra[1], ok[1], ra[2], ok[2])
							}
							if ok[0] && (ra[0] < q.T || admit[0] != (ra[0] == q.T)) {
								t.Fatalf("%s on %v: request %d %+v: admit %v, Retry-After %d", b, r, i, q, admit[0], ra[0])
							}
							checked++
							if !admit[0] {
								refused++
								if !ok[0] {
									never++
								}
							}
							for j, lim := range lims {
								if recordsAs(lim, refs[j], policy, admit[j], id, q) {
									lim.Record(id, q.T, q.Cost)
								}
							}
						}
					}
				}
			}
		}
	}
	if refused < checked/10 || never == 0 || never == refused {
		t.Errorf("%d requests, %d refused, %d with no Retry-After within int64 time: the traces miss a case", checked, refused, never)
	}
}

// Ten requests at 2262-04-11T23:00:00Z under 5/1h: the backlog of five
// (5 x 12 min) ends after the last int64 nanosecond (23:47:16.85), yet
// GCRA and the queue admit five, as the token bucket and the log do.
func TestTATAdmitsFiveBeforeTheEndOfTime(t *testing.T) {
	r := algorithms.Rule{L: 5, W: int64(time.Hour)}
	at := time.Date(2262, 4, 11, 23, 0, 0, 0, time.UTC).UnixNano()
	for _, spec := range []string{"log", "token", "gcra", "leaky"} {
		lim, err := algorithms.New(spec, r)
		if err != nil {
			t.Fatal(err)
		}
		lim.Grow(1)
		admitted := 0
		for range 10 {
			if lim.Decide(0, at, 1) {
				admitted++
				lim.Record(0, at, 1)
			}
		}
		if admitted != 5 {
			t.Errorf("%s admits %d of ten, want 5", spec, admitted)
		}
	}
}
