package products_test

import (
	"math/rand/v2"
	"testing"

	"ratebench/algorithms"
)

// 5/1s: the request at 0 leaves 4 tokens, refilled by 0.5 a heartbeat: the
// bucket is full again by 0.3 s, and its heartbeats then return before
// the time of the last replenishment moves. At 2 s the key takes its 5
// tokens; the heartbeat at 2.1 s credits the time since the bucket filled,
// more than a second: 5 tokens again, 10 admitted within 100 ms (the
// token bucket has half a token at 2.1 s). From then on 0.5 a heartbeat.
func TestDotnetTokenTimeline(t *testing.T) {
	l := mustNew(t, "dotnet:limiter=token", "5/1s")
	p := l.(algorithms.Product)
	if p.Twin() != "token" || l.Name() != "dotnet:limiter=token" || l.Bytes(0) != 24 || l.CountsRejected() || len(p.Deviations()) != 3 {
		t.Fatalf("%s: twin %q, %d bytes, deviations %v", l.Name(), p.Twin(), l.Bytes(0), p.Deviations())
	}
	steps := []step{
		{T: 0, Cost: 6, Admit: false}, // above TokenLimit: throws
		{T: 0, Cost: 1, Admit: true},
		{T: 2000 * ms, Cost: 5, Admit: true},
		{T: 2050 * ms, Cost: 1, Admit: false},
		{T: 2100 * ms, Cost: 5, Admit: true},
		{T: 2150 * ms, Cost: 1, Admit: false},
		{T: 2250 * ms, Cost: 1, Admit: false}, // half a token
		{T: 2350 * ms, Cost: 1, Admit: true},
	}
	play(t, l, false, steps)
	if got := costTimeline(t, "token", mustRule(t, "5/1s"), [2]int64{0, 1}, [2]int64{2000 * ms, 5}, [2]int64{2100 * ms, 5}); got != "AAR" {
		t.Errorf("the token bucket: %s, want AAR", got)
	}
	// The limiter, full since 1 s, is dropped at 11.1 s: the request at
	// 11.05 s still finds it, its tokens credited back at 11.1 s; at 11.15
	// s a new limiter's replenishment counts from its creation.
	r := mustRule(t, "5/1s")
	kept := costTimeline(t, "dotnet:limiter=token", r, [2]int64{0, 5}, [2]int64{11050 * ms, 5}, [2]int64{11100 * ms, 5})
	dropped := costTimeline(t, "dotnet:limiter=token", r, [2]int64{0, 5}, [2]int64{11150 * ms, 5}, [2]int64{11200 * ms, 1})
	if kept != "AAA" || dropped != "AAR" {
		t.Errorf("kept: %s, want AAA; dropped: %s, want AAR", kept, dropped)
	}
	// The double refill of 1/1s: ten heartbeats of 0.1 make
	// 0.9999999999999999, so the token spent at 0 is back at 1.1 s.
	if got := timeline(t, "dotnet:limiter=token", mustRule(t, "1/1s"), 0, 1000*ms, 1099*ms, 1100*ms); got != "ARRA" {
		t.Errorf("1/1s: %s, want ARRA", got)
	}
}

// Each deviation alone changes a decision of the token bucket.
func TestDotnetTokenEachDeviationAloneChangesADecision(t *testing.T) {
	tl := func(rule string, reqs ...[2]int64) func(string) string {
		r := mustRule(t, rule)
		return func(spec string) string { return costTimeline(t, spec, r, reqs...) }
	}
	// heartbeat: 1/1s, made at 50 ms, its token spent: the heartbeats at
	// 0.1 s to 1 s give back 0.05 + 0.9; the bucket holds 1.01 at 1.06 s.
	checkDeviation(t, tl("1/1s", [2]int64{50 * ms, 1}, [2]int64{1060 * ms, 1}), "token", "dotnet:limiter=token:without=full-credit:without=float", "heartbeat", "AA", "AR")
	// full-credit: 2/1s, refilled at each request: the refused request at
	// 1 s (3 tokens, above TokenLimit) fills the bucket; the one at 4 s
	// finds it full, so the time stays at 1 s and 4 s + 1 ns credits 3 s.
	checkDeviation(t, tl("2/1s", [2]int64{0, 2}, [2]int64{sec, 3}, [2]int64{4 * sec, 2}, [2]int64{4*sec + 1, 2}), "token", "dotnet:limiter=token:without=heartbeat:without=float", "full-credit", "ARAR", "ARAA")
	// float: 9/1m, refilled at each request: 9/6e8 tokens a tick times
	// 6e10 ns times 0.01 is 8.999999999999998, short of the 9 the bucket
	// has back after a minute.
	checkDeviation(t, tl("9/1m", [2]int64{0, 9}, [2]int64{60 * sec, 9}), "token", "dotnet:limiter=token:without=heartbeat:without=full-credit", "float", "AA", "AR")
}

// With every deviation off, the token bucket limiter decides as token.
func TestDotnetTokenWithoutDeviationsIsToken(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 3))
	for _, r := range productRules {
		l, err := algorithms.New("dotnet:limiter=token", r)
		if err != nil {
			t.Fatal(err)
		}
		p := l.(algorithms.Product)
		sameDecisions(t, p.Twin(), withoutAll(p), r, poissonish(rng, r, 20, 20000), false)
	}
}
