package compare

import (
	"testing"

	"ratebench/algorithms"
	"ratebench/generators"
	"ratebench/summary"
	"ratebench/traces"
)

func pairGen(t *testing.T, spec string) *generators.Generator {
	t.Helper()
	g, err := generators.New(spec, generators.Params{})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// Without a cache, the pair replay under count all is the engine's count
// all run of the counter: the same disagreements, sources and mean gap.
func TestReplayPairIsTheEnginesCountAllRun(t *testing.T) {
	const spec = "population:requests=60000,sources=300,rate=0.5,alpha=1.5,seed=3"
	rule, _ := algorithms.ParseRule("20/10s")
	got, err := ReplayPair(pairGen(t, spec), Pair{Rule: rule})
	if err != nil {
		t.Fatal(err)
	}
	eng, err := New(Config{Rules: []algorithms.Rule{rule}, Algorithms: []string{"counter"}, Counts: []Count{CountAll}})
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
	var run *summary.Run
	s := eng.Summary(summary.TraceInfo{})
	for i := range s.Runs {
		if s.Runs[i].Algorithm == "counter" {
			run = &s.Runs[i]
		}
	}
	if run == nil {
		t.Fatal("no counter run")
	}
	if got.Disagree == 0 || got.Over == 0 || got.Under == 0 {
		t.Fatalf("a trace meant to disagree both ways: %+v", got)
	}
	if got.Over != run.Over || got.Under != run.Under || got.KeysOver != run.KeysOver || got.KeysUnder != run.KeysUnder {
		t.Errorf("pair %+v, engine over %d under %d sources %d/%d", got, run.Over, run.Under, run.KeysOver, run.KeysUnder)
	}
	if got.MeanGap != run.RateError.MeanRel {
		t.Errorf("mean gap %v, engine %v", got.MeanGap, run.RateError.MeanRel)
	}
	if run.Burst != nil && got.BurstRatio != run.Burst.Ratio {
		t.Errorf("burst %v, engine %v", got.BurstRatio, run.Burst.Ratio)
	}
}

// Behind the same mitigation timeout, a request the counter lets through
// where the log refuses starts a block in the log only: every request of
// the block is then decided differently.
func TestReplayPairSharedBlock(t *testing.T) {
	rule, _ := algorithms.ParseRule("2/10s")
	s := int64(1e9)
	// The counter forgets the previous window's early requests in
	// proportion: at 15s it estimates 2*(5/10) + 0 = 1 and admits, while
	// the log holds the requests at 6s and 7s in (5s, 15s] and refuses.
	tr := &keyedSlice{ts: []int64{6 * s, 7 * s, 15 * s, 40 * s, 50 * s}}
	got, err := ReplayPair(tr, Pair{Rule: rule, Block: "1m"})
	if err != nil {
		t.Fatal(err)
	}
	// 15s: the log refuses and blocks the source till 75s, the counter
	// admits; at 40s and 50s the counter's windows are clear and it
	// admits, the log is still blocked.
	if got.Over != 3 || got.Under != 0 || got.KeysOver != 1 || got.RefRefused != 3 {
		t.Errorf("got %+v, want 3 over, 0 under, 1 source over, 3 refused by the log", got)
	}
	plain, _ := ReplayPair(&keyedSlice{ts: tr.ts}, Pair{Rule: rule})
	if plain.Over != 1 || plain.Disagree != 1 || plain.RefRefused != 1 {
		t.Errorf("without the cache: %+v, want the one request at 15s", plain)
	}
}

type keyedSlice struct {
	ts []int64
	i  int
}

func (k *keyedSlice) Scan() bool {
	k.i++
	return k.i <= len(k.ts)
}
func (k *keyedSlice) Request() traces.Request { return traces.Request{T: k.ts[k.i-1], Cost: 1} }
func (k *keyedSlice) KeyIndex() int32         { return 0 }
func (k *keyedSlice) Keys() int               { return 1 }
func (k *keyedSlice) Err() error              { return nil }

// Under count all the counter's estimate does not depend on its
// decisions: behind a timeout, the mean gap is the one without (the
// blocked requests, which reach neither limiter, are measured on states
// brought to their time).
func TestReplayPairGapIgnoresTheBlock(t *testing.T) {
	const spec = "population:requests=40000,sources=200,rate=0.5,alpha=1.5,seed=5"
	rule, _ := algorithms.ParseRule("20/10s")
	plain, err := ReplayPair(pairGen(t, spec), Pair{Rule: rule})
	if err != nil {
		t.Fatal(err)
	}
	blocked, err := ReplayPair(pairGen(t, spec), Pair{Rule: rule, Block: "1m"})
	if err != nil {
		t.Fatal(err)
	}
	if blocked.RefRefused <= plain.RefRefused {
		t.Fatalf("the timeout refused no more: %d vs %d", blocked.RefRefused, plain.RefRefused)
	}
	if blocked.MeanGap != plain.MeanGap || plain.MeanGap <= 0 {
		t.Errorf("mean gap %v behind the timeout, %v without", blocked.MeanGap, plain.MeanGap)
	}
	if plain.Load <= 0 || plain.NearShare <= 0 || plain.NearShare > 1 || plain.Span <= 0 {
		t.Errorf("load %v, near share %v, span %v", plain.Load, plain.NearShare, plain.Span)
	}
}

// keyedRequests is a one-key trace for the pair replay.
type keyedRequests struct {
	reqs []traces.Request
	i    int
}

func (k *keyedRequests) Scan() bool              { k.i++; return k.i <= len(k.reqs) }
func (k *keyedRequests) Request() traces.Request { return k.reqs[k.i-1] }
func (k *keyedRequests) KeyIndex() int32         { return 0 }
func (k *keyedRequests) Keys() int               { return 1 }
func (k *keyedRequests) Err() error              { return nil }

// A product that counts every request (Envoy's service) records the
// requests it refuses under count accepted too, in the pair replay as in
// the engine: four requests of one key, costs 3, 1, 3, 1 at 0.1, 0.2, 1.1
// and 1.2 s under 2/1s.
func TestReplayPairCountsEveryAsTheEngine(t *testing.T) {
	rule, _ := algorithms.ParseRule("2/1s")
	rqs := []rq{{"k", 100e6, 3}, {"k", 200e6, 1}, {"k", 1100e6, 3}, {"k", 1200e6, 1}}
	var reqs []traces.Request
	for _, q := range rqs {
		reqs = append(reqs, traces.Request{Key: []byte(q.key), T: q.t, Cost: q.cost})
	}
	got, err := ReplayPair(&keyedRequests{reqs: reqs}, Pair{Rule: rule, Candidate: "envoy", Count: CountAccepted})
	if err != nil {
		t.Fatal(err)
	}
	run := replay(t, Config{Rules: []algorithms.Rule{rule}, Algorithms: []string{"envoy"}, Counts: []Count{CountAccepted}, Modes: []Mode{Independent}}, rqs)
	var envoy *summary.Run
	for i := range run.Runs {
		if run.Runs[i].Algorithm == "envoy" {
			envoy = &run.Runs[i]
		}
	}
	if envoy == nil || envoy.Under != 2 {
		t.Fatalf("the engine's envoy run: %+v, want under 2", envoy)
	}
	if got.Under != envoy.Under || got.Over != envoy.Over {
		t.Errorf("pair over %d under %d, engine over %d under %d", got.Over, got.Under, envoy.Over, envoy.Under)
	}
}
