package compare

import "ratebench/algorithms"

// A limiter that records every request, whatever it or the reference
// decides (a product that counts every request, CountsEvery), never reads
// the reference's decisions: its state, and so its decisions, are the same
// in every mode. Its run in a later mode therefore shares the limiter of
// its run in the first (candidate.of): one Decide and one Record a
// request, one state a key, and the later run takes the first's decision
// and estimate. Each run still measures its own figures, with its own
// accumulators: only their partners differ between modes (a product's
// twin, which may not record every request). tuning.ownModes turns the
// sharing off, for the test that it changes nothing.

// newRun returns the run of lim in mode m (full: a listed run, else a
// product's companion), sharing the limiter of an earlier mode's run that
// decides alike (shareable); lim is then dropped.
func (g *group) newRun(cfg Config, lim algorithms.Limiter, m Mode, full bool) *candidate {
	of := g.shareable(cfg, lim, m, full)
	if of == nil {
		return g.newCandidate(cfg, lim, m, full)
	}
	c := g.newCandidate(cfg, of.lim, m, full)
	c.of, c.rel, c.warm = of, nil, nil // the first run's limiter is brought to each time, warmed and released there
	return c
}

// shareable returns the group's run of an earlier mode than m of the same
// limiter as lim, which records every request in both, and measured alike
// (both listed, or both companions): nil if there is none, or where
// tuning.ownModes asks each run to keep a limiter of its own.
func (g *group) shareable(cfg Config, lim algorithms.Limiter, m Mode, full bool) *candidate {
	if cfg.tuning.ownModes || !recordsAll(lim, g.count) {
		return nil
	}
	name := lim.Name()
	for _, c := range g.cands {
		if c.mode != m && c.of == nil && c.recordAll && c.behind == nil && c.companion == !full && c.lim.Name() == name {
			return c
		}
	}
	return nil
}
