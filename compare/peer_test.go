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
	t.Parallel()
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

// A leaky bucket, paired with the token bucket of the same B, admits
// exactly the same requests (it only delays them), in both modes.
func TestLeakyAdmitsAsToken(t *testing.T) {
	t.Parallel()
	reqs := randomTrace(29, 20000, 40, 30*sec)
	s := replay(t, Config{Rules: []algorithms.Rule{mustRule(t, "5/30s")}, Algorithms: []string{"token", "leaky", "leaky:B=3"}}, reqs)
	n := 0
	for _, r := range s.Runs {
		switch r.Algorithm {
		case "leaky":
			n++
			if r.VsToken == nil || r.VsToken.Over+r.VsToken.Under != 0 {
				t.Errorf("%s: leaky against token: %+v", r.Mode, r.VsToken)
			}
		case "leaky:B=3":
			if r.VsToken != nil {
				t.Errorf("leaky:B=3 paired with a token of another B")
			}
		}
	}
	if n != 2 {
		t.Fatalf("%d leaky runs", n)
	}
}
