package distributed

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"ratebench/algorithms"
	"ratebench/summary"
)

// TestFigures prints the over-admission of counter and log 100/1m on a hot
// trace (50 keys, Poisson at 1.5 to 4.5 requests/s each, one in ten
// repeated at the same instant: about 3.3/s, for 30 minutes) for N in
// {1, 2, 4, 8} x sync in {0, 100ms, 1s, 10s} (random route, no skew), and
// for N = 4, sync 0, spread skew in {0, 10ms, 100ms, 1s, 5s}. The test runs
// 5 minutes of it; RATEBENCH_DIST_FIGURES=1 runs the 30 (a few seconds).
// One node decides as the plain algorithm whatever the sync, so its rows
// must not change, and the log's must be exact.
func TestFigures(t *testing.T) {
	span := 300 * sec
	if os.Getenv("RATEBENCH_DIST_FIGURES") != "" {
		span = 1800 * sec
	}
	rule := algorithms.Rule{L: 100, W: 60 * sec}
	trace := poisson(2026, 50, span, 3, 1)
	var out strings.Builder
	fmt.Fprintf(&out, "trace: %d keys, %d requests over %s; rule %s; route random\n", 50, len(trace), algorithms.FormatWindow(span), rule)
	dur := func(d int64) string {
		if d == 0 {
			return "0"
		}
		return algorithms.FormatWindow(d)
	}
	row := func(label string, r summary.DistributedResult) {
		fmt.Fprintf(&out, "%-9s %-26s over %6d (%.4f)  under %6d (%.4f)  admitted-ref %+6d (%+.4f)  burst %4d (%.2f L)\n",
			r.Algorithm, label, r.Over, r.OverRate, r.Under, r.UnderRate, r.Admitted-r.ReferenceAdmitted,
			float64(r.Admitted-r.ReferenceAdmitted)/float64(r.Requests), r.BurstMax, r.BurstRatio)
	}
	for _, spec := range []string{"counter", "log"} {
		var one *summary.DistributedResult
		for _, n := range []int{1, 2, 4, 8} {
			for _, sync := range []int64{0, 100 * ms, sec, 10 * sec} {
				r := run(t, Config{Spec: spec, Rule: rule, Nodes: n, Route: Random, Sync: sync, Seed: 1}, trace)
				row(fmt.Sprintf("N=%d sync=%s", n, dur(sync)), r)
				if n == 1 {
					if one == nil {
						one = &r
					} else if r.Over != one.Over || r.Under != one.Under || r.Admitted != one.Admitted {
						t.Errorf("%s: one node changes with the sync period: %+v vs %+v", spec, r, *one)
					}
					if spec == "log" && r.Over+r.Under != 0 {
						t.Errorf("log on one node is not exact: %+v", r)
					}
				}
			}
		}
		for _, skew := range []int64{0, 10 * ms, 100 * ms, sec, 5 * sec} {
			r := run(t, Config{Spec: spec, Rule: rule, Nodes: 4, Route: Random, Skew: skew, Seed: 1}, trace)
			row(fmt.Sprintf("N=4 sync=0 skew=%s", dur(skew)), r)
		}
	}
	t.Log("\n" + out.String())
}
