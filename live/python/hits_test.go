package python

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"ratebench/algorithms"
)

// The requests the tests of this package send a driver and its model.

type hitReq struct {
	key     int32
	t, cost int64
}

// epochStart starts a trace on the epoch's scale, where time.time()'s
// float64 has a quarter microsecond's resolution; a trace from 0 has the
// check trace's, where 1.001 - 1 != 0.001.
const epochStart = int64(1_700_000_000_123_000_000)

// hitTrace makes n requests of keys (at most 8) in time order from start:
// some exactly W after a recent one or within 300 ns of that, others
// on a millisecond grid, a fifth costing up to maxCost.
func hitTrace(rng *rand.Rand, r algorithms.Rule, keys, n int, maxCost, start int64) []hitReq {
	tm := start
	var out []hitReq
	for range n {
		switch rng.IntN(6) {
		case 0:
			tm += rng.Int64N(r.W/r.L) + 1
		case 1, 2: // exactly W after one of the last 8 requests, or within 300 ns of it
			if len(out) > 0 {
				at := out[len(out)-1-rng.IntN(min(len(out), 8))].t + r.W
				if rng.IntN(2) == 0 {
					at += rng.Int64N(601) - 300
				}
				tm = max(tm, at)
			}
		case 3:
			tm += r.W + rng.Int64N(r.W)
		default:
			tm += int64(rng.IntN(int(r.W/int64(time.Millisecond))/int(r.L)+1)) * int64(time.Millisecond)
		}
		cost := int64(1)
		if rng.IntN(5) == 0 {
			cost = 1 + rng.Int64N(maxCost)
		}
		out = append(out, hitReq{int32(rng.IntN(keys)), tm, cost})
	}
	return out
}

// differ marks where a and b decide otherwise.
func differ(a, b []bool) []bool {
	out := make([]bool, len(a))
	for i := range a {
		out[i] = a[i] != b[i]
	}
	return out
}

// modelDecisions replays trace through spec, counting what it counts.
func modelDecisions(t *testing.T, spec string, r algorithms.Rule, trace []hitReq) []bool {
	t.Helper()
	l, err := algorithms.New(spec, r)
	if err != nil {
		t.Fatal(err)
	}
	l.Grow(8)
	every := algorithms.CountsEvery(l)
	out := make([]bool, len(trace))
	for i, q := range trace {
		out[i] = l.Decide(q.key, q.t, q.cost)
		if out[i] || every {
			l.Record(q.key, q.t, q.cost)
		}
	}
	return out
}

// liveHits replays trace through a driver's session, key k as "kK".
func liveHits(t *testing.T, s *Session, trace []hitReq) []bool {
	t.Helper()
	out := make([]bool, len(trace))
	for i, q := range trace {
		var err error
		if out[i], err = s.Hit(context.Background(), fmt.Sprintf("k%d", q.key), q.t, q.cost); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
