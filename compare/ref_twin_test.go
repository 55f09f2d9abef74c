package compare

import (
	"bytes"
	"testing"

	"ratebench/algorithms"
	"ratebench/summary"
)

// A product whose twin is the exact log is weighed against the reference's
// decisions (refTwin) exactly as against a twin that keeps a log of its
// own: the summary is the same, byte for byte, in each mode and counting
// policy, with the plain reference (which the twin shares) and behind a
// refusal cache (which it cannot share).
func TestRefTwinDecidesAsOwnLog(t *testing.T) {
	t.Parallel()
	reqs := randomTrace(21, 8000, 20, 30*sec)
	for _, ref := range []string{"log", "log:block=20s"} {
		cfg := Config{Rules: []algorithms.Rule{mustRule(t, "10/1m")}, Reference: ref,
			Algorithms: []string{"tyk", "caddy", "flask-limiter:strategy=moving"},
			Modes:      []Mode{Independent, Shadow}, Counts: []Count{CountAccepted, CountAll}, Deviations: true}
		e := fed(t, cfg, reqs)
		shared := 0
		for _, g := range e.workers[0].groups {
			for _, c := range g.cands {
				if _, ok := c.lim.(*refTwin); ok {
					shared++
				}
			}
		}
		if want := map[string]int{"log": 3, "log:block=20s": 0}[ref]; shared != want { // a twin per mode and count
			t.Fatalf("reference %s: %d twins share the reference's log, want %d", ref, shared, want)
		}
		own := cfg
		own.tuning.ownTwin = true
		got, want := marshal(t, e.Summary(summary.TraceInfo{Path: "test", Format: "memory"})), marshal(t, replay(t, own, reqs))
		if !bytes.Equal(got, want) {
			t.Errorf("reference %s: the twin sharing the reference's log changed the summary\n%s", ref, firstDiff(got, want))
		}
	}
}
