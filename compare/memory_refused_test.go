package compare

import (
	"slices"
	"testing"

	"ratebench/algorithms"
)

// A request the counter refuses and does not record leaves its state as
// it was: at rule 3/7s, key a's request of cost 1 at 0 s fills its first
// window; at 8 s it asks for 4 (estimate 1·6/7 + 4 > 3), is refused and
// recorded nowhere, so that at 14 s both windows the counter reads, [7 s,
// 14 s) and [14 s, 21 s), are empty: a's state is back to its initial
// value. Only b, with a request at 20 s, holds state in the third window:
// 24 bytes in each window, not 48 in the last. The log refuses the request
// at 8 s too, so shadow mode gives the same figures.
func TestCounterMemoryAfterARefusedRequest(t *testing.T) {
	t.Parallel()
	reqs := []rq{{"a", 0, 1}, {"a", 8 * sec, 4}, {"b", 20 * sec, 1}}
	checkCounterMemory(t, reqs, []Mode{Independent, Shadow})
}

// The same with costs of 1, in independent mode: a's three requests at 0 s
// fill its first window, its fourth at 8 s is refused (3·6/7 + 1 > 3) and
// not recorded, and at 14 s its state is initial again.
func TestCounterMemoryAfterARefusedRequestOfCostOne(t *testing.T) {
	t.Parallel()
	reqs := []rq{{"a", 0, 1}, {"a", 0, 1}, {"a", 0, 1}, {"a", 8 * sec, 1}, {"b", 20 * sec, 1}}
	checkCounterMemory(t, reqs, []Mode{Independent})
}

// checkCounterMemory replays reqs at 3/7s through the counter in modes and
// checks its memory per window and peak against their definition: 24
// bytes in each of the three windows.
func checkCounterMemory(t *testing.T, reqs []rq, modes []Mode) {
	t.Helper()
	cfg := Config{Rules: []algorithms.Rule{mustRule(t, "3/7s")}, Algorithms: []string{"counter"}, Modes: modes}
	s := replay(t, cfg, reqs)
	for _, m := range modes {
		r := findRun(t, s, string(m), "counter")
		if r.Admitted != int64(len(reqs)-1) || r.Rejected != 1 {
			t.Fatalf("%s: %d admitted, %d refused: want only a's request at 8 s refused", m, r.Admitted, r.Rejected)
		}
		if r.Timeline.WidthNS != 7*sec {
			t.Fatalf("%s: timeline bins of %d ns, want the rule's 7 s", m, r.Timeline.WidthNS)
		}
		if want := []int64{24, 24, 24}; !slices.Equal(r.Timeline.Memory, want) || r.Memory.PeakTotal != 24 {
			t.Errorf("%s: timeline memory %v, peak total %d: want %v and 24", m, r.Timeline.Memory, r.Memory.PeakTotal, want)
		}
	}
}
