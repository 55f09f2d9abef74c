package compare

import (
	"bytes"
	"testing"

	"ratebench/algorithms"
)

// xrate, the peer library, disagrees with the exact token bucket exactly
// when its float arithmetic flips a decision: no flip, no disagreement; a
// flip, at least the one. Its figures merge exactly across workers.
func TestPeerAgainstToken(t *testing.T) {
	for _, rule := range []string{"5/1s", "3/7s", "7/1000ns"} {
		reqs := randomTrace(13, 20000, 50, mustRule(t, rule).W)
		cfg := Config{Rules: []algorithms.Rule{mustRule(t, rule)}, Algorithms: []string{"token", "xrate"}}
		s := replay(t, cfg, reqs)
		for _, r := range s.Runs {
			if r.Algorithm != "xrate" {
				if r.Peer != nil {
					t.Errorf("%s has peer figures", r.Algorithm)
				}
				continue
			}
			p := r.Peer
			if p == nil || p.VsToken == nil {
				t.Fatalf("%s %s: no peer figures", rule, r.Mode)
			}
			if p.Checked != r.Requests || p.Flips != p.FlipsOver+p.FlipsUnder || p.Drift != p.Flips-p.Boundary-p.Nanosecond {
				t.Errorf("%s %s: inconsistent %+v", rule, r.Mode, *p)
			}
			vs := p.VsToken.Over + p.VsToken.Under
			if (p.Flips == 0) != (vs == 0) {
				t.Errorf("%s %s: %d flips but %d disagreements with token", rule, r.Mode, p.Flips, vs)
			}
			t.Logf("%s %s: %+v vs token %+v", rule, r.Mode, *p, *p.VsToken)
		}
		cfg.Workers = 3
		if a, b := marshal(t, replay(t, cfg, reqs)), marshal(t, s); !bytes.Equal(a, b) {
			t.Errorf("%s: 3 workers differ\n%s", rule, firstDiff(a, b))
		}
	}
}
