package summary

import (
	"fmt"
	"slices"
	"strings"
)

// placements checks what trace.placements and the runs' placed say
// against each other: every run placed as many times as the trace says
// (and none when it says nothing), the first placement the run's own
// counts, each count within the run's requests, the log's refusals those
// of its log run, one recorded run of each run, and the recorded verdict
// the one its counts give.
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
	logs := map[[3]string]*Run{}
	for i := range s.Runs {
		if r := &s.Runs[i]; r.Algorithm == "log" {
			logs[[3]string{r.Rule, r.Count, r.Mode}] = r
		}
	}
	for i := range s.Runs {
		r, path := &s.Runs[i], fmt.Sprintf("runs[%d].placed", i)
		p := r.Placed
		if p == nil {
			v.fail(path, "missing: trace.placements says the runs were placed %d times", pl.Count)
			continue
		}
		own := map[string]int64{"rejected": r.Rejected, "over": r.Over, "under": r.Under,
			"keys_disagree": r.KeysDisagree, "keys_over": r.KeysOver, "keys_under": r.KeysUnder}
		for _, c := range p.counts() {
			vs := *c.vs
			if len(vs) != pl.Count {
				v.fail(path+"."+c.name, "%d values for %d placements", len(vs), pl.Count)
				continue
			}
			of, ofName := r.Requests, "requests"
			if strings.HasPrefix(c.name, "keys_") {
				of, ofName = r.Keys, "keys"
			}
			for j, n := range vs {
				v.nonNegative(fmt.Sprintf("%s.%s[%d]", path, c.name, j), n)
				v.atMost(fmt.Sprintf("%s.%s[%d]", path, c.name, j), n, ofName, of)
			}
			if vs[0] != own[c.name] {
				v.fail(path+"."+c.name, "its first placement, %d, is not the run's own %s, %d", vs[0], c.name, own[c.name])
			}
		}
		switch {
		case r.Burst == nil && p.BurstMax != nil:
			v.fail(path+".burst_max", "for a run that measures no burst")
		case r.Burst != nil && len(p.BurstMax) != pl.Count:
			v.fail(path+".burst_max", "%d values for %d placements", len(p.BurstMax), pl.Count)
		case r.Burst != nil && p.BurstMax[0] != r.Burst.Max:
			v.fail(path+".burst_max", "its first placement, %d, is not the run's own burst, %d", p.BurstMax[0], r.Burst.Max)
		}
		if log := logs[[3]string{r.Rule, r.Count, r.Mode}]; log != nil && log.Placed != nil && !slices.Equal(p.LogRefused, log.Placed.Rejected) {
			v.fail(path+".log_refused", "%v, not the log's refusals in each placement %v", p.LogRefused, log.Placed.Rejected)
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
