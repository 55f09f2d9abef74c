package compare

import (
	"reflect"

	"ratebench/algorithms"
)

// An algorithm's run in shadow mode records the reference's admissions,
// its run in independent mode its own; until a key's first request on
// which the algorithm disagrees with the reference, the two record the
// same requests, so they hold the same state of that key and decide
// alike. Where the algorithm can copy a key's state (algorithms.KeyCopier),
// the shadow run is lazy: while the key has not disagreed (its row counts
// no over- or under-admission), it keeps no state of the key, takes the
// independent run's decision, and reads its estimate from the independent
// run's state; at the key's first disagreement the independent run's
// state, just decided, is copied into the shadow run's, which from then on
// decides and records the key itself. Most keys of a trace where the rule
// seldom binds never disagree: their shadow runs cost a comparison a
// request. Its idle tests follow the same split (settle, idle). Every
// figure is what a shadow run with a state of its own gives;
// tuning.ownShadow turns the laziness off, for the test that says so.

// pairLazy makes each shadow run of the group whose limiter can copy a
// key's state lazy on the independent run of the same limiter before it
// (candidate.lazy, lazyOf), unless tuning.ownShadow. Only listed runs are
// paired (a companion has no row to count its disagreements), under count
// accepted (under count all there is one mode), and only runs that keep
// a limiter of their own without a refusal cache in front, whose keys do
// not interact (a key's state is then its own to copy).
func (g *group) pairLazy(cfg Config) {
	if cfg.tuning.ownShadow || g.count != CountAccepted {
		return
	}
	alone := func(c *candidate) bool { return !c.companion && c.of == nil && c.behind == nil && !c.recordAll }
	for j, s := range g.cands {
		cp, ok := s.lim.(algorithms.KeyCopier)
		if !ok || s.mode != Shadow || !alone(s) || algorithms.CouplesKeys(s.lim) {
			continue
		}
		for _, p := range g.cands[:j] {
			if p.mode != Independent || !alone(p) || p.lazy != nil || reflect.TypeOf(p.lim) != reflect.TypeOf(s.lim) || p.lim.Name() != s.lim.Name() {
				continue
			}
			p.lazy, s.lazyOf, s.copier = s, p, cp
			if s.est != nil {
				p.lazyEst = p.lim.(algorithms.Estimator) // the same type as s's
			}
			break
		}
	}
}

// shareState is the turn of p, the independent run a lazy shadow run
// shares the state of, after p decided admit (the reference ref) on a
// request of key id at t and before p records it: whether the shadow run
// still shares p's state of the key (p.shares: its row of the key, row[s.slot],
// counts no disagreement), and if so its estimate, read from p's state,
// and, if the request is the key's first disagreement, the copy of p's
// state into the shadow run's (p.forks), which records the request
// itself.
func (p *candidate) shareState(row []keyRun, id int32, t int64, admit, ref bool) {
	s := p.lazy
	p.shares, p.forks = row[s.slot].agreed(), false
	if !p.shares {
		return
	}
	if s.est != nil {
		s.estimate = p.lazyEst.Estimate(id, t)
	}
	if admit != ref {
		s.copier.CopyKey(p.lim, id)
		p.forks = true
	}
}

// sharesState reports whether c, a lazy shadow run, shares its
// independent run's state of the key whose row in the group is row.
func (c *candidate) sharesState(row []keyRun) bool {
	return c.lazyOf != nil && row[c.slot].agreed()
}
