package products_test

import (
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
