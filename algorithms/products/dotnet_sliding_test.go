package products_test

import (
	"math/rand/v2"
	"testing"

	"ratebench/algorithms"
)

// The worked example of ASP.NET Core's documentation: a 30 s window of 3
// segments and 100 permits. The limiter is made at 0, a heartbeat, so its
// segments end at 10 s, 20 s... exactly; at each, a request of one permit
// more than the documentation's "available" is refused, then its "taken"
// admitted. From 30 s on, each slide gives back what the segment 30 s
// earlier took.
func TestDotnetSlidingDocumentationExample(t *testing.T) {
	l := mustNew(t, "dotnet:limiter=sliding", "100/30s")
	p := l.(algorithms.Product)
	if p.Twin() != "buckets:3" || l.Name() != "dotnet:limiter=sliding" || l.Bytes(0) != 8*3+32 || len(p.Deviations()) != 3 {
		t.Fatalf("%s: twin %q, %d bytes, deviations %v", l.Name(), p.Twin(), l.Bytes(0), p.Deviations())
	}
	var steps []step
	for _, row := range []struct{ at, available, taken int64 }{
		{0, 100, 20}, {10, 80, 30}, {20, 50, 40}, {30, 30, 30}, {40, 30, 10}, {50, 60, 10}, {60, 80, 35},
	} {
		steps = append(steps, step{T: row.at * sec, Cost: row.available + 1, Admit: false}, step{T: row.at * sec, Cost: row.taken, Admit: true})
	}
	play(t, l, false, append([]step{{T: 0, Cost: 101, Admit: false}}, steps...))
}

// 1/1s in 3 segments: a segment is 333.3333 ms, so each ends at the
// heartbeat after, 400 ms from the last: the window is 1.2 s, and the
// permit taken at 0 is back at the slide at 1.2 s. Given back, the
// limiter is idle from 1.2 s and dropped at 11.3 s, the first heartbeat
// more than 10 s later: the request at 11.35 s makes a new one, whose
// segments end at 11.7 s, 12.1 s and 12.5 s, so 12.45 s is refused where
// the kept limiter (its segments ending at 11.6 s, 12.0 s, 12.4 s) would
// admit it.
func TestDotnetSlidingTimeline(t *testing.T) {
	r := mustRule(t, "1/1s")
	tl := func(spec string, times ...int64) string { return timeline(t, spec, r, times...) }
	if got := tl("dotnet:limiter=sliding", 0, 1100*ms, 1199*ms, 1200*ms); got != "ARRA" {
		t.Errorf("the 1.2 s window: %s, want ARRA", got)
	}
	if got := tl("dotnet:limiter=sliding", 0, 11350*ms, 12450*ms, 12500*ms); got != "AARA" {
		t.Errorf("the idle drop: %s, want AARA", got)
	}
	if got := tl("dotnet:limiter=sliding", 0, 11250*ms, 11350*ms); got != "AAR" {
		t.Errorf("before the drop the limiter is kept: %s, want AAR", got)
	}
	// Without the heartbeat the segments are W/S exactly, and the limiter,
	// idle from the slide at 1 s, is dropped at the first instant more
	// than 10 s later: 11.2 s makes a new one, whose first segment holds
	// it at 12.1 s; kept (anchor off: no drop), the window there is
	// [11.333 s, 12.333 s).
	if got := tl("dotnet:limiter=sliding:without=heartbeat", 0, 11200*ms, 12100*ms); got != "AAR" {
		t.Errorf("the idle drop without the heartbeat: %s, want AAR", got)
	}
	if got := tl("dotnet:limiter=sliding:without=heartbeat:without=anchor", 0, 11200*ms, 12100*ms); got != "AAA" {
		t.Errorf("kept on the epoch's segments: %s, want AAA", got)
	}
	// Below a heartbeat a segment lasts one: 3/150ms in 3 segments is a
	// window of 300 ms.
	r3 := mustRule(t, "3/150ms")
	if got := timeline(t, "dotnet:limiter=sliding", r3, 0, 0, 0, 250*ms, 300*ms); got != "AAARA" {
		t.Errorf("3/150ms: %s, want AAARA", got)
	}
	// segments=1 is a fixed window renewed on the heartbeat, as dotnet's.
	sameDecisions(t, "dotnet", "dotnet:limiter=sliding:segments=1", r, poissonish(rand.New(rand.NewPCG(3, 1)), r, 5, 3000), false)
}

// Each deviation alone changes a decision of buckets:S.
func TestDotnetSlidingEachDeviationAloneChangesADecision(t *testing.T) {
	tl := func(rule string, times ...int64) func(string) string {
		r := mustRule(t, rule)
		return func(spec string) string { return timeline(t, spec, r, times...) }
	}
	// anchor: 1/1s in 2 segments, requests at 0.4 s and 1.6 s: the
	// epoch's sub-window of 0.4 s is [0, 0.5 s), wholly out of the window
	// at 1.5 s; the segments from 0.4 s hold it till 1.9 s.
	checkDeviation(t, tl("1/1s", 400*ms, 1600*ms), "buckets:2", "dotnet:limiter=sliding:segments=2:without=heartbeat:without=unweighted", "anchor", "AA", "AR")
	// heartbeat: 1/1s in 3, requests at 0 and 1.4 s: buckets:3 has
	// forgotten [0, 333 ms) at 1.333 s; on the heartbeat the segment of
	// 0 is given back at 1.2 s but still weighs, as the old one, till
	// 1.2 s + 333.3333 ms.
	checkDeviation(t, tl("1/1s", 0, 1400*ms), "buckets:3", "dotnet:limiter=sliding:without=anchor:without=unweighted", "heartbeat", "AA", "AR")
	// unweighted: 1/1s in 3, requests at 0 and 1.1 s: buckets:3 still
	// counts 0.7 of the sub-window of 0; the segments 1 to 3 hold nothing.
	checkDeviation(t, tl("1/1s", 0, 1100*ms), "buckets:3", "dotnet:limiter=sliding:without=anchor:without=heartbeat", "unweighted", "AR", "AA")
}

// With every deviation off, the sliding window decides as buckets:S, with
// the default 3 segments and others.
func TestDotnetSlidingWithoutDeviationsIsBuckets(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 2))
	for _, r := range productRules {
		for _, spec := range []string{"dotnet:limiter=sliding", "dotnet:limiter=sliding:segments=1", "dotnet:limiter=sliding:segments=7"} {
			l, err := algorithms.New(spec, r)
			if err != nil {
				t.Fatal(err)
			}
			p := l.(algorithms.Product)
			trace := poissonish(rng, r, 20, 20000)
			sameDecisions(t, p.Twin(), withoutAll(p), r, trace, false)
		}
	}
}

// dotnet's specs: the limiter and, with the sliding window, its segments.
func TestDotnetSpecs(t *testing.T) {
	checkSpecs(t, mustRule(t, "5/1s"), map[string]string{
		"dotnet":                                "dotnet",
		"dotnet:limiter=fixed":                  "dotnet:limiter=fixed",
		"dotnet:limiter=sliding":                "dotnet:limiter=sliding",
		"dotnet:segments=4:limiter=sliding":     "dotnet:limiter=sliding:segments=4",
		"dotnet:limiter=sliding:segments=3":     "dotnet:limiter=sliding:segments=3",
		"dotnet:limiter=token":                  "dotnet:limiter=token",
		"dotnet:limiter=token:without=float":    "dotnet:limiter=token:without=float",
		"dotnet:limiter=sliding:without=anchor": "dotnet:limiter=sliding:without=anchor",
	}, nil)
	checkSpecs(t, mustRule(t, "5/1s"), nil, []string{"dotnet:limiter=leaky", "dotnet:segments=0:limiter=sliding", "dotnet:limiter=sliding:segments=x", "dotnet:window=3"}, "dotnet:limiter=sliding[:segments=N]")
	checkSpecs(t, mustRule(t, "5/1s"), nil, []string{"dotnet:segments=3", "dotnet:limiter=token:segments=2"}, "with limiter=sliding")
	checkSpecs(t, mustRule(t, "5/1s"), nil, []string{"dotnet:limiter=sliding:segments=100000"}, "at most 65536 segments")
	checkSpecs(t, mustRule(t, "5/1ms"), nil, []string{"dotnet:limiter=sliding:segments=20000"}, "at most 10000 segments")
}
