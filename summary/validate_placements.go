package summary

import (
	"fmt"
	"slices"
)

// placements checks trace.placements against the runs: every run placed
// (none when it says nothing; each run's placed counts are checked with
// the run, Placed.validate), one recorded run of each run, and the
// recorded verdict the one its counts give.
func (v *validator) placements(s *Summary) {
	pl := s.Trace.Placements
	if pl == nil {
		for i := range s.Runs {
			if s.Runs[i].Placed != nil {
				v.fail(fmt.Sprintf("runs[%d].placed", i), "without trace.placements")
			}
		}
		return
	}
	if pl.Count < 1 {
		v.fail("trace.placements.count", "%d: at least one placement", pl.Count)
		return
	}
	if pl.UnitNS < 1 {
		v.fail("trace.placements.unit_ns", "%d: a unit of at least 1 ns", pl.UnitNS)
	}
	if s.Trace.Spread != nil {
		v.fail("trace.placements", "beside trace.spread: a replay is placed or spread, not both")
	}
	for i := range s.Runs {
		if s.Runs[i].Placed == nil {
			v.fail(fmt.Sprintf("runs[%d].placed", i), "missing: trace.placements says the runs were placed %d times", pl.Count)
		}
	}
	if len(pl.Recorded.Runs) != len(s.Runs) {
		v.fail("trace.placements.recorded.runs", "%d runs for the %d placed", len(pl.Recorded.Runs), len(s.Runs))
		return
	}
	for i := range pl.Recorded.Runs {
		rr, r := &pl.Recorded.Runs[i], &s.Runs[i]
		path := fmt.Sprintf("trace.placements.recorded.runs[%d]", i)
		if rr.Rule != r.Rule || rr.Count != r.Count || rr.Mode != r.Mode || rr.Algorithm != r.Algorithm {
			v.fail(path, "is %s %s, runs[%d] %s %s: the same runs, in the same order", rr.Algorithm, rr.Rule, i, r.Algorithm, r.Rule)
			return
		}
		for _, f := range []struct {
			name string
			n    int64
		}{{"rejected", rr.Rejected}, {"over", rr.Over}, {"under", rr.Under}} {
			v.nonNegative(path+"."+f.name, f.n)
			v.atMost(path+"."+f.name, f.n, fmt.Sprintf("runs[%d].requests", i), r.Requests)
		}
	}
	if v.err != nil {
		return
	}
	again := *s
	again.Trace.Placements = &Placements{Count: pl.Count, Seed: pl.Seed, UnitNS: pl.UnitNS, Recorded: Recorded{Runs: slices.Clone(pl.Recorded.Runs)}}
	again.fillRecorded()
	if !sameVerdict(pl.Recorded.Verdict, again.Trace.Placements.Recorded.Verdict) {
		v.fail("trace.placements.recorded.verdict", "does not follow from the recorded clock's counts")
	}
	for i, rr := range again.Trace.Placements.Recorded.Runs {
		if got := pl.Recorded.Runs[i].LogRefused; (got == nil) != (rr.LogRefused == nil) || got != nil && *got != *rr.LogRefused {
			v.fail(fmt.Sprintf("trace.placements.recorded.runs[%d].log_refused", i), "not the recorded log run's refusals")
		}
	}
}
