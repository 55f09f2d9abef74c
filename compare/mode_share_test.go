package compare

import (
	"bytes"
	"testing"

	"ratebench/algorithms"
	"ratebench/summary"
)

// The runs of a limiter that records every request share one limiter
// across the modes (mode_share.go) and give the summary that a limiter of
// their own in each mode gives, byte for byte: with the products that
// count every request (and their companions, whose twins do not), behind
// a refusal cache, under both counting policies, and with keys released
// while idle.
func TestModesShareALimiterThatRecordsEveryRequest(t *testing.T) {
	t.Parallel()
	reqs := randomTrace(23, 8000, 40, 20*sec)
	specs := []string{"ulule", "tyk", "rack-attack", "express-rate-limit", "flask-limiter", "rate-limiter-flexible", "fastify-rate-limit", "upstash", "haproxy", "counter", "token"}
	for _, ref := range []string{"log", "log:block=20s"} {
		for _, deviations := range []bool{false, true} {
			cfg := Config{Rules: []algorithms.Rule{mustRule(t, "10/1m")}, Reference: ref, Algorithms: specs,
				Modes: []Mode{Shadow, Independent}, Counts: []Count{CountAccepted, CountAll}, Deviations: deviations}
			cfg.tuning.minSweep = 1
			e := fed(t, cfg, reqs)
			shared := 0
			for _, g := range e.workers[0].groups {
				for _, c := range g.cands {
					if c.of != nil {
						shared++
						if c.of.lim != c.lim || c.of.mode == c.mode {
							t.Fatalf("%s in %s shares %s of %s", c.lim.Name(), c.mode, c.of.lim.Name(), c.of.mode)
						}
					}
				}
			}
			if shared < 9 { // the nine products, in the second mode under count accepted
				t.Fatalf("reference %s: %d runs share an earlier mode's limiter, want at least 9", ref, shared)
			}
			own := cfg
			own.tuning.ownModes = true
			got, want := marshal(t, e.Summary(summary.TraceInfo{Path: "test", Format: "memory"})), marshal(t, replay(t, own, reqs))
			if !bytes.Equal(got, want) {
				t.Errorf("reference %s, deviations %v: sharing the limiter across modes changed the summary\n%s", ref, deviations, firstDiff(got, want))
			}
		}
	}
}
