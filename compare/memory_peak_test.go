package compare

import (
	"testing"

	"ratebench/algorithms"
	"ratebench/summary"
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

// A trace whose requests span more windows of the rule than the state is
// counted in (two requests a century apart at 5/1s, 3e9 windows) leaves
// the peak total not measured, with any number of workers, in bounded
// memory: counting every window would hold 24 GB a series.
func TestPeakTotalNotMeasuredBeyondTheWindowBound(t *testing.T) {
	t.Parallel()
	rule := mustRule(t, "5/1s")
	reqs := []rq{{"a", 0, 1}, {"b", sec, 1}, {"c", 100 * 365 * 24 * 3600 * sec, 1}}
	for _, workers := range []int{1, 3} {
		cfg := Config{Rules: []algorithms.Rule{rule}, Algorithms: []string{"counter", "token"}, Modes: []Mode{Independent}, Workers: workers}
		s := replay(t, cfg, reqs)
		for _, r := range s.Runs {
			if !r.Memory.TotalNotMeasured || r.Memory.PeakTotal != 0 || r.Timeline.Memory != nil || r.Memory.Windows != nil {
				t.Errorf("workers %d, %s: memory %+v, timeline memory %v: want the total not measured", workers, r.Algorithm, r.Memory, r.Timeline.Memory)
			}
			if r.Memory.PeakPerKey == 0 {
				t.Errorf("workers %d, %s: peak per key 0: the per-key figures are still measured", workers, r.Algorithm)
			}
		}
	}
	// Within the bound the total is measured.
	reqs[2].t = (summary.MaxMemoryWindows - 2) * sec
	s := replay(t, Config{Rules: []algorithms.Rule{rule}, Algorithms: []string{"counter"}, Modes: []Mode{Independent}}, reqs)
	for _, r := range s.Runs {
		if r.Memory.TotalNotMeasured || r.Memory.PeakTotal == 0 {
			t.Errorf("%s within the bound: memory %+v, want the total measured", r.Algorithm, r.Memory)
		}
	}
}
