package products_test

import (
	"strings"
	"testing"
	"time"

	"ratebench/algorithms"
	"ratebench/algorithms/products"
)

// Each of gubernator's deviations, alone, changes a decision of its twin
// on a timeline worked out from algorithms.go; turned off too, the
// timeline is the twin's again.
func TestGubernatorEachDeviationAloneChangesADecision(t *testing.T) {
	ms := int64(time.Millisecond)
	unit := func(times ...int64) [][2]int64 {
		out := make([][2]int64, len(times))
		for i, at := range times {
			out[i] = [2]int64{at, 1}
		}
		return out
	}
	for _, c := range []struct {
		spec, dev, rule string
		reqs            [][2]int64
		twin, product   string
	}{
		// Anchored at 500 ms, the window [500 ms, 1500 ms] holds 1100 ms;
		// the epoch's [1 s, 2 s) does not hold the first two.
		{"gubernator", "anchor", "2/1s", unit(500*ms, 600*ms, 1100*ms), "AAA", "AAR"},
		// The item made at 0 expires when ExpireAt = 1000 < now: at
		// 1000 ms it is still there, full.
		{"gubernator", "closed", "2/1s", unit(0, 500*ms, 1000*ms), "AAA", "AAR"},

		// Emptied at 0.9 ms, the bucket refills 1 per second: at
		// 1000.5 ms it holds 0.9996; on the millisecond clock 1000 ms
		// have passed, one whole hit.
		{"gubernator:algorithm=leaky", "clock", "1/1s", [][2]int64{{900_000, 1}, {1000*ms + 500_000, 1}}, "AR", "AA"},
		// Emptied at 0, 200 ms later 11 hits have leaked exactly; in
		// float64, 2e8 / (1e9/55) = 10.999999999999998, 10 whole.
		{"gubernator:algorithm=leaky", "float", "55/1s", [][2]int64{{0, 55}, {200 * ms, 11}}, "AA", "AR"},
		// Emptied at 0; at 750 ms 1.5 leaked, one taken, 0.5 left; at
		// 1100 ms 0.7 more has leaked (1.2 in all), but not a whole hit
		// since the last addition, so none is added.
		{"gubernator:algorithm=leaky", "whole-leak", "2/1s", [][2]int64{{0, 2}, {750 * ms, 1}, {1100 * ms, 1}}, "AAA", "AAR"},
		// The same: at 750 ms the request takes the one whole hit of 1.5
		// and the bucket is emptied, so 1100 ms finds 0.7.
		{"gubernator:algorithm=leaky", "drop-fraction", "2/1s", [][2]int64{{0, 2}, {750 * ms, 1}, {1100 * ms, 1}}, "AAA", "AAR"},
		// One taken at 0; at 750 ms the bucket holds 1 + 1.5 = 2.5, whose
		// whole part does not exceed 2, so it stays 2.5; one taken, 1.5,
		// and 0.5 more at 1000 ms makes 2, where the twin has 1.5.
		{"gubernator:algorithm=leaky", "cap-fraction", "2/1s", [][2]int64{{0, 1}, {750 * ms, 1}, {1000 * ms, 2}}, "AAR", "AAA"},
		// A first request of cost 3 > 2 is refused and leaves the new
		// bucket empty.
		{"gubernator:algorithm=leaky", "drain-new", "2/1s", [][2]int64{{0, 3}, {0, 1}}, "RA", "RR"},
	} {
		r, err := algorithms.ParseRule(c.rule)
		if err != nil {
			t.Fatal(err)
		}
		l, err := algorithms.New(c.spec, r)
		if err != nil {
			t.Fatal(err)
		}
		twin := l.(algorithms.Product).Twin()
		spec := alone(t, c.spec, c.dev, r)
		checkDeviation(t, func(spec string) string { return costTimeline(t, spec, r, c.reqs...) }, twin, spec, c.dev, c.twin, c.product)
	}
}

// The full models. The token bucket: a first request of cost 3 > 2 is
// refused but makes the item, so the window is [500 ms, 1500 ms], its end
// included, and the next starts at 1501 ms. The leaky bucket: emptied at
// 0, a whole window later float64(1000) / (1000.0/15) is
// 14.999999999999998, so a request of 15 is refused where exactly 15 have
// leaked.
func TestGubernatorFullModels(t *testing.T) {
	ms := int64(time.Millisecond)
	r, _ := algorithms.ParseRule("2/1s")
	reqs := [][2]int64{{500 * ms, 3}, {600 * ms, 1}, {1000 * ms, 1}, {1100 * ms, 1}, {1500 * ms, 1}, {1501 * ms, 1}}
	if got := costTimeline(t, "gubernator", r, reqs...); got != "RAARRA" {
		t.Errorf("gubernator decides %s, want RAARRA", got)
	}
	r, _ = algorithms.ParseRule("15/1s")
	reqs = [][2]int64{{0, 15}, {1000 * ms, 15}}
	if got := costTimeline(t, "gubernator:algorithm=leaky", r, reqs...); got != "AR" {
		t.Errorf("gubernator:algorithm=leaky decides %s, want AR", got)
	}
	if got := costTimeline(t, "gubernator:algorithm=leaky:without=float", r, reqs...); got != "AA" {
		t.Errorf("without float: %s, want AA", got)
	}
}

// The spec: algorithm=token (the default, named gubernator) or leaky; a
// window of whole milliseconds; anything else is refused, naming what to
// give.
func TestGubernatorSpecs(t *testing.T) {
	r, _ := algorithms.ParseRule("10/1m")
	checkSpecs(t, r, map[string]string{
		"gubernator":                                      "gubernator",
		"gubernator:algorithm=token":                      "gubernator",
		"gubernator:algorithm=leaky":                      "gubernator:algorithm=leaky",
		"gubernator:algorithm=leaky:without=clock":        "gubernator:algorithm=leaky:without=clock",
		"gubernator:without=closed:without=anchor":        "gubernator:without=anchor:without=closed",
		"gubernator:algorithm=leaky:without=cap-fraction": "gubernator:algorithm=leaky:without=cap-fraction",
	}, []string{"gubernator:", "gubernator:algorithm=", "gubernator:algorithm=gcra", "gubernator:burst=3", "gubernator:without=float"}, "gubernator", "known:")
	if _, err := algorithms.New("gubernator", algorithms.Rule{L: 10, W: int64(1500 * time.Microsecond)}); err == nil || !strings.Contains(err.Error(), "whole milliseconds") {
		t.Errorf("a window of 1.5 ms: %v, want an error naming whole milliseconds", err)
	}
	g, _ := products.NewGubernator(r, false)
	if len(g.Deviations()) != 2 || g.Twin() != "fixed" || g.CountsRejected() || g.Bytes(0) != 96 {
		t.Errorf("gubernator: deviations %v, twin %s, counts rejected %v, %d bytes", g.Deviations(), g.Twin(), g.CountsRejected(), g.Bytes(0))
	}
	if g, _ := products.NewGubernator(r, true); len(g.Deviations()) != 6 || g.Twin() != "token" {
		t.Errorf("gubernator:algorithm=leaky: deviations %v, twin %s", g.Deviations(), g.Twin())
	}
}

// A key is idle when its item has expired: the token bucket's after its
// window's end millisecond, the leaky bucket's a window after its last
// request.
func TestGubernatorIdle(t *testing.T) {
	ms := int64(time.Millisecond)
	r, _ := algorithms.ParseRule("2/1s")
	for _, c := range []struct {
		spec       string
		busy, idle int64
	}{{"gubernator", 1500*ms + ms - 1, 1501 * ms}, {"gubernator:algorithm=leaky", 1700*ms + ms - 1, 1701 * ms}} {
		l, _ := algorithms.New(c.spec, r)
		rel := l.(algorithms.Releaser)
		l.Grow(1)
		if !rel.Idle(0, 0) {
			t.Errorf("%s: a new key is not idle", c.spec)
		}
		for _, at := range []int64{500 * ms, 700 * ms} {
			if l.Decide(0, at, 1) {
				l.Record(0, at, 1)
			}
		}
		if rel.Idle(0, c.busy) || !rel.Idle(0, c.idle) {
			t.Errorf("%s: idle at %s %v, at %s %v", c.spec, time.Duration(c.busy), rel.Idle(0, c.busy), time.Duration(c.idle), rel.Idle(0, c.idle))
		}
	}
}
