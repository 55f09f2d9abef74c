package algorithms_test

import (
	_ "ratebench/algorithms/products" // the catalogue's products, which the tests over the catalogue replay
	"ratebench/internal/algotest"
)

// The test kit this package shares with the products' tests.
type (
	step = algotest.Step
	req  = algotest.Req
)

var (
	runSteps      = algotest.RunSteps
	poissonish    = algotest.Poissonish
	edgeTrace     = algotest.EdgeTrace
	decisions     = algotest.Decisions
	sameDecisions = algotest.SameDecisions
	costTimeline  = algotest.CostTimeline
	products      = algotest.Products
	withoutAll    = algotest.WithoutAll
	propertyRules = algotest.PropertyRules
)
