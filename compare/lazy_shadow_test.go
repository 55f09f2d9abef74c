package compare

import (
	"bytes"
	"fmt"
	"testing"

	"ratebench/algorithms"
	"ratebench/summary"
)

// A shadow run lazy on its independent run (lazy_shadow.go) gives the
// summary that a shadow run keeping its own state gives, byte for byte:
// every algorithm that can copy a key's state, beside one that cannot,
// under both counting policies, with idle keys released and back, with
// the rows' counts narrowed so that they leave for the wide table, on a
// trace where some keys disagree (and the shadow runs take over their
// state) and others never do.
func TestLazyShadowRunsChangeNoFigure(t *testing.T) {
	t.Parallel()
	specs := []string{"counter", "counter-lt", "counter-floor", "fixed", "token", "token:B=9", "gcra", "gcra:B=2", "buckets:4", "leaky"}
	for _, c := range []struct {
		rule      string
		narrowMax uint32
		seed      uint64
	}{{"10/1m", 0, 31}, {"3/10s", 0, 37}, {"3/10s", 2, 41}} {
		name := fmt.Sprintf("%s, narrow %d", c.rule, c.narrowMax)
		reqs := churnTrace(c.seed, 12000)
		cfg := Config{Rules: []algorithms.Rule{mustRule(t, c.rule)}, Algorithms: specs,
			Modes: []Mode{Independent, Shadow}, Counts: []Count{CountAccepted, CountAll}}
		cfg.tuning.minSweep, cfg.tuning.narrowMax = 32, c.narrowMax
		e := fed(t, cfg, reqs)
		w := e.workers[0]
		if w.rel.released < 100 {
			t.Fatalf("%s: %d keys released: the test does not exercise release", name, w.rel.released)
		}
		pairs, shared, forked := 0, 0, 0
		for _, g := range w.groups {
			for _, s := range g.cands {
				if s.lazyOf == nil {
					continue
				}
				pairs++
				for id := range w.keys.size() {
					if !w.keys.at(int32(id)).live {
						continue
					}
					if s.sharesState(w.rows.row(int32(id))[g.base:]) {
						shared++
					} else {
						forked++
					}
				}
			}
		}
		if pairs != 8 || shared == 0 || forked == 0 {
			t.Fatalf("%s: %d lazy shadow runs (want 8), keys sharing state %d, taken over %d: the test lacks power", name, pairs, shared, forked)
		}
		sameAsOwnShadow(t, name, e, cfg, reqs)
	}
}

// The products that copy a key's state (algorithms.KeyCopier) are lazy
// in shadow mode too, with their deviations on and off (each product's
// runs without one, -deviations), and give the summary they give keeping
// their own state; nginx's zone, which couples keys, is not.
func TestLazyShadowProductsChangeNoFigure(t *testing.T) {
	t.Parallel()
	specs := []string{"nginx", "nginx:zone", "envoy", "envoy-local", "redis_rate", "throttled", "ulule", "go-limiter", "juju", "kong",
		"redis-cell", "guava", "httprate", "spring-gateway", "haproxy", "rack-attack", "varnish", "varnish:ban=10s", "express-rate-limit", "fiber", "gubernator", "gubernator:algorithm=leaky",
		"fastify-rate-limit", "fastify-rate-limit:continue-exceeding", "laravel", "dotnet", "rate-limiter-flexible", "rate-limiter-flexible:blockDuration=20s",
		"aws-api-gateway", "lua-resty-limit-traffic:module=req"}
	reqs := churnTrace(47, 12000)
	for _, deviations := range []bool{false, true} {
		cfg := Config{Rules: []algorithms.Rule{mustRule(t, "10/1m")}, Algorithms: specs, Deviations: deviations,
			Modes: []Mode{Independent, Shadow}, Counts: []Count{CountAccepted}}
		e := fed(t, cfg, reqs)
		lazy := map[string]bool{}
		for _, g := range e.workers[0].groups {
			for _, s := range g.cands {
				if s.lazyOf != nil {
					lazy[s.lim.Name()] = true
				}
			}
		}
		if lazy["nginx:zone"] {
			t.Errorf("nginx:zone, whose keys interact, is lazy")
		}
		if len(lazy) < 10 {
			t.Fatalf("deviations %v: %d products lazy in shadow mode (%v): the test lacks power", deviations, len(lazy), lazy)
		}
		sameAsOwnShadow(t, fmt.Sprintf("deviations %v", deviations), e, cfg, reqs)
	}
}

// sameAsOwnShadow checks that e, which replayed reqs under cfg, gives the
// summary that a replay whose shadow runs keep their own state gives.
func sameAsOwnShadow(t *testing.T, name string, e *Engine, cfg Config, reqs []rq) {
	t.Helper()
	own := cfg
	own.tuning.ownShadow = true
	got, want := marshal(t, e.Summary(summary.TraceInfo{Path: "test", Format: "memory"})), marshal(t, replay(t, own, reqs))
	if !bytes.Equal(got, want) {
		t.Errorf("%s: lazy shadow runs changed the summary\n%s", name, firstDiff(got, want))
	}
}

// Only a shadow run after its independent run is lazy: with the modes
// the other way round, none is.
func TestLazyShadowNeedsTheIndependentRunFirst(t *testing.T) {
	t.Parallel()
	reqs := randomTrace(43, 4000, 30, 20*sec)
	cfg := Config{Rules: []algorithms.Rule{mustRule(t, "5/30s")}, Algorithms: []string{"counter", "token"}, Modes: []Mode{Shadow, Independent}}
	e := fed(t, cfg, reqs)
	for _, g := range e.workers[0].groups {
		for _, c := range g.cands {
			if c.lazyOf != nil || c.lazy != nil {
				t.Fatalf("%s in %s is paired lazily with the modes shadow first", c.lim.Name(), c.mode)
			}
		}
	}
}
