package products_test

import (
	"strings"
	"testing"

	"ratebench/algorithms"
)

// 1/1s: the first request makes the key's limiter at 0 and takes its
// permit; the heartbeat at 1.0 s renews the window (idle since then). At
// 11.1 s, the first heartbeat over 10 s later, the limiter is dropped: the
// request at 11.55 s makes a new one, its window till the heartbeat at
// 12.6 s, so 12.05 s is refused (the kept limiter, renewed at 12.0 s,
// would admit it). The request at 12.6 s is in the new window.
func TestDotnetFixedTimeline(t *testing.T) {
	l := mustNew(t, "dotnet", "1/1s")
	if p := l.(algorithms.Product); p.Twin() != "fixed" || l.Name() != "dotnet" || len(p.Deviations()) != 2 {
		t.Fatalf("%s: twin %q, deviations %v", l.Name(), p.Twin(), p.Deviations())
	}
	play(t, l, false, []step{
		{T: 0, Cost: 1, Admit: true},
		{T: 999 * ms, Cost: 1, Admit: false},
		{T: 11550 * ms, Cost: 1, Admit: true},
		{T: 12050 * ms, Cost: 1, Admit: false},
		{T: 12599 * ms, Cost: 1, Admit: false},
		{T: 12600 * ms, Cost: 1, Admit: true},
	})
	// A cost above the limit throws: refused, nothing taken.
	play(t, mustNew(t, "dotnet:limiter=fixed", "3/1s"), false, []step{
		{T: 0, Cost: 4, Admit: false}, {T: 0, Cost: 3, Admit: true}, {T: 0, Cost: 1, Admit: false},
	})
	if n := mustNew(t, "dotnet:limiter=fixed", "3/1s").Name(); n != "dotnet:limiter=fixed" {
		t.Errorf("name %s", n)
	}
	for _, bad := range []string{"dotnet:limiter=leaky", "dotnet:window=3"} {
		if _, err := algorithms.New(bad, mustRule(t, "3/1s")); err == nil || !strings.Contains(err.Error(), "dotnet:limiter=fixed") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

// Each deviation alone changes a decision of fixed.
func TestDotnetEachDeviationAloneChangesADecision(t *testing.T) {
	// anchor: 1/1s, requests at 0.5 s and 1.2 s: the epoch's windows
	// admit both; the key's window from 0.5 s holds 1.2 s.
	r := mustRule(t, "1/1s")
	tl := func(r algorithms.Rule, times ...int64) func(string) string {
		return func(spec string) string { return timeline(t, spec, r, times...) }
	}
	checkDeviation(t, tl(r, 500*ms, 1200*ms), "fixed", "dotnet:without=heartbeat", "anchor", "AA", "AR")
	// heartbeat: 1/250ms, requests at 0 and 260 ms: the epoch's window
	// [0, 250 ms) ends at 250 ms, but the heartbeat renews it at 300 ms.
	checkDeviation(t, tl(mustRule(t, "1/250ms"), 0, 260*ms), "fixed", "dotnet:without=anchor", "heartbeat", "AA", "AR")
}
