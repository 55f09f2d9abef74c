package compare

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"ratebench/algorithms"
)

// A key replayed alone decides every request as the engine's runs do: for
// every key, rule (plain and layered), count policy and mode, its over-
// and under-admissions per algorithm are those of the key in the summary;
// against the plain log and against the log behind a refusal cache.
func TestKeyReplayAgreesWithTheEngine(t *testing.T) {
	for _, ref := range []string{"log", "log:block=20s"} {
		t.Run(ref, func(t *testing.T) { keyReplayAgreesWithTheEngine(t, ref) })
	}
}

func keyReplayAgreesWithTheEngine(t *testing.T, ref string) {
	rng := rand.New(rand.NewPCG(7, 9))
	var reqs []rq
	at := int64(0)
	for range 3000 {
		at += rng.Int64N(2 * sec)
		reqs = append(reqs, rq{fmt.Sprintf("k%d", rng.IntN(6)), 1_000*sec + at, 1 + rng.Int64N(2)})
	}
	specs := []string{"counter", "counter-lt", "fixed", "token", "gcra", "buckets:4", "counter:block=20s"}
	plain, _ := algorithms.ParseRules("5/30s")
	layered, _ := algorithms.ParseRules("3/10s+8/1m")
	for _, rules := range [][]algorithms.Rule{plain, layered} {
		cfg := Config{Reference: ref, Algorithms: append([]string{"log"}, specs...), Modes: []Mode{Independent, Shadow}, Counts: []Count{CountAccepted, CountAll}, TopKeys: 100}
		if len(rules) == 1 {
			cfg.Rules = rules
		} else {
			cfg.Layered = [][]algorithms.Rule{rules}
		}
		s := replay(t, cfg, reqs)
		checked := 0
		for _, run := range s.Runs {
			if run.Algorithm == "log" {
				continue
			}
			for key := range 6 {
				name := fmt.Sprintf("k%d", key)
				kr, err := NewKeyReplay(rules, ref, specs, Count(run.Count), Mode(run.Mode))
				if err != nil {
					t.Fatal(err)
				}
				alg := -1
				for i, a := range kr.Algorithms() {
					if a == run.Algorithm {
						alg = i
					}
				}
				var over, under int64
				for _, q := range reqs {
					if q.key != name {
						continue
					}
					d, err := kr.Add(q.t, q.cost)
					if err != nil {
						t.Fatal(err)
					}
					switch {
					case d.Admit[alg] && !d.Log:
						over++
					case !d.Admit[alg] && d.Log:
						under++
					}
					// The window algorithms estimate the window's cost (not
					// layered, whose decision is every layer's).
					hasEst := len(rules) == 1 && run.Algorithm != "token" && run.Algorithm != "gcra" && !strings.Contains(run.Algorithm, ":block")
					if e := d.Estimate[alg]; math.IsNaN(e) == hasEst {
						t.Fatalf("%s: estimate %v", run.Algorithm, e)
					}
				}
				var wantOver, wantUnder int64
				for _, k := range run.TopKeys {
					if k.Key == name {
						wantOver, wantUnder = k.Over, k.Under
					}
				}
				if over != wantOver || under != wantUnder {
					t.Errorf("rule %s, count %s, mode %s, %s, key %s: over %d, under %d; the engine's %d, %d",
						run.Rule, run.Count, run.Mode, run.Algorithm, name, over, under, wantOver, wantUnder)
				}
				if over+under > 0 {
					checked++
				}
			}
		}
		if checked < 20 {
			t.Errorf("rule %v: only %d keys × runs with disagreements", rules, checked)
		}
	}
}

func TestKeyReplayRefuses(t *testing.T) {
	rules, _ := algorithms.ParseRules("5/30s")
	if _, err := NewKeyReplay(rules, "log", []string{"counter"}, "some", Independent); err == nil {
		t.Error("an unknown count policy accepted")
	}
	if _, err := NewKeyReplay(rules, "log", []string{"nope"}, CountAccepted, Independent); err == nil {
		t.Error("an unknown algorithm accepted")
	}
	kr, _ := NewKeyReplay(rules, "log", []string{"counter"}, CountAccepted, Shadow)
	if _, err := kr.Add(10*sec, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := kr.Add(9*sec, 1); err == nil {
		t.Error("a request back in time accepted")
	}
	if _, err := kr.Add(11*sec, 0); err == nil {
		t.Error("cost 0 accepted")
	}
}
