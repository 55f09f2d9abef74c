package distributed

import "ratebench/summary"

// Result returns what the Sim measured so far.
func (s *Sim) Result() summary.DistributedResult {
	c := s.r
	r := summary.DistributedResult{
		Algorithm:         s.spec,
		Rule:              s.rule.String(),
		Count:             "accepted",
		Nodes:             s.cfg.Nodes,
		Route:             s.cfg.Route.String(),
		SyncNS:            s.cfg.Sync,
		SkewNS:            s.cfg.Skew,
		SkewRandom:        s.cfg.SkewRandom,
		NodeSkewNS:        append([]int64(nil), s.skews...),
		Seed:              s.cfg.Seed,
		Keys:              int64(len(s.keys)),
		Requests:          c.requests,
		Admitted:          c.admitted,
		ReferenceAdmitted: c.refAdmitted,
		Over:              c.over,
		Under:             c.under,
		BurstMax:          c.burst,
	}
	if s.cfg.CountAll {
		r.Count = "all"
	}
	r.Derive(s.rule.L)
	return r
}
