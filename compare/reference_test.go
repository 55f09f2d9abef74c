package compare

import (
	"fmt"
	"strings"
	"testing"

	"ratebench/algorithms"
	"ratebench/summary"
)

// Behind a refusal cache the reference refuses a key it refused for the
// block's duration, though its log would admit it: rule 2/1s, a block of
// 1s. The plain log refuses 0.2s and 0.5s and admits 1.15s (the requests
// at 0 and 0.1s have left the window); behind the cache, 0.2s blocks the
// key till 1.2s, so 0.5s and 1.15s are refused by the cache, which does
// not extend the block, and 1.25s is admitted.
func TestReferenceBehindACache(t *testing.T) {
	rule, _ := algorithms.ParseRule("2/1s")
	var reqs []rq
	for _, ms := range []int64{0, 100, 200, 500, 1150, 1250} {
		reqs = append(reqs, rq{"a", ms * 1e6, 1})
	}
	for _, c := range []struct {
		ref      string
		admitted int64
	}{{"", 4}, {"log", 4}, {"log:block=1s", 3}} {
		s := replay(t, Config{Reference: c.ref, Rules: []algorithms.Rule{rule}, Algorithms: []string{"counter"}, Modes: []Mode{Independent}}, reqs)
		if got := findRun(t, s, "independent", "log").Admitted; got != c.admitted {
			t.Errorf("reference %q admitted %d, want %d", c.ref, got, c.admitted)
		}
		if want := map[string]string{"log:block=1s": "log:block=1s"}[c.ref]; s.Config.Reference != want {
			t.Errorf("reference %q: the summary names %q", c.ref, s.Config.Reference)
		}
		if err := s.Validate(); err != nil {
			t.Error(err)
		}
	}
	for _, bad := range []string{"counter", "counter:block=1s", "log:block=-1s", "nope"} {
		if _, err := New(Config{Reference: bad}); err == nil || !strings.Contains(err.Error(), "reference") {
			t.Errorf("reference %q: %v", bad, err)
		}
	}
	if _, err := New(Config{Reference: "log:block", Deployment: &summary.Deployment{Nodes: []int{1}, Sync: []int64{0}, Skew: []int64{0}}}); err == nil {
		t.Error("a blocked reference with deployments was accepted")
	}
}

// The engine's runs against the log behind a cache, the candidate behind
// the same cache, decide as the pair replay does, which puts both behind
// algorithms.Blocked as a limiter: the same requests over and under, the
// same sources, the same refusals of the reference, under either count
// policy and for a block till the window's end or for a duration.
func TestReferenceBlockIsThePairReplay(t *testing.T) {
	const spec = "population:requests=40000,sources=200,rate=0.5,alpha=1.5,seed=5"
	rule, _ := algorithms.ParseRule("20/10s")
	for _, block := range []string{"window", "1m"} {
		for _, count := range []Count{CountAll, CountAccepted} {
			name := fmt.Sprintf("block %s, count %s", block, count)
			ref, cand := "log:block", "counter:block"
			if block != "window" {
				ref, cand = ref+"="+block, cand+"="+block
			}
			want, err := ReplayPair(pairGen(t, spec), Pair{Rule: rule, Block: block, Count: count})
			if err != nil {
				t.Fatal(err)
			}
			eng, err := New(Config{Reference: ref, Rules: []algorithms.Rule{rule}, Algorithms: []string{cand}, Counts: []Count{count}, Modes: []Mode{Independent}, Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			g := pairGen(t, spec)
			for g.Scan() {
				q := g.Request()
				if err := eng.Add(q.Key, q.T, q.Cost); err != nil {
					t.Fatal(err)
				}
			}
			s := eng.Summary(summary.TraceInfo{Path: "test", Format: "memory"})
			run, log := findRun(t, s, "independent", cand), findRun(t, s, "independent", "log")
			if want.Over == 0 || want.RefRefused == 0 {
				t.Fatalf("%s: a trace meant to disagree: %+v", name, want)
			}
			if run.Over != want.Over || run.Under != want.Under || run.KeysOver != want.KeysOver || run.KeysUnder != want.KeysUnder || log.Rejected != want.RefRefused {
				t.Errorf("%s: engine over %d under %d sources %d/%d, log refused %d; pair %+v", name,
					run.Over, run.Under, run.KeysOver, run.KeysUnder, log.Rejected, want)
			}
		}
	}
}
