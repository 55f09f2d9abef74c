package compare

import (
	"testing"

	"ratebench/algorithms"
)

// A trace whose requests all fall within one minute of each hour, like an
// access log of an hourly job: over four hours at 5/1s the timeline's bins
// are 32 s wide, and no bin ends while any state is held. The peak total
// is still the state all keys held together at its largest, for the log
// and every candidate: each key sends the same three requests, so the keys
// peak together and the most of each in a window is the true peak, found
// directly at every request instant (state only decays in between).
func TestPeakTotalOfHourlyBursts(t *testing.T) {
	t.Parallel()
	rule := mustRule(t, "5/1s")
	var reqs []rq
	for h := range int64(4) {
		for j := range int64(3) {
			for _, k := range []string{"a", "b", "c", "d", "e", "f"} {
				reqs = append(reqs, rq{k, h*3600*sec + 10*sec + j*sec/10, 1})
			}
		}
	}
	algs := []string{"counter", "fixed", "token", "gcra", "buckets:4"}
	cfg := Config{Rules: []algorithms.Rule{rule}, Algorithms: algs, Modes: []Mode{Independent}}
	s := replay(t, cfg, reqs)
	byKey := map[string][]rq{}
	for _, q := range reqs {
		byKey[q.key] = append(byKey[q.key], q)
	}
	// truePeak is the most the keys hold together just after the requests
	// at some instant, their states replayed directly.
	truePeak := func(alg string) int64 {
		var peak int64
		for _, x := range reqs {
			var total int64
			for _, kr := range byKey {
				if alg == "log" {
					total += logSizeAt(kr, x.t, rule.W)
					continue
				}
				lim := mustLimiter(t, alg, rule)
				lim.Grow(1)
				seen := false
				for _, q := range kr {
					if q.t > x.t {
						break
					}
					seen = true
					if lim.Decide(0, q.t, q.cost) {
						lim.Record(0, q.t, q.cost)
					}
				}
				if seen && !lim.(algorithms.Releaser).Idle(0, x.t) {
					total += lim.Bytes(0)
				}
			}
			peak = max(peak, total)
		}
		return peak
	}
	for _, alg := range append([]string{"log"}, algs...) {
		r := findRun(t, s, "independent", alg)
		if r.Timeline.WidthNS != 32*sec {
			t.Fatalf("%s: bins of %d ns, want 32 s", alg, r.Timeline.WidthNS)
		}
		want := truePeak(alg)
		if want == 0 || r.Memory.PeakTotal != want {
			t.Errorf("%s: peak total %d B, want %d", alg, r.Memory.PeakTotal, want)
		}
		if len(r.Timeline.Memory) == 0 {
			t.Errorf("%s: no memory series", alg)
		}
	}
	if r := findRun(t, s, "independent", "log"); r.Admitted != int64(len(reqs)) || r.Memory.PeakTotal != 6*(3*8+8) {
		t.Errorf("log: %d admitted of %d, peak total %d", r.Admitted, len(reqs), r.Memory.PeakTotal)
	}
}
