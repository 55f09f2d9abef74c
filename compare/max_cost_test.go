package compare

import (
	"testing"

	"ratebench/algorithms"
	"ratebench/traces"
)

// TestMaxCostAgrees checks that the largest cost a trace reader accepts is
// the largest a limiter accepts: the two packages each define it, as
// neither imports the other.
func TestMaxCostAgrees(t *testing.T) {
	if traces.MaxCost != algorithms.MaxCost {
		t.Fatalf("traces.MaxCost = %d, algorithms.MaxCost = %d: a cost one accepts the other refuses",
			int64(traces.MaxCost), int64(algorithms.MaxCost))
	}
}
