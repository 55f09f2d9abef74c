package compare

import (
	"bytes"
	"testing"

	"ratebench/algorithms"
	"ratebench/compare/clients"
)

// Closed-loop replays run for every plain rule, algorithm and policy, and
// merge exactly across workers; retries amplify the traffic of a limit
// that is reached.
func TestClosedLoopClients(t *testing.T) {
	t.Parallel()
	var pols []clients.Policy
	for _, k := range []string{"immediate", "backoff", "honor"} {
		pol, err := clients.ParsePolicy(k)
		if err != nil {
			t.Fatal(err)
		}
		pols = append(pols, pol)
	}
	reqs := randomTrace(17, 5000, 40, 30*sec)
	cfg := Config{Rules: []algorithms.Rule{mustRule(t, "5/30s")}, Algorithms: []string{"counter", "token"},
		Modes: []Mode{Independent}, Clients: pols, ClientSeed: 7}
	s := replay(t, cfg, reqs)
	if len(s.Clients) != 3*3 || len(s.Config.Clients) != 3 {
		t.Fatalf("%d closed-loop results, %d policies", len(s.Clients), len(s.Config.Clients))
	}
	for _, r := range s.Clients {
		if r.Requests != int64(len(reqs)) || r.Sent < r.Requests || r.Sent != r.Requests+r.Retries {
			t.Errorf("%s %s: requests %d sent %d retries %d", r.Algorithm, r.Policy, r.Requests, r.Sent, r.Retries)
		}
		if r.Amplification <= 1 {
			t.Errorf("%s %s: amplification %v on a trace at its limit", r.Algorithm, r.Policy, r.Amplification)
		}
	}
	cfg.Workers = 3
	if a, b := marshal(t, replay(t, cfg, reqs)), marshal(t, s); !bytes.Equal(a, b) {
		t.Errorf("3 workers differ\n%s", firstDiff(a, b))
	}
}
