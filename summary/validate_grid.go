package summary

import (
	"fmt"
	"slices"

	"ratebench/algorithms"
)

// The grid a replay writes. The engine runs every rule of config.rules
// under every count policy of config.counts, in every mode of
// config.modes, every algorithm of config.algorithms (the log, the
// reference, among them): one run each, but under count all, where the
// modes coincide for the window algorithms, the runs are made once, in one
// mode (independent if it is listed, else shadow; the first listed, in
// summaries of earlier versions). And for every plain rule (not a
// layered one) under every count policy, one binding, from the same
// replay of the log as the log's runs. A summary from which a run or a
// binding was deleted, or into which one was copied, is not one a replay
// writes: the report would leave out or repeat what it shows.

// listedOnce checks that config's lists name each value once: the engine
// drops repeats, and a repeated value would repeat its runs.
func (v *validator) listedOnce(c *RunConfig) {
	for _, l := range []struct {
		name   string
		values []string
	}{{"rules", c.Rules}, {"counts", c.Counts}, {"modes", c.Modes}, {"algorithms", c.Algorithms}} {
		for i, s := range l.values {
			if j := slices.Index(l.values, s); j < i {
				v.fail(fmt.Sprintf("config.%s[%d]", l.name, i), "%q is listed twice (config.%s[%d])", s, l.name, j)
			}
		}
	}
	if len(c.Algorithms) > 0 && !slices.Contains(c.Algorithms, "log") {
		v.fail("config.algorithms", "lacks the log, the reference every replay runs")
	}
}

// experiment is one run's place in the grid.
type experiment struct{ rule, count, mode, algorithm string }

// experimentOf is r's place in the grid.
func experimentOf(r *Run) experiment { return experiment{r.Rule, r.Count, r.Mode, r.Algorithm} }

func (e experiment) String() string {
	return fmt.Sprintf("%s under %s, count %s, %s mode", e.algorithm, e.rule, e.count, e.mode)
}

// runGrid checks that s holds one run of every experiment its config
// lists, and no other (each run's rule, count, mode and algorithm are
// checked to be listed by v.run).
func (v *validator) runGrid(s *Summary) {
	c := &s.Config
	first := map[experiment]int{}
	for i := range s.Runs {
		r := &s.Runs[i]
		e := experimentOf(r)
		if j, ok := first[e]; ok {
			v.fail(fmt.Sprintf("runs[%d]", i), "a second run of %v (runs[%d] is the first)", e, j)
			return
		}
		first[e] = i
	}
	for _, rule := range c.Rules {
		for _, count := range c.Counts {
			modes := c.Modes
			if count == "all" {
				m := v.countAllMode(s, rule)
				if v.err != nil {
					return
				}
				modes = []string{m}
			}
			for _, mode := range modes {
				for _, alg := range c.Algorithms {
					if e := (experiment{rule, count, mode, alg}); !hasKey(first, e) {
						v.fail("runs", "no run of %v, which config lists: a replay runs every rule × count × mode × algorithm", e)
						return
					}
				}
			}
		}
	}
}

// countAllMode returns the one mode the runs of rule under count all are
// made in: that of its first run (independent if config.modes lists it,
// else shadow, or the first listed, as earlier versions chose), after
// checking that every other run of rule under count all is in it.
func (v *validator) countAllMode(s *Summary, rule string) string {
	mode, at := "", -1
	for i := range s.Runs {
		r := &s.Runs[i]
		if r.Rule != rule || r.Count != "all" {
			continue
		}
		if at < 0 {
			mode, at = r.Mode, i
			continue
		}
		if r.Mode != mode {
			v.fail(fmt.Sprintf("runs[%d].mode", i), "%q, but runs[%d], of %s under count all too, is in %s mode: under count all the runs are made once, in one mode",
				r.Mode, at, rule, mode)
			return ""
		}
	}
	if at < 0 { // none: name the mode a replay would have made them in
		mode = "shadow"
		if slices.Contains(s.Config.Modes, "independent") {
			mode = "independent"
		}
	}
	return mode
}

func hasKey[K comparable, V any](m map[K]V, k K) bool {
	_, ok := m[k]
	return ok
}

// bindingsGrid checks s's bindings against its config and its runs: each
// of a plain rule and a count policy config lists, one of each, of the
// trace's requests and keys, with the refusals of the log runs of its rule
// and count; and, in a summary of a version that writes bindings (1.4 and
// later) or that holds any, one of every plain rule under every count.
func (v *validator) bindingsGrid(s *Summary) {
	c := &s.Config
	type group struct{ rule, count string }
	first := map[group]int{}
	for i := range s.Bindings {
		b := &s.Bindings[i]
		path := fmt.Sprintf("bindings[%d]", i)
		if !slices.Contains(c.Rules, b.Rule) {
			v.fail(path+".rule", "%q is not in config.rules", b.Rule)
		} else if !plainRule(b.Rule) {
			v.fail(path+".rule", "%q is a layered rule, which has no binding (no single limit to tighten)", b.Rule)
		}
		if !slices.Contains(c.Counts, b.Count) {
			v.fail(path+".count", "%q is not in config.counts", b.Count)
		}
		if v.err != nil {
			return
		}
		g := group{b.Rule, b.Count}
		if j, ok := first[g]; ok {
			v.fail(path, "a second binding of %s under count %s (bindings[%d] is the first)", b.Rule, b.Count, j)
			return
		}
		first[g] = i
		v.equal(path+".requests", b.Requests, "trace.requests", s.Trace.Requests)
		v.atMost(path+".keys_refused", b.KeysRefused, "trace.keys", s.Trace.Keys)
		if b.LogRefused > 0 && b.KeysRefused == 0 {
			v.fail(path+".keys_refused", "0, but log_refused is %d (a refused request is of some key)", b.LogRefused)
		}
		for j := range s.Runs {
			if r := &s.Runs[j]; r.Algorithm == "log" && r.Rule == b.Rule && r.Count == b.Count {
				v.equal(path+".log_refused", b.LogRefused, fmt.Sprintf("the log run's rejected (runs[%d])", j), r.Rejected)
			}
		}
	}
	if len(s.Bindings) == 0 && !writesBindings(s.Schema) {
		return
	}
	for _, rule := range c.Rules {
		if !plainRule(rule) {
			continue
		}
		for _, count := range c.Counts {
			if !hasKey(first, group{rule, count}) {
				v.fail("bindings", "none of %s under count %s, which config lists: a replay writes one of every plain rule under every count", rule, count)
				return
			}
		}
	}
}

// plainRule tells whether rule (a rule of config.rules) is a plain rule,
// not a layered one.
func plainRule(rule string) bool {
	rules, err := algorithms.ParseRules(rule)
	return err == nil && len(rules) == 1
}

// writesBindings tells whether a summary of schema was written by a
// version that writes bindings (1.4 and later).
func writesBindings(schema string) bool {
	return slices.Index(Schemas, schema) >= slices.Index(Schemas, SchemaV1_4)
}
