package algorithms_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"ratebench/algorithms"
)

// replayPolicy replays trace through lim, recording per policy
// ("independent": lim's own admits; "all": every request where --count all
// applies; "shadow": what ref admitted, ref recording its own admits), and
// returns lim's decisions. ref may be nil except for shadow.
func replayPolicy(lim, ref algorithms.Limiter, trace []req, policy string) []bool {
	keys := 0
	for _, q := range trace {
		keys = max(keys, q.Key+1)
	}
	lim.Grow(keys)
	if ref != nil {
		ref.Grow(keys)
	}
	out := make([]bool, len(trace))
	for i, q := range trace {
		id := int32(q.Key)
		out[i] = lim.Decide(id, q.T, q.Cost)
		if recordsAs(lim, ref, policy, out[i], id, q) {
			lim.Record(id, q.T, q.Cost)
		}
	}
	return out
}

// recordsAs reports whether lim records request q it decided admit on,
// under policy; for shadow it runs the reference ref on q.
func recordsAs(lim, ref algorithms.Limiter, policy string, admit bool, id int32, q req) bool {
	switch policy {
	case "all":
		return admit || lim.CountsRejected()
	case "shadow":
		refAdmit := ref.Decide(id, q.T, q.Cost)
		if refAdmit {
			ref.Record(id, q.T, q.Cost)
		}
		return refAdmit
	}
	return admit
}

// retryEvent is one request of a key's history: Decide was called, and Record
// too when rec.
type retryEvent struct {
	t, cost int64
	rec     bool
}

// retryStats counts what a RetryAfter check met, to show the traces
// exercise it.
type retryStats struct {
	refusals int // refused requests checked
	later    int // of which RetryAfter was more than 1 ns later
	never    int // of which RetryAfter said never (ok false)
}

func (s *retryStats) add(o retryStats) {
	s.refusals += o.refusals
	s.later += o.later
	s.never += o.never
}

// retryCase is a limiter under test: mk builds a fresh one, mkRef the
// reference for shadow mode, limit is the largest cost it can ever admit
// (RetryAfter's ok must be cost <= limit), horizon a delay after which any
// admissible request is admitted.
type retryCase struct {
	name           string
	mk, mkRef      func() algorithms.Limiter
	limit, horizon int64
}

// checkRetryAfter replays trace through c.mk() under policy and, at every
// refusal at t, checks RetryAfter's answer r on fresh limiters replaying the
// key's history up to that refusal: Decide at r admits, Decide at r-1 (when
// r-1 >= t) and at a random time in [t, r-1] refuse, RetryAfter at r is r,
// and a retry after the whole seconds of RoundUpSeconds is admitted. When
// ok is false, the cost must exceed c.limit and Decide must still refuse
// after c.horizon. A twin limiter that is never asked RetryAfter must decide
// the same, so RetryAfter changes no decision.
func checkRetryAfter(t *testing.T, c retryCase, rng *rand.Rand, trace []req, policy string) retryStats {
	t.Helper()
	lim, twin := c.mk(), c.mk()
	ra, ok := lim.(algorithms.RetryAfterer)
	if !ok {
		t.Fatalf("%s does not implement RetryAfterer", c.name)
	}
	var ref algorithms.Limiter
	if policy == "shadow" {
		ref = c.mkRef()
	}
	keys := 0
	for _, q := range trace {
		keys = max(keys, q.Key+1)
	}
	lim.Grow(keys)
	twin.Grow(keys)
	if ref != nil {
		ref.Grow(keys)
	}
	hist := make([][]retryEvent, keys)
	// replica returns a fresh limiter (key 0) in key's state as of
	// Decide(t0, cost) after the history.
	replica := func(key int, t0, cost int64) algorithms.Limiter {
		l := c.mk()
		l.Grow(1)
		for _, e := range hist[key] {
			l.Decide(0, e.t, e.cost)
			if e.rec {
				l.Record(0, e.t, e.cost)
			}
		}
		l.Decide(0, t0, cost)
		return l
	}
	var st retryStats
	for i, q := range trace {
		id := int32(q.Key)
		admit := lim.Decide(id, q.T, q.Cost)
		if tw := twin.Decide(id, q.T, q.Cost); tw != admit {
			t.Fatalf("%s %s request %d: admit=%v but the twin never asked RetryAfter says %v", c.name, policy, i, admit, tw)
		}
		if !admit {
			st.refusals++
			r, ok := ra.RetryAfter(id, q.T, q.Cost)
			where := func() string {
				return fmt.Sprintf("%s %s: request %d (key %d, t=%d, cost %d)", c.name, policy, i, q.Key, q.T, q.Cost)
			}
			switch {
			case ok != (q.Cost <= c.limit):
				t.Fatalf("%s: RetryAfter ok=%v with limit %d", where(), ok, c.limit)
			case !ok:
				st.never++
				if replica(q.Key, q.T, q.Cost).Decide(0, q.T+c.horizon, q.Cost) {
					t.Fatalf("%s: RetryAfter says never, but it is admitted %dns later", where(), c.horizon)
				}
			case r < q.T:
				t.Fatalf("%s: RetryAfter %d is before t", where(), r)
			default:
				if r > q.T+1 {
					st.later++
				}
				at := replica(q.Key, q.T, q.Cost)
				if !at.Decide(0, r, q.Cost) {
					t.Fatalf("%s: refused at RetryAfter %d (+%dns)", where(), r, r-q.T)
				}
				if r2, ok2 := at.(algorithms.RetryAfterer).RetryAfter(0, r, q.Cost); !ok2 || r2 != r {
					t.Fatalf("%s: admitted at %d, but RetryAfter there is %d, %v", where(), r, r2, ok2)
				}
				if x := q.T + algorithms.RoundUpSeconds(q.T, r)*int64(time.Second); !at.Decide(0, x, q.Cost) {
					t.Fatalf("%s: refused at %d, RetryAfter %d rounded up to whole seconds", where(), x, r)
				}
				if r-1 >= q.T && replica(q.Key, q.T, q.Cost).Decide(0, r-1, q.Cost) {
					t.Fatalf("%s: admitted at %d, 1ns before RetryAfter %d", where(), r-1, r)
				}
				if r-1 > q.T {
					x := q.T + rng.Int64N(r-q.T)
					if replica(q.Key, q.T, q.Cost).Decide(0, x, q.Cost) {
						t.Fatalf("%s: admitted at %d, before RetryAfter %d", where(), x, r)
					}
				}
			}
		}
		rec := recordsAs(lim, ref, policy, admit, id, q)
		hist[q.Key] = append(hist[q.Key], retryEvent{q.T, q.Cost, rec})
		if rec {
			lim.Record(id, q.T, q.Cost)
			twin.Record(id, q.T, q.Cost)
		}
	}
	return st
}

// retryRules includes rules whose W/L and W/N are not whole nanoseconds.
var retryRules = append([]algorithms.Rule{
	{L: 3, W: int64(7 * time.Second)},
	{L: 7, W: 1000},
}, modelRules...)

// retrySpecs are DefaultSpecs and more parameters of the same algorithms.
func retrySpecs() []string {
	specs := append([]string(nil), algorithms.DefaultSpecs...)
	return append(specs, "buckets:1", "buckets:3", "buckets:7", "token:B=2", "token:B=40",
		"gcra:B=2", "gcra:B=40", "leaky", "leaky:B=2", "leaky:B=40", "xrate", "xrate:B=2")
}

// costLimit returns the largest cost lim can ever admit under rule r.
func costLimit(lim algorithms.Limiter, r algorithms.Rule) int64 {
	if lim.Name() == "counter-lt" {
		return 1<<63 - 1 // E < L does not look at the cost
	}
	if c, ok := lim.(interface{ Capacity() int64 }); ok {
		return c.Capacity()
	}
	return r.L
}

// retryTraces returns the test traces for rule r: edge traces from 0 and
// from a Unix time, and a Poisson-like one hovering at the limit.
func retryTraces(rng *rand.Rand, r algorithms.Rule) [][]req {
	return [][]req{
		edgeTrace(rng, r, 3, 300, 0),
		edgeTrace(rng, r, 3, 300, 1_700_000_000_123_456_789),
		poissonish(rng, r, 3, 300),
	}
}

func TestRetryAfterIsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, spec := range retrySpecs() {
		var total retryStats
		for _, r := range retryRules {
			probe, err := algorithms.New(spec, r)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := probe.(algorithms.RetryAfterer); !ok {
				t.Fatalf("%s does not implement RetryAfterer", spec)
			}
			c := retryCase{
				name:    spec + " " + r.String(),
				mk:      func() algorithms.Limiter { l, _ := algorithms.New(spec, r); return l },
				mkRef:   func() algorithms.Limiter { return algorithms.NewLog(r) },
				limit:   costLimit(probe, r),
				horizon: 3*r.W + 1,
			}
			for _, trace := range retryTraces(rng, r) {
				for _, policy := range []string{"independent", "all", "shadow"} {
					total.add(checkRetryAfter(t, c, rng, trace, policy))
				}
			}
		}
		t.Logf("%s: %d refusals, %d with a later retry, %d never", spec, total.refusals, total.later, total.never)
		if total.later < 100 {
			t.Errorf("%s: only %d refusals with RetryAfter > t+1: the traces do not exercise it", spec, total.later)
		}
		if spec == "counter-lt" && total.never != 0 || spec != "counter-lt" && total.never == 0 {
			t.Errorf("%s: %d refusals that never pass", spec, total.never)
		}
	}
}

// TestRetryAfterTimelines checks hand-computed answers on fixed timelines.
func TestRetryAfterTimelines(t *testing.T) {
	type rec struct{ t, cost int64 }
	for _, tc := range []struct {
		spec    string
		rule    algorithms.Rule
		history []rec // recorded, on key 0
		t, cost int64
		want    int64 // -1: never
		why     string
	}{
		{"log", algorithms.Rule{L: 3, W: 10}, []rec{{5, 2}, {6, 1}}, 6, 1, 15, "the entry at 5 leaves (r-10, r] at r = 15"},
		{"log", algorithms.Rule{L: 3, W: 10}, []rec{{5, 2}, {6, 1}}, 6, 2, 15, "2 units leave at 15"},
		{"log", algorithms.Rule{L: 3, W: 10}, []rec{{5, 2}, {6, 1}}, 6, 3, 16, "all 3 leave at 16"},
		{"log", algorithms.Rule{L: 3, W: 10}, []rec{{5, 2}, {6, 1}}, 6, 4, -1, "cost > L"},
		{"fixed", algorithms.Rule{L: 2, W: 10}, []rec{{3, 1}, {4, 1}}, 4, 1, 10, "next window"},
		{"counter", algorithms.Rule{L: 4, W: 10}, []rec{{0, 4}}, 10, 1, 13, "4*(10-e) <= 30: e >= 2.5"},
		{"counter", algorithms.Rule{L: 4, W: 10}, []rec{{0, 4}}, 10, 4, 20, "4*(10-e) <= 0: the next window"},
		{"counter", algorithms.Rule{L: 4, W: 10}, []rec{{5, 4}}, 6, 2, 15, "curr = 4 until 10, then 4*(10-e) <= 20: e >= 5"},
		{"counter", algorithms.Rule{L: 4, W: 10}, []rec{{9, 4}}, 9, 4, 20, "prev = curr = 4 until 20: two windows on"},
		{"counter-floor", algorithms.Rule{L: 4, W: 10}, []rec{{0, 4}}, 10, 1, 11, "floor(4*(10-e)/10) <= 3: e >= 1"},
		{"counter-lt", algorithms.Rule{L: 4, W: 10}, []rec{{0, 4}}, 10, 1, 11, "4*(10-e) < 40: e >= 1"},
		{"counter-lt", algorithms.Rule{L: 4, W: 10}, []rec{{0, 4}}, 10, 9, 11, "the cost does not matter"},
		{"token", algorithms.Rule{L: 2, W: 10}, []rec{{0, 2}}, 0, 1, 5, "a token every 5ns"},
		{"token", algorithms.Rule{L: 2, W: 10}, []rec{{0, 2}}, 0, 2, 10, "two tokens"},
		{"token", algorithms.Rule{L: 3, W: 10}, []rec{{0, 3}}, 0, 1, 4, "a token every 10/3 ns: ceil"},
		{"token", algorithms.Rule{L: 3, W: 10}, []rec{{0, 3}}, 0, 4, -1, "cost > B"},
		{"gcra", algorithms.Rule{L: 3, W: 10}, []rec{{0, 3}}, 0, 1, 4, "as token"},
		{"gcra", algorithms.Rule{L: 3, W: 10}, []rec{{0, 3}}, 0, 3, 10, "as token"},
		{"gcra", algorithms.Rule{L: 3, W: 10}, []rec{{0, 3}, {12, 3}}, 12, 3, 22, "TAT = 12 + 10"},
		{"leaky", algorithms.Rule{L: 3, W: 10}, []rec{{0, 3}}, 0, 2, 7, "level 3 - 3x/10 <= 1: x >= 20/3"},
		{"buckets:2", algorithms.Rule{L: 4, W: 7}, []rec{{0, 4}}, 7, 1, 8, "sub-windows of 3.5ns: 4*(7-rem) <= 21 with rem = 2x-14"},
		{"buckets:2", algorithms.Rule{L: 4, W: 7}, []rec{{0, 4}}, 7, 4, 11, "only when sub-window 0 is out: 2x >= 21"},
		{"buckets:1", algorithms.Rule{L: 4, W: 10}, []rec{{0, 4}}, 10, 1, 13, "as counter"},
	} {
		lim, err := algorithms.New(tc.spec, tc.rule)
		if err != nil {
			t.Fatal(err)
		}
		lim.Grow(1)
		for _, h := range tc.history {
			lim.Decide(0, h.t, h.cost)
			lim.Record(0, h.t, h.cost)
		}
		if lim.Decide(0, tc.t, tc.cost) {
			t.Fatalf("%s %v: cost %d admitted at %d; the case is wrong", tc.spec, tc.rule, tc.cost, tc.t)
		}
		r, ok := lim.(algorithms.RetryAfterer).RetryAfter(0, tc.t, tc.cost)
		if want := tc.want >= 0; ok != want || ok && r != tc.want {
			t.Errorf("%s %v: RetryAfter(t=%d, cost %d) = %d, %v; want %d (%s)", tc.spec, tc.rule, tc.t, tc.cost, r, ok, tc.want, tc.why)
		}
	}
}

func TestRetryAfterWhenAdmittedIsNow(t *testing.T) {
	r := algorithms.Rule{L: 5, W: int64(time.Second)}
	for _, spec := range retrySpecs() {
		lim, _ := algorithms.New(spec, r)
		ra, ok := lim.(algorithms.RetryAfterer)
		if !ok {
			continue // a peer library; TestRetryAfterIsExact says which
		}
		lim.Grow(1)
		if !lim.Decide(0, 42, 1) {
			t.Fatalf("%s refuses the first request", spec)
		}
		if got, ok := ra.RetryAfter(0, 42, 1); !ok || got != 42 {
			t.Errorf("%s: RetryAfter of an admissible request = %d, %v; want 42", spec, got, ok)
		}
	}
}

func TestRoundUpSeconds(t *testing.T) {
	const s = int64(time.Second)
	for _, tc := range []struct{ t, r, want int64 }{
		{0, 0, 0},
		{5, 3, 0},
		{0, 1, 1},
		{0, s - 1, 1},
		{0, s, 1},
		{0, s + 1, 2},
		{7, 7 + 2*s, 2},
		{7, 8 + 2*s, 3},
		{1_700_000_000_123_456_789, 1_700_000_059_123_456_790, 60},
		{0, 1<<63 - 1, 9223372037},
	} {
		if got := algorithms.RoundUpSeconds(tc.t, tc.r); got != tc.want {
			t.Errorf("RoundUpSeconds(%d, %d) = %d, want %d", tc.t, tc.r, got, tc.want)
		}
	}
	// The rounded delay never sends a client back before r, and is the
	// least such whole number of seconds.
	rng := rand.New(rand.NewPCG(13, 14))
	for range 10000 {
		t0 := rng.Int64N(1 << 61)
		r := t0 + rng.Int64N(int64(time.Hour))
		d := algorithms.RoundUpSeconds(t0, r)
		if t0+d*s < r || d > 0 && t0+(d-1)*s >= r {
			t.Fatalf("RoundUpSeconds(%d, %d) = %d", t0, r, d)
		}
	}
}
