package summary

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"

	"ratebench/internal/numfmt"
)

// The verdict is the answer the summary's runs give, as data: per rule and
// count policy, on the runs its decision rests on (the independent mode,
// what a deployment sees; the shadow mode, marked shadow only, where the
// count policy was run in no other mode),
// which algorithm to choose under the policy (Policy), which ones no other
// beats on memory, over- and under-admission at once (the frontier), what
// each priority picks, and what dominates the others. The report, the
// terminal and the CI gate phrase it; none of them decides anything
// itself.
//
// The rules of the choice:
//
//   - Algorithms are ranked by peak memory per key, then by disagreement;
//     at identical figures a textbook algorithm comes before a product,
//     then the names in order (TieOrder, the tie-break of the report's
//     league table too), whatever the order of -alg.
//   - The choice is the first ranked algorithm that meets every bound of
//     the policy; the exact log meets any policy, so with the log run
//     there is always one.
//   - An algorithm is dominated when another is no worse on memory, over-
//     and under-admissions and better on one; the log, exact, dominates an
//     approximation of as much memory as it or more. What dominates it is
//     named by the first ranked of those that do: the cheapest, the log
//     in its ranked place.
//   - The least under-admission and the least over-admission are picked
//     among the approximations on the frontier (within the budget, when
//     there is one), the cheaper at a tie, then the first ranked; the
//     cheapest close one is the first ranked within 0.1% of the log's
//     decisions (and the budget).

// Outcomes of a rule's verdict.
const (
	OutcomeChoice     = "choice"      // Choice names the algorithm
	OutcomeNone       = "none"        // no algorithm meets the policy
	OutcomeNoRequests = "no_requests" // the trace held no request
	OutcomeLogOnly    = "log_only"    // only the exact log was run
)

// Kinds of a rule verdict's caveats.
const (
	CaveatDoesNotBind = "does_not_bind" // the log refuses no request
	CaveatBindsLittle = "binds_little"  // it refuses fewer than 1 in 1,000
	CaveatShadowOnly  = "shadow_only"   // only shadow mode was run
)

// Verdict is the summary's answer: the policy and, per rule, the choice.
type Verdict struct {
	Policy Policy        `json:"policy"`
	Rules  []RuleVerdict `json:"rules"`
}

// Policy is what an algorithm must meet to be chosen: Source is "budget"
// (the summary's budget) or "default" (the default tolerances).
type Policy struct {
	Source string        `json:"source"`
	Bounds []PolicyBound `json:"bounds"`
}

// Policy sources.
const (
	PolicyDefault = "default"
	PolicyBudget  = "budget"
)

// PolicyOf is the policy a budget sets: its bounds, or the default
// tolerances when it bounds nothing.
func PolicyOf(b *Budget) Policy {
	if b.IsSet() {
		return Policy{Source: PolicyBudget, Bounds: b.Bounds()}
	}
	return Policy{Source: PolicyDefault, Bounds: DefaultBounds()}
}

// RuleVerdict is the verdict on one rule under one count policy and mode.
// Algorithms are named as in the runs ("log" is the exact log); a pick is
// empty when there is none.
type RuleVerdict struct {
	Rule  string `json:"rule"`
	Count string `json:"count"`
	Mode  string `json:"mode"`
	// ShadowOnly is set when only shadow mode was run for the rule and
	// count policy: its figures isolate each decision's error but are not
	// what a deployment sees.
	ShadowOnly bool   `json:"shadow_only,omitempty"`
	Requests   int64  `json:"requests"`
	LogRefused *int64 `json:"log_refused,omitempty"`
	Outcome    string `json:"outcome"`
	// Choice is the first ranked algorithm that meets the policy.
	Choice string `json:"choice,omitempty"`
	// Closest is the approximation of the least disagreement.
	Closest string `json:"closest,omitempty"`
	// LeastUnder and LeastOver are the priorities' picks among the
	// approximations on the frontier (within the budget, if any).
	LeastUnder string `json:"least_under,omitempty"`
	LeastOver  string `json:"least_over,omitempty"`
	// CheapestClose is the first ranked algorithm within 0.1% of the log's
	// decisions (and within the budget, if any).
	CheapestClose string `json:"cheapest_close,omitempty"`
	// Frontier lists the undominated algorithms, cheapest first; those of
	// the same memory, over and under are one entry.
	Frontier [][]string `json:"frontier,omitempty"`
	// Algorithms are every run of the group, ranked.
	Algorithms []VerdictEntry `json:"algorithms"`
	Caveats    []Caveat       `json:"caveats,omitempty"`
}

// VerdictEntry is one algorithm in a rule's verdict: its figures, whether
// it meets the policy, the bounds it breaks, and the cheapest algorithm
// that dominates it.
type VerdictEntry struct {
	Algorithm       string   `json:"algorithm"`
	MemoryPerKey    int64    `json:"memory_per_key"`
	Over            int64    `json:"over"`
	Under           int64    `json:"under"`
	Disagree        int64    `json:"disagree"`
	OverOfRefused   *float64 `json:"over_of_refused,omitempty"`
	UnderOfAdmitted *float64 `json:"under_of_admitted,omitempty"`
	Meets           bool     `json:"meets"`
	Breaks          []string `json:"breaks,omitempty"`
	DominatedBy     string   `json:"dominated_by,omitempty"`
}

// Caveat qualifies a rule's verdict: Kind is one of the Caveat constants.
type Caveat struct {
	Kind string `json:"kind"`
	Text string `json:"text"`
}

// Entry returns the verdict's entry of algorithm alg, nil if none.
func (v *RuleVerdict) Entry(alg string) *VerdictEntry {
	for i := range v.Algorithms {
		if v.Algorithms[i].Algorithm == alg {
			return &v.Algorithms[i]
		}
	}
	return nil
}

// HasCaveat tells whether the verdict holds a caveat of the kind.
func (v *RuleVerdict) HasCaveat(kind string) bool {
	return slices.ContainsFunc(v.Caveats, func(c Caveat) bool { return c.Kind == kind })
}

// Of returns the rule verdict of rule, count and mode, nil if none.
func (v *Verdict) Of(rule, count, mode string) *RuleVerdict {
	if v == nil {
		return nil
	}
	for i := range v.Rules {
		if r := &v.Rules[i]; r.Rule == rule && r.Count == count && r.Mode == mode {
			return r
		}
	}
	return nil
}

// Conclude completes a summary whose runs are all in: the log's counts on
// every run (FillLogTerms), the verdict under the summary's budget, and
// the schema it is written in.
func (s *Summary) Conclude() {
	FillLogTerms(s.Runs)
	s.fillRecorded()
	s.Verdict = nil
	if len(s.Runs) > 0 {
		s.Verdict = VerdictOf(s, s.Config.Budget)
	}
	s.Schema = SchemaOf(s)
}

// VerdictOf computes the verdict of s's runs under budget (the default
// tolerances when it bounds nothing). It reads s and changes nothing.
func VerdictOf(s *Summary, budget *Budget) *Verdict {
	v := &Verdict{Policy: PolicyOf(budget)}
	for _, b := range decisionBases(s.Runs) {
		rv := ruleVerdict(b.Runs, v.Policy, budget.IsSet())
		rv.Rule, rv.Count, rv.Mode, rv.ShadowOnly = b.Rule, b.Count, b.Mode, b.ShadowOnly
		rv.Caveats = caveatsOf(s, &rv)
		v.Rules = append(v.Rules, rv)
	}
	return v
}

// basis is the runs of one rule × count × mode a rule's decision rests on.
type basis struct {
	Rule, Count, Mode string
	ShadowOnly        bool
	Runs              []*Run
}

// decisionBases returns, per rule in the order of the runs, the groups its
// decision rests on, one per count policy: its independent-mode runs, or
// failing those its shadow-mode runs, marked shadow only (under count
// all, where each rule is run in one mode, shadow when independent was
// not asked for: token, gcra, leaky and the peers then record the log's
// admissions).
func decisionBases(runs []Run) []basis {
	type gkey struct{ rule, count, mode string }
	var rules []string
	var order []gkey
	groups := map[gkey][]*Run{}
	for i := range runs {
		r := &runs[i]
		k := gkey{r.Rule, r.Count, r.Mode}
		if groups[k] == nil {
			order = append(order, k)
			if !slices.Contains(rules, r.Rule) {
				rules = append(rules, r.Rule)
			}
		}
		groups[k] = append(groups[k], r)
	}
	var out []basis
	for _, rule := range rules {
		var counts []string
		for _, k := range order {
			if k.rule == rule && !slices.Contains(counts, k.count) {
				counts = append(counts, k.count)
			}
		}
		for _, c := range counts {
			of := func(k gkey) bool { return k.rule == rule && k.count == c }
			if i := slices.IndexFunc(order, func(k gkey) bool { return of(k) && k.mode == "independent" }); i >= 0 {
				k := order[i]
				out = append(out, basis{k.rule, k.count, k.mode, false, groups[k]})
				continue
			}
			for _, k := range order {
				if of(k) {
					out = append(out, basis{k.rule, k.count, k.mode, true, groups[k]})
				}
			}
		}
	}
	return out
}

// Ranked returns runs ranked by peak bytes per key, then by disagreement,
// then by TieOrder (a textbook algorithm before a product, then by name).
func Ranked(runs []*Run) []*Run {
	out := slices.Clone(runs)
	slices.SortStableFunc(out, func(a, b *Run) int {
		return cmp.Or(cmp.Compare(a.Memory.PeakPerKey, b.Memory.PeakPerKey), cmp.Compare(a.Disagree, b.Disagree),
			cmp.Compare(a.DisagreeRate, b.DisagreeRate), TieOrder(a, b))
	})
	return out
}

// Dominates tells whether a is at least as good as b on memory per key,
// over- and under-admissions, and better on one. The runs of a group are
// of the same requests, so counts compare as rates do.
func Dominates(a, b *Run) bool {
	am, bm := a.Memory.PeakPerKey, b.Memory.PeakPerKey
	if am > bm || a.Over > b.Over || a.Under > b.Under {
		return false
	}
	return am < bm || a.Over < b.Over || a.Under < b.Under
}

// closeBound is "within 0.1% of the log's decisions".
var closeBound = PolicyBound{FigureDisagreeRate, 0.001}

// ruleVerdict is the verdict on one group's runs under policy p; budget
// tells whether p is a budget (then the priorities pick within it).
func ruleVerdict(runs []*Run, p Policy, budget bool) RuleVerdict {
	rows := Ranked(runs)
	var v RuleVerdict
	if len(rows) > 0 {
		v.Requests = rows[0].Requests
		v.LogRefused = rows[0].LogRefused
	}
	var log *Run
	var cands []*Run
	for _, r := range rows {
		if r.Algorithm == "log" {
			log = r
		} else {
			cands = append(cands, r)
		}
		e := VerdictEntry{Algorithm: r.Algorithm, MemoryPerKey: r.Memory.PeakPerKey, Over: r.Over, Under: r.Under, Disagree: r.Disagree,
			OverOfRefused: r.OverOfRefused, UnderOfAdmitted: r.UnderOfAdmitted, Breaks: Breaks(r, p.Bounds)}
		e.Meets = e.Breaks == nil
		v.Algorithms = append(v.Algorithms, e)
	}
	switch {
	case !slices.ContainsFunc(rows, func(r *Run) bool { return r.Requests > 0 }):
		v.Outcome = OutcomeNoRequests
		return v
	case len(cands) == 0:
		v.Outcome = OutcomeLogOnly
		return v
	}
	meets := func(r *Run) bool { return v.Entry(r.Algorithm).Meets }

	v.Outcome = OutcomeNone
	if i := slices.IndexFunc(rows, meets); i >= 0 {
		v.Outcome, v.Choice = OutcomeChoice, rows[i].Algorithm
	}
	closest := cands[0]
	for _, r := range cands[1:] {
		if r.Disagree < closest.Disagree {
			closest = r
		}
	}
	v.Closest = closest.Algorithm

	// The frontier and the dominated, each by the first ranked (the
	// cheapest) that dominates it, the log in its ranked place.
	var front []*Run
	for i, r := range rows {
		var by *Run
		if j := slices.IndexFunc(rows, func(o *Run) bool { return o != r && Dominates(o, r) }); j >= 0 {
			by = rows[j]
		}
		if by == nil {
			front = append(front, r)
		} else {
			v.Algorithms[i].DominatedBy = by.Algorithm
		}
	}
	done := map[*Run]bool{}
	for _, r := range front {
		if done[r] {
			continue
		}
		var names []string
		for _, o := range front {
			if sameFigures(r, o) {
				names = append(names, o.Algorithm)
				done[o] = true
			}
		}
		v.Frontier = append(v.Frontier, names)
	}

	// The priorities' picks: the least of the figure, then the cheaper,
	// then the first ranked (the pool is in ranked order).
	var pool []*Run
	for _, r := range front {
		if r != log && (!budget || meets(r)) {
			pool = append(pool, r)
		}
	}
	pickBy := func(fig func(r *Run) int64) string {
		var best *Run
		for _, r := range pool {
			if best == nil || fig(r) < fig(best) || fig(r) == fig(best) && r.Memory.PeakPerKey < best.Memory.PeakPerKey {
				best = r
			}
		}
		if best == nil {
			return ""
		}
		return best.Algorithm
	}
	v.LeastUnder = pickBy(func(r *Run) int64 { return r.Under })
	v.LeastOver = pickBy(func(r *Run) int64 { return r.Over })
	if i := slices.IndexFunc(rows, func(r *Run) bool { return closeBound.Holds(r) && (!budget || meets(r)) }); i >= 0 {
		v.CheapestClose = rows[i].Algorithm
	}
	return v
}

// sameFigures tells whether a and b have the same memory, over- and
// under-admissions.
func sameFigures(a, b *Run) bool {
	return a.Memory.PeakPerKey == b.Memory.PeakPerKey && a.Over == b.Over && a.Under == b.Under
}

// caveatsOf are what qualifies v: only shadow mode run (for its count
// policy), and a rule the log refuses no request under, or fewer than 1
// in 1,000 (the summary's binding of the rule and count).
func caveatsOf(s *Summary, v *RuleVerdict) []Caveat {
	var out []Caveat
	if v.ShadowOnly {
		out = append(out, Caveat{CaveatShadowOnly, fmt.Sprintf("Only shadow mode was run for this rule under count %s: its figures isolate each decision rule's error but are not what a deployment would see.", v.Count)})
	}
	if b := s.BindingOf(v.Rule, v.Count); b != nil && b.HardlyBinds() {
		if b.LogRefused == 0 {
			out = append(out, Caveat{CaveatDoesNotBind, fmt.Sprintf("At %s the exact log refuses no request on this trace: the rule does not bind.", v.Rule)})
		} else {
			out = append(out, Caveat{CaveatBindsLittle, fmt.Sprintf("At %s the exact log refuses %s of the %s requests, fewer than 1 in 1,000: the rule hardly binds.", v.Rule, numfmt.Count(b.LogRefused), numfmt.Count(b.Requests))})
		}
	}
	return out
}

// sameVerdict tells whether a and b say the same, as summary.json writes
// them.
func sameVerdict(a, b *Verdict) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(ja, jb)
}
