package summary

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"ratebench/algorithms"
)

// The values config.counts and config.modes hold, as compare names them.
var (
	countPolicies = []string{"accepted", "all"}
	replayModes   = []string{"independent", "shadow"}
)

// Validate reports the first thing in s that no replay writes: a section
// missing, a count that is negative or larger than the total it is part of
// (over + under = disagree ≤ requests, admitted + rejected = requests, ...),
// a rate outside [0, 1] or other than its count over requests, a rule that
// does not parse, a histogram whose bins are out of range or do not add up
// to its samples, parallel arrays of different lengths, a run or a binding
// missing from the grid the config lists, not in it, or in it twice, a
// binding at odds with the trace or the log's runs (validate_grid.go). The
// error names the field by its path in the JSON: "runs[3].over: -1 is
// negative".
//
// Every figure the report, diff and merge show is read from these fields,
// so a summary that passes is one they can trust: ReadSummary calls
// Validate on every summary it reads.
func (s *Summary) Validate() error {
	v := &validator{}
	v.summary(s)
	return v.err
}

// validator keeps the first failed check.
type validator struct{ err error }

func (v *validator) fail(path, format string, a ...any) {
	if v.err == nil {
		v.err = fmt.Errorf("%s: %s", path, fmt.Sprintf(format, a...))
	}
}

func (v *validator) nonNegative(path string, n int64) {
	if n < 0 {
		v.fail(path, "%d is negative", n)
	}
}

// atMost checks n <= bound, the value of the field boundPath.
func (v *validator) atMost(path string, n int64, boundPath string, bound int64) {
	if n > bound {
		v.fail(path, "%d is more than %s, %d", n, boundPath, bound)
	}
}

// equal checks that the field path holds want, what the other fields
// (what) make it.
func (v *validator) equal(path string, n int64, what string, want int64) {
	if n != want {
		v.fail(path, "%d, but %s is %d", n, what, want)
	}
}

// sum adds counts for a check, false (and a failure) if the sum leaves
// int64.
func (v *validator) sum(path string, ns ...int64) (int64, bool) {
	var total int64
	for _, n := range ns {
		s, ok := addInt64(total, n)
		if !ok {
			v.fail(path, "the sum overflows a 64-bit integer")
			return 0, false
		}
		total = s
	}
	return total, true
}

// counts checks that every element of the array at path is non-negative
// and returns their sum.
func (v *validator) counts(path string, ns []int64) (int64, bool) {
	for i, n := range ns {
		if n < 0 {
			v.fail(fmt.Sprintf("%s[%d]", path, i), "%d is negative", n)
			return 0, false
		}
	}
	return v.sum(path, ns...)
}

// count is a field of a count: its name and value.
type count struct {
	name  string
	value int64
}

// nonNegatives checks that each of the fields of the object at path is
// non-negative.
func (v *validator) nonNegatives(path string, fields []count) {
	for _, f := range fields {
		v.nonNegative(path+"."+f.name, f.value)
	}
}

// finite checks that f is a number (not NaN, not infinite) and, if
// nonNegative, not below 0.
func (v *validator) finite(path string, f float64, nonNegative bool) {
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0):
		v.fail(path, "%v is not a number", f)
	case nonNegative && f < 0:
		v.fail(path, "%v is negative", f)
	}
}

// rate checks a rate stored beside its count: within [0, 1] and exactly
// count/total as a replay computes it (0 when total is 0).
func (v *validator) rate(path string, r float64, countPath string, count, total int64) {
	v.finite(path, r, true)
	if v.err != nil {
		return
	}
	if r > 1 {
		v.fail(path, "%v is more than 1 (a rate is a fraction of the requests)", r)
		return
	}
	want := 0.0
	if total > 0 {
		want = float64(count) / float64(total)
	}
	if r != want {
		v.fail(path, "%v, but %s over requests is %v", r, countPath, want)
	}
}

// oneOf checks that s is one of allowed.
func (v *validator) oneOf(path, s string, allowed []string) {
	if !slices.Contains(allowed, s) {
		v.fail(path, "%q, want one of %s", s, strings.Join(allowed, ", "))
	}
}

func (v *validator) summary(s *Summary) {
	if sh := s.Shard; sh != nil {
		if sh.Count < 1 || sh.Index < 0 || sh.Index >= sh.Count {
			v.fail("shard", "%d/%d is not one of n shards, 0 to n-1", sh.Index, sh.Count)
		}
	}
	v.trace(&s.Trace)
	v.config(&s.Config)
	if len(s.Runs) == 0 {
		v.fail("runs", "missing: a summary holds at least the reference's run")
	}
	v.listedOnce(&s.Config)
	for i := range s.Runs {
		v.run(fmt.Sprintf("runs[%d]", i), &s.Runs[i], s)
	}
	if v.err == nil {
		v.runGrid(s)
	}
	for _, l := range summaryResults {
		l.validate(v, s)
	}
	if v.err == nil {
		v.bindingsGrid(s)
	}
	if v.err == nil {
		v.placements(s)
	}
	if s.Verdict != nil && len(s.Runs) > 0 && !sameVerdict(s.Verdict, VerdictOf(s, s.Config.Budget)) {
		v.fail("verdict", "does not follow from the runs and the budget: it is not the verdict they give")
	}
}

func (v *validator) trace(t *TraceInfo) {
	if t.Format == "" {
		v.fail("trace.format", "missing")
	}
	v.nonNegative("trace.requests", t.Requests)
	v.nonNegative("trace.cost", t.Cost)
	v.nonNegative("trace.keys", t.Keys)
	v.nonNegative("trace.skipped", t.Skipped)
	v.atMost("trace.keys", t.Keys, "trace.requests", t.Requests)
	if t.RecordsRead > 0 { // schema 1.6: a run reads its requests at least
		v.atMost("trace.requests", t.Requests, "trace.records_read", t.RecordsRead)
	}
	if t.Cost < t.Requests {
		v.fail("trace.cost", "%d is less than trace.requests, %d (every request costs at least 1)", t.Cost, t.Requests)
	}
	if t.Requests > 0 && t.StartNS > t.EndNS {
		v.fail("trace.start_ns", "%d is after trace.end_ns, %d", t.StartNS, t.EndNS)
	}
	v.atMost("trace.skipped_examples", int64(len(t.SkippedExamples)), "trace.skipped", t.Skipped)
	v.inputArgs(t.Input)
	v.resolution(t)
	v.dataset(t.Dataset)
	for i, e := range t.SkippedExamples {
		p := fmt.Sprintf("trace.skipped_examples[%d]", i)
		v.nonNegative(p+".line", e.Line)
		v.nonNegative(p+".row", e.Row)
	}
}

func (v *validator) config(c *RunConfig) {
	lists := []struct {
		name    string
		values  []string
		allowed []string
	}{
		{"rules", c.Rules, nil}, {"counts", c.Counts, countPolicies}, {"modes", c.Modes, replayModes}, {"algorithms", c.Algorithms, nil},
	}
	for _, l := range lists {
		if len(l.values) == 0 {
			v.fail("config."+l.name, "missing")
		}
		for i, s := range l.values {
			if l.allowed != nil {
				v.oneOf(fmt.Sprintf("config.%s[%d]", l.name, i), s, l.allowed)
			}
		}
	}
	for i, r := range c.Rules {
		if _, err := algorithms.ParseRules(r); err != nil {
			v.fail(fmt.Sprintf("config.rules[%d]", i), "%v", err)
		}
	}
	v.nonNegative("config.top_keys", int64(c.TopKeys))
	if c.Reference != "" {
		v.reference(c.Reference)
	}
	if sw := c.Sweep; sw != nil {
		for i, l := range sw.L {
			if l < 1 {
				v.fail(fmt.Sprintf("config.sweep.l[%d]", i), "%d is not a positive limit", l)
			}
		}
		for i, w := range sw.W {
			if d, err := time.ParseDuration(w); err != nil || d <= 0 {
				v.fail(fmt.Sprintf("config.sweep.w[%d]", i), "%q is not a positive duration", w)
			}
		}
	}
	if b := c.Budget; b != nil {
		for name, p := range map[string]*float64{"max_over": b.MaxOver, "max_under": b.MaxUnder,
			"max_over_of_refused": b.MaxOverOfRefused, "max_under_of_admitted": b.MaxUnderOfAdmitted} {
			if p == nil {
				continue
			}
			if v.finite("config.budget."+name, *p, true); v.err == nil && *p > 1 {
				v.fail("config.budget."+name, "%v is more than 1 (a budget is a fraction)", *p)
			}
		}
	}
	if d := c.Deployment; d != nil {
		for i, n := range d.Nodes {
			if n < 1 {
				v.fail(fmt.Sprintf("config.deployment.nodes[%d]", i), "%d is not a positive number of nodes", n)
			}
		}
		for i, n := range d.Sync {
			v.nonNegative(fmt.Sprintf("config.deployment.sync_ns[%d]", i), n)
		}
		for i, n := range d.Skew {
			v.nonNegative(fmt.Sprintf("config.deployment.skew_ns[%d]", i), n)
		}
	}
}
