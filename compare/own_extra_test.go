package compare

import (
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
	if inUse := x.inUse(); inUse != 0 {
		t.Errorf("%d ownExtras of %d still in use when no key holds a disagreement in its window", inUse, x.all.Len())
	}
}
