package compare

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"ratebench/algorithms"
	"ratebench/generators"
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
// the same cache, decide as the two replayed side by side per key as
// plain limiters do (algorithms.Blocked's Decide, which asks the log only
// when the key is not blocked): the same requests over and under, the same
// keys, the same refusals of the reference, under either count policy,
// for no cache, a block till the window's end and one for a duration.
func TestReferenceBlockIsTwoBlockedLimiters(t *testing.T) {
	const spec = "population:requests=40000,sources=200,rate=0.5,alpha=1.5,seed=5"
	rule, _ := algorithms.ParseRule("20/10s")
	reqs := populationReqs(t, spec)
	for _, suffix := range []string{"", ":block", ":block=1m"} {
		for _, count := range []Count{CountAll, CountAccepted} {
			name := fmt.Sprintf("cache %q, count %s", suffix, count)
			ref, cand := "log"+suffix, "counter"+suffix
			s := replay(t, Config{Reference: ref, Rules: []algorithms.Rule{rule}, Algorithms: []string{cand}, Counts: []Count{count}, Modes: []Mode{Independent}, Workers: 2}, reqs)
			run, log := findRun(t, s, "independent", cand), findRun(t, s, "independent", "log")
			want := sideBySide(t, reqs, rule, ref, cand, count)
			if want.over == 0 || want.refused == 0 {
				t.Fatalf("%s: a trace meant to disagree: %+v", name, want)
			}
			if run.Over != want.over || run.Under != want.under || run.KeysOver != want.keysOver || run.KeysUnder != want.keysUnder || log.Rejected != want.refused {
				t.Errorf("%s: engine over %d under %d keys %d/%d, log refused %d; side by side %+v", name,
					run.Over, run.Under, run.KeysOver, run.KeysUnder, log.Rejected, want)
			}
		}
	}
}

// sideBySide is what two limiters, the reference ref and the candidate
// cand, decide of reqs key by key, each recording what it admitted, or
// every request under count all.
type sides struct{ over, under, keysOver, keysUnder, refused int64 }

func sideBySide(t *testing.T, reqs []rq, rule algorithms.Rule, ref, cand string, count Count) sides {
	t.Helper()
	var out sides
	byKey := map[string][]rq{}
	var keys []string
	for _, q := range reqs {
		if byKey[q.key] == nil {
			keys = append(keys, q.key)
		}
		byKey[q.key] = append(byKey[q.key], q)
	}
	for _, k := range keys {
		a, err := algorithms.New(ref, rule)
		if err != nil {
			t.Fatal(err)
		}
		b, err := algorithms.New(cand, rule)
		if err != nil {
			t.Fatal(err)
		}
		a.Grow(1)
		b.Grow(1)
		var over, under int64
		for _, q := range byKey[k] {
			x, y := a.Decide(0, q.t, q.cost), b.Decide(0, q.t, q.cost)
			if x || count == CountAll {
				a.Record(0, q.t, q.cost)
			}
			if y || count == CountAll {
				b.Record(0, q.t, q.cost)
			}
			switch {
			case !x:
				out.refused++
				if y {
					over++
				}
			case !y:
				under++
			}
		}
		out.over, out.under = out.over+over, out.under+under
		if over > 0 {
			out.keysOver++
		}
		if under > 0 {
			out.keysUnder++
		}
	}
	return out
}

// Behind the same mitigation timeout, a request the counter lets through
// where the log refuses starts a block in the log only: every request of
// the block is then decided differently. Rule 2/10s, one key at 6, 7, 15,
// 40 and 50 s: at 15 s the counter estimates 2·(5/10) + 0 = 1 and admits,
// while the log holds the requests at 6 s and 7 s in (5 s, 15 s] and
// refuses, which blocks the key till 75 s; at 40 s and 50 s the counter's
// windows are clear and it admits, the log is still blocked.
func TestReferenceBlockSharedTimeout(t *testing.T) {
	rule, _ := algorithms.ParseRule("2/10s")
	var reqs []rq
	for _, s := range []int64{6, 7, 15, 40, 50} {
		reqs = append(reqs, rq{"k", s * 1e9, 1})
	}
	for _, c := range []struct {
		ref, cand               string
		over, keysOver, refused int64
	}{{"log:block=1m", "counter:block=1m", 3, 1, 3}, {"log", "counter", 1, 1, 1}} {
		s := replay(t, Config{Reference: c.ref, Rules: []algorithms.Rule{rule}, Algorithms: []string{c.cand}, Counts: []Count{CountAll}}, reqs)
		run, log := findRun(t, s, "independent", c.cand), findRun(t, s, "independent", "log")
		if run.Over != c.over || run.Under != 0 || run.KeysOver != c.keysOver || log.Rejected != c.refused {
			t.Errorf("%s against %s: over %d under %d keys over %d, log refused %d; want %d, 0, %d, %d",
				c.cand, c.ref, run.Over, run.Under, run.KeysOver, log.Rejected, c.over, c.keysOver, c.refused)
		}
	}
}

// Under count all the counter's estimate does not depend on its
// decisions: behind a timeout, its mean gap to the log's count is the one
// without (the requests the cache refuses, which reach neither limiter,
// are measured on states brought to their time).
func TestReferenceBlockGapIgnoresTheTimeout(t *testing.T) {
	const spec = "population:requests=40000,sources=200,rate=0.5,alpha=1.5,seed=5"
	rule, _ := algorithms.ParseRule("20/10s")
	reqs := populationReqs(t, spec)
	run := func(ref, cand string) (summary.Run, summary.Run) {
		s := replay(t, Config{Reference: ref, Rules: []algorithms.Rule{rule}, Algorithms: []string{cand}, Counts: []Count{CountAll}}, reqs)
		return findRun(t, s, "independent", cand), findRun(t, s, "independent", "log")
	}
	plain, plainLog := run("log", "counter")
	blocked, blockedLog := run("log:block=1m", "counter:block=1m")
	if blockedLog.Rejected <= plainLog.Rejected {
		t.Fatalf("the timeout refused no more: %d vs %d", blockedLog.Rejected, plainLog.Rejected)
	}
	if plain.RateError == nil || blocked.RateError == nil || plain.RateError.MeanRel <= 0 || !reflect.DeepEqual(blocked.RateError, plain.RateError) {
		t.Errorf("rate error %+v behind the timeout, %+v without", blocked.RateError, plain.RateError)
	}
}

// A product that counts every request (Envoy's service) records the
// requests it refuses under count accepted too: four requests of one key,
// costs 3, 1, 3, 1 at 0.1, 0.2, 1.1 and 1.2 s under 2/1s. The log refuses
// both 3s (3 > 2) and admits both 1s; Envoy counts the 3s it refuses, so
// it refuses the 1s after them too: two under-admissions.
func TestCountsEveryUnderCountAccepted(t *testing.T) {
	rule, _ := algorithms.ParseRule("2/1s")
	rqs := []rq{{"k", 100e6, 3}, {"k", 200e6, 1}, {"k", 1100e6, 3}, {"k", 1200e6, 1}}
	s := replay(t, Config{Rules: []algorithms.Rule{rule}, Algorithms: []string{"envoy"}, Counts: []Count{CountAccepted}, Modes: []Mode{Independent}}, rqs)
	if envoy := findRun(t, s, "independent", "envoy"); envoy.Under != 2 || envoy.Over != 0 {
		t.Errorf("envoy over %d, under %d; want 0, 2", envoy.Over, envoy.Under)
	}
}

// populationReqs returns the requests of the generated trace spec.
func populationReqs(t *testing.T, spec string) []rq {
	t.Helper()
	g, err := generators.New(spec, generators.Params{})
	if err != nil {
		t.Fatal(err)
	}
	var reqs []rq
	for g.Scan() {
		q := g.Request()
		reqs = append(reqs, rq{string(q.Key), q.T, q.Cost})
	}
	return reqs
}
