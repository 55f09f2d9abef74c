package compare

import (
	"bytes"
	"testing"

	"ratebench/algorithms"
	"ratebench/summary"
)

// Simulated deployments run for every plain rule, supported algorithm and
// grid point, merge exactly across workers, and a central store (sync 0,
// no skew) decides as the plain algorithm.
func TestDeployments(t *testing.T) {
	t.Parallel()
	reqs := randomTrace(23, 8000, 30, 30*sec)
	cfg := Config{Rules: []algorithms.Rule{mustRule(t, "5/30s")}, Algorithms: []string{"counter", "token"}, Modes: []Mode{Independent},
		Deployment: &summary.Deployment{Nodes: []int{1, 4}, Route: "random", Sync: []int64{0, sec}, Skew: []int64{0}, Seed: 3}}
	s := replay(t, cfg, reqs)
	if len(s.Distributed) != 2*2*2 { // log and counter (token is not a window algorithm) x nodes x sync
		t.Fatalf("%d deployment results", len(s.Distributed))
	}
	plain := findRun(t, s, "independent", "counter")
	for _, r := range s.Distributed {
		if r.Requests != int64(len(reqs)) {
			t.Errorf("%+v: %d requests", r, r.Requests)
		}
		if r.SyncNS == 0 || r.Nodes == 1 {
			want := int64(0)
			if r.Algorithm == "counter" {
				want = plain.Over
			}
			if r.Over != want {
				t.Errorf("%s N=%d sync=%d: over %d, want %d as the plain algorithm", r.Algorithm, r.Nodes, r.SyncNS, r.Over, want)
			}
		}
	}
	cfg.Workers = 3
	if a, b := marshal(t, replay(t, cfg, reqs)), marshal(t, s); !bytes.Equal(a, b) {
		t.Errorf("3 workers differ\n%s", firstDiff(a, b))
	}
	cfg.Deployment.Route = "sideways"
	if _, err := New(cfg); err == nil {
		t.Error("an unknown route accepted")
	}
}
