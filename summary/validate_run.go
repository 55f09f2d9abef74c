package summary

import (
	"fmt"
	"slices"

	"ratebench/algorithms"
)

// run checks one run (at path, "runs[3]") of s: it is a run of s's
// configuration over s's whole trace, its counts add up to their totals
// (every request is admitted or rejected, a disagreement is over or under
// and so on), and its rates, timeline, phase, rate error, memory and top
// keys agree with its counts.
func (v *validator) run(path string, r *Run, s *Summary) {
	f := func(name string) string { return path + "." + name }
	c := &s.Config
	for _, m := range []struct {
		field, value string
		in           []string
		list         string
	}{
		{"rule", r.Rule, c.Rules, "config.rules"}, {"count", r.Count, c.Counts, "config.counts"},
		{"mode", r.Mode, c.Modes, "config.modes"}, {"algorithm", r.Algorithm, c.Algorithms, "config.algorithms"},
	} {
		if !slices.Contains(m.in, m.value) {
			v.fail(f(m.field), "%q is not in %s", m.value, m.list)
		}
	}
	v.nonNegatives(path, []count{
		{"requests", r.Requests}, {"admitted", r.Admitted}, {"rejected", r.Rejected},
		{"admitted_cost", r.AdmittedCost}, {"rejected_cost", r.RejectedCost},
		{"disagree", r.Disagree}, {"over", r.Over}, {"under", r.Under},
		{"keys", r.Keys}, {"keys_disagree", r.KeysDisagree}, {"keys_over", r.KeysOver}, {"keys_under", r.KeysUnder},
	})
	if v.err != nil {
		return
	}
	t := &s.Trace
	v.equal(f("requests"), r.Requests, "trace.requests", t.Requests)
	v.equal(f("keys"), r.Keys, "trace.keys", t.Keys)
	if n, ok := v.sum(f("admitted + rejected"), r.Admitted, r.Rejected); ok {
		v.equal(f("admitted + rejected"), n, "requests", r.Requests)
	}
	if n, ok := v.sum(f("admitted_cost + rejected_cost"), r.AdmittedCost, r.RejectedCost); ok {
		v.equal(f("admitted_cost + rejected_cost"), n, "trace.cost", t.Cost)
	}
	if r.AdmittedCost < r.Admitted {
		v.fail(f("admitted_cost"), "%d is less than admitted, %d (every request costs at least 1)", r.AdmittedCost, r.Admitted)
	}
	if r.RejectedCost < r.Rejected {
		v.fail(f("rejected_cost"), "%d is less than rejected, %d (every request costs at least 1)", r.RejectedCost, r.Rejected)
	}
	if n, ok := v.sum(f("over + under"), r.Over, r.Under); ok {
		v.equal(f("disagree"), r.Disagree, "over + under", n)
	}
	v.atMost(f("over"), r.Over, f("admitted"), r.Admitted)
	v.atMost(f("under"), r.Under, f("rejected"), r.Rejected)
	v.atMost(f("keys_disagree"), r.KeysDisagree, f("keys"), r.Keys)
	v.atMost(f("keys_over"), r.KeysOver, f("keys_disagree"), r.KeysDisagree)
	v.atMost(f("keys_under"), r.KeysUnder, f("keys_disagree"), r.KeysDisagree)
	v.atMost(f("keys_over"), r.KeysOver, f("over"), r.Over)
	v.atMost(f("keys_under"), r.KeysUnder, f("under"), r.Under)
	if n, ok := v.sum(f("keys_over + keys_under"), r.KeysOver, r.KeysUnder); ok && r.KeysDisagree > n {
		v.fail(f("keys_disagree"), "%d is more than keys_over + keys_under, %d", r.KeysDisagree, n)
	}
	v.rate(f("disagree_rate"), r.DisagreeRate, "disagree", r.Disagree, r.Requests)
	v.rate(f("over_rate"), r.OverRate, "over", r.Over, r.Requests)
	v.rate(f("under_rate"), r.UnderRate, "under", r.Under, r.Requests)
	v.logTerms(path, r, s)
	if v.err != nil {
		return
	}
	rules, err := algorithms.ParseRules(r.Rule)
	if err != nil {
		return // config.rules holds it, and was checked
	}
	v.runParts(&runIn{run: r, path: path, summary: s, rule: algorithms.PrimaryRule(rules)})
}

// runParts checks the figures of a run (runFigures), then its top keys.
func (v *validator) runParts(in *runIn) {
	for _, fig := range runFigures {
		fig.validate(v, in)
	}
	v.topKeys(in)
}

// topKeys checks that a run lists at most config.top_keys keys, each
// one's counts adding up and within the run's.
func (v *validator) topKeys(in *runIn) {
	r, f := in.run, in.field
	v.atMost(f("top_keys"), int64(len(r.TopKeys)), "config.top_keys", int64(in.summary.Config.TopKeys))
	for i, k := range r.TopKeys {
		p := fmt.Sprintf("%s.top_keys[%d]", in.path, i)
		v.nonNegative(p+".requests", k.Requests)
		v.nonNegative(p+".over", k.Over)
		v.nonNegative(p+".under", k.Under)
		if n, ok := v.sum(p+".over + under", k.Over, k.Under); ok {
			v.equal(p+".disagree", k.Disagree, "over + under", n)
		}
		v.atMost(p+".disagree", k.Disagree, p+".requests", k.Requests)
		v.atMost(p+".requests", k.Requests, f("requests"), r.Requests)
		v.atMost(p+".over", k.Over, f("over"), r.Over)
		v.atMost(p+".under", k.Under, f("under"), r.Under)
		if k.Burst != nil {
			v.nonNegative(p+".burst", *k.Burst)
		}
	}
}
