package products_test

import (
	"math/rand/v2"
	"testing"

	"ratebench/algorithms"
	"ratebench/internal/algotest"
)

// The test kit this package shares with the textbook algorithms' tests.
type (
	step = algotest.Step
	req  = algotest.Req
)

var (
	runSteps          = algotest.RunSteps
	poissonish        = algotest.Poissonish
	edgeTrace         = algotest.EdgeTrace
	decisions         = algotest.Decisions
	sameDecisions     = algotest.SameDecisions
	costTimeline      = algotest.CostTimeline
	catalogueProducts = algotest.Products
	withoutAll        = algotest.WithoutAll
	propertyRules     = algotest.PropertyRules
	checkSpecs        = algotest.CheckSpecs
	ownTimeline       = algotest.OwnTimeline
	mustRule          = algotest.MustRule
	checkDeviation    = algotest.CheckDeviation
)

// idleIsFresh replays a random trace of one key through two limiters of
// spec, one released whenever Idle says so, counting requests as the
// product does: they decide alike, and the key is released at times.
func idleIsFresh(t *testing.T, rng *rand.Rand, spec string, r algorithms.Rule, start int64) {
	t.Helper()
	kept, freed := mustNewRule(t, spec, r), mustNewRule(t, spec, r)
	rel := freed.(algorithms.Releaser)
	kept.Grow(1)
	freed.Grow(1)
	every := algorithms.CountsEvery(kept)
	now, released := start, 0
	for i := range 20000 {
		switch rng.IntN(8) {
		case 0: // the same instant
		case 1: // a window later, the end instant of one begun then
			now += r.W
		case 2: // a quiet spell
			now += rng.Int64N(3 * r.W)
		default:
			now += rng.Int64N(r.W / r.L)
		}
		if rel.Idle(0, now) {
			rel.Release(0)
			released++
		}
		cost := int64(1 + rng.IntN(2))
		a, b := kept.Decide(0, now, cost), freed.Decide(0, now, cost)
		if a != b {
			t.Fatalf("%s %v: request %d at %d: kept %v, released %v", spec, r, i, now, a, b)
		}
		if a || every {
			kept.Record(0, now, cost)
			freed.Record(0, now, cost)
		}
	}
	if released == 0 {
		t.Errorf("%s %v: never idle", spec, r)
	}
}
