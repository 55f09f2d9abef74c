package compare

import (
	"math/rand/v2"
	"testing"

	"ratebench/algorithms"
)

// A run keeps a key's ownExtra (its disagreements in the window) only
// while it holds some: after bursts that
// disagree and are refused, a last admitted request of every key a window
// later leaves none in use, the handles freed for the next.
func TestOwnExtrasHeldOnlyForAWhile(t *testing.T) {
	t.Parallel()
	reqs := randomTrace(3, 6000, 30, 30*sec)
	var end int64
	keys := map[string]bool{}
	for _, q := range reqs {
		end, keys[q.key] = max(end, q.t), true
	}
	for k := range keys { // every key admitted once more, its window empty
		reqs = append(reqs, rq{k, end + 31*sec, 1})
	}
	cfg := Config{Rules: []algorithms.Rule{mustRule(t, "5/30s")}, Algorithms: []string{"counter", "fixed", "token"}, Modes: []Mode{Independent}}
	e := fed(t, withMinSweep(cfg, 1<<62), reqs)
	x := &e.workers[0].rows.extras
	if x.all.Len() == 0 {
		t.Fatalf("no run kept an ownExtra: the trace lacks power")
	}
	if inUse := x.all.Len() - len(x.free); inUse != 0 {
		t.Errorf("%d ownExtras of %d still in use when no key holds a disagreement in its window", inUse, x.all.Len())
	}
}

// An ownExtra's disagreements, held in it or spilled to the pool past
// disInline, sum and empty as one WindowSum of them would; dropped, its
// spilled window goes back to the pool.
func TestOwnExtraHoldsWhatAWindowSumHolds(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 8))
	var x ownExtras
	spilled := false
	for trial := range 300 {
		h := x.make()
		var want algorithms.WindowSum
		now := int64(0)
		for range rng.IntN(40) {
			now += rng.Int64N(5)
			if rng.IntN(3) == 0 {
				cut := now - rng.Int64N(8)
				x.at(h).expire(&x, cut)
				want.Expire(cut)
			} else {
				c := rng.Int64N(5) - 2
				x.at(h).add(&x, now, c)
				want.Add(now, c)
			}
			e := x.at(h)
			spilled = spilled || e.spill != 0
			if got := e.sum(&x); got != want.Sum() {
				t.Fatalf("trial %d: sum %d, a WindowSum of the same %d", trial, got, want.Sum())
			}
			if e.empty(&x) != (want.Len() == 0) {
				t.Fatalf("trial %d: empty %v with %d held", trial, e.empty(&x), want.Len())
			}
		}
		x.drop(h)
		if x.spills.Len() != 0 {
			t.Fatalf("trial %d: %d spilled windows left after the drop", trial, x.spills.Len())
		}
	}
	if !spilled {
		t.Fatal("no ownExtra spilled: the test lacks power")
	}
}
