package compare

import (
	"slices"
	"testing"

	"ratebench/algorithms"
)

// Envoy's rate limit service increments its counter for every request, so
// under the count policy accepted, in either mode, a refused request still
// uses up the window: at 2 s the count is 1+3+1 = 5 > 3 and envoy refuses,
// where fixed (counting what it admits, 1+1) and the log admit.
func TestEnvoyCountsEveryRequest(t *testing.T) {
	t.Parallel()
	reqs := []rq{{"a", 0, 1}, {"a", sec, 3}, {"a", 2 * sec, 1}}
	rule := mustRule(t, "3/1m")
	cfg := Config{Rules: []algorithms.Rule{rule}, Algorithms: []string{"fixed", "envoy"}, Counts: []Count{CountAccepted}, Modes: []Mode{Independent, Shadow}}
	s := replay(t, cfg, reqs)
	for _, m := range []string{"independent", "shadow"} {
		if r := findRun(t, s, m, "envoy"); r.Admitted != 1 || r.Rejected != 2 || r.Under != 1 || r.Over != 0 {
			t.Errorf("%s envoy: admitted %d rejected %d under %d over %d, want 1 2 1 0", m, r.Admitted, r.Rejected, r.Under, r.Over)
		}
		if r := findRun(t, s, m, "fixed"); r.Admitted != 2 || r.Disagree != 0 {
			t.Errorf("%s fixed: admitted %d disagree %d, want 2 0", m, r.Admitted, r.Disagree)
		}
	}
	for _, m := range []Mode{Independent, Shadow} {
		k, err := NewKeyReplay([]algorithms.Rule{rule}, "log", []string{"envoy", "fixed"}, CountAccepted, m)
		if err != nil {
			t.Fatal(err)
		}
		var got []bool
		for _, q := range reqs {
			d, err := k.Add(q.t, q.cost)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, d.Admit...)
		}
		if want := []bool{true, true, false, false, false, true}; !slices.Equal(got, want) {
			t.Errorf("key replay %s: envoy, fixed decide %v, want %v", m, got, want)
		}
	}
}
