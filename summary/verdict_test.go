package summary

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// verdictRuns returns one group of runs of 5/30s (count accepted,
// independent mode) over n requests of which the log refuses refused:
// the log, then one candidate per (name, memory, over, under).
func verdictRuns(n, refused int64, logMem int64, cands ...any) []Run {
	log := Run{Rule: "5/30s", Count: "accepted", Mode: "independent", Algorithm: "log", Requests: n, Admitted: n - refused, Rejected: refused}
	log.Memory.PeakPerKey = logMem
	runs := []Run{log}
	for i := 0; i < len(cands); i += 4 {
		over, under := int64(cands[i+2].(int)), int64(cands[i+3].(int))
		r := Run{Rule: "5/30s", Count: "accepted", Mode: "independent", Algorithm: cands[i].(string), Requests: n,
			Over: over, Under: under, Disagree: over + under,
			OverRate: float64(over) / float64(n), UnderRate: float64(under) / float64(n), DisagreeRate: float64(over+under) / float64(n)}
		r.Memory.PeakPerKey = int64(cands[i+1].(int))
		runs = append(runs, r)
	}
	FillLogTerms(runs)
	return runs
}

// randomRuns draws a group: the log and up to 7 candidates of random
// memory (few values, so that ties occur) and random errors, some of them
// within the default tolerances.
func randomRuns(rng *rand.Rand) []Run {
	n := int64(1000 + rng.IntN(100000))
	refused := rng.Int64N(n / 2)
	var cands []any
	for i := range 1 + rng.IntN(7) {
		scale := []int64{0, 1, 10, 100, 1000}[rng.IntN(5)]
		over := rng.Int64N(min(refused, scale*refused/1000) + 1)
		under := rng.Int64N(min(n-refused, scale*(n-refused)/1000) + 1)
		cands = append(cands, fmt.Sprintf("alg%d", i), []int{8, 16, 24, 32, 48, 64}[rng.IntN(6)], int(over), int(under))
	}
	return verdictRuns(n, refused, []int64{24, 48}[rng.IntN(2)], cands...)
}

// randomBudget draws a budget of whole thousandths on one to four
// figures, or nil; its bounds, for the test's own arithmetic, are the
// thousandths.
func randomBudget(rng *rand.Rand) (*Budget, map[string]int64) {
	if rng.IntN(3) == 0 {
		return nil, map[string]int64{FigureDisagreeRate: 1, FigureOverOfRefused: 100, FigureUnderOfAdmitted: 10}
	}
	b := &Budget{}
	perMille := map[string]int64{}
	for _, f := range []struct {
		figure string
		dst    **float64
	}{{FigureOverRate, &b.MaxOver}, {FigureUnderRate, &b.MaxUnder}, {FigureOverOfRefused, &b.MaxOverOfRefused}, {FigureUnderOfAdmitted, &b.MaxUnderOfAdmitted}} {
		if rng.IntN(2) == 0 && len(perMille) < 3 {
			continue
		}
		k := rng.Int64N(200)
		v, _ := strconv.ParseFloat(strconv.FormatInt(k, 10)+"e-3", 64)
		*f.dst = &v
		perMille[f.figure] = k
	}
	if len(perMille) == 0 { // a budget that bounds nothing: the default
		return b, map[string]int64{FigureDisagreeRate: 1, FigureOverOfRefused: 100, FigureUnderOfAdmitted: 10}
	}
	return b, perMille
}

// meetsPerMille is the test's own check of a run against bounds in
// thousandths, in integers.
func meetsPerMille(r *Run, perMille map[string]int64) bool {
	for fig, k := range perMille {
		var n, of int64
		switch fig {
		case FigureDisagreeRate:
			n, of = r.Disagree, r.Requests
		case FigureOverRate:
			n, of = r.Over, r.Requests
		case FigureUnderRate:
			n, of = r.Under, r.Requests
		case FigureOverOfRefused:
			n, of = r.Over, *r.LogRefused
		case FigureUnderOfAdmitted:
			n, of = r.Under, *r.LogAdmitted
		}
		if n*1000 > k*of {
			return false
		}
	}
	return true
}

// Over random groups and budgets, the verdict's claims hold of the runs:
// the choice meets every bound and nothing cheaper does; what is dominated
// is dominated by what it names, the frontier by nothing; the priorities'
// picks are the least of their figure on the frontier.
func TestVerdictProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 3000 {
		runs := randomRuns(rng)
		budget, perMille := randomBudget(rng)
		s := &Summary{Runs: runs, Config: RunConfig{Budget: budget}}
		v := VerdictOf(s, budget)
		if len(v.Rules) != 1 {
			t.Fatalf("trial %d: %d rule verdicts", trial, len(v.Rules))
		}
		rv := v.Rules[0]
		byName := map[string]*Run{}
		for i := range runs {
			byName[runs[i].Algorithm] = &runs[i]
		}
		fail := func(format string, a ...any) {
			t.Helper()
			t.Fatalf("trial %d (budget %v): %s\nruns %+v\nverdict %+v", trial, perMille, fmt.Sprintf(format, a...), runs, rv)
		}
		if rv.Outcome != OutcomeChoice {
			fail("outcome %q with the log run", rv.Outcome)
		}
		choice := byName[rv.Choice]
		if !meetsPerMille(choice, perMille) {
			fail("the choice %s breaks a bound", rv.Choice)
		}
		for _, r := range runs {
			cheaper := r.Memory.PeakPerKey < choice.Memory.PeakPerKey ||
				r.Memory.PeakPerKey == choice.Memory.PeakPerKey && r.Disagree < choice.Disagree
			if cheaper && meetsPerMille(&r, perMille) {
				fail("%s is cheaper than the choice %s and meets the bounds", r.Algorithm, rv.Choice)
			}
			e := rv.Entry(r.Algorithm)
			if e.Meets != meetsPerMille(&r, perMille) || e.Meets != (len(e.Breaks) == 0) {
				fail("%s: meets %v, breaks %v", r.Algorithm, e.Meets, e.Breaks)
			}
		}
		closest := byName[rv.Closest]
		for _, r := range runs[1:] {
			if r.Disagree < closest.Disagree || r.Disagree == closest.Disagree && r.Memory.PeakPerKey < closest.Memory.PeakPerKey {
				fail("%s is closer to the log than the closest, %s", r.Algorithm, rv.Closest)
			}
		}
		closeOK := func(r *Run) bool {
			return r.Disagree*1000 <= r.Requests && (!budget.IsSet() || meetsPerMille(r, perMille))
		}
		if c := byName[rv.CheapestClose]; c == nil || !closeOK(c) {
			fail("the cheapest close %q is not within 0.1%% of the log (and the budget)", rv.CheapestClose)
		} else if slices.ContainsFunc(runs, func(r Run) bool { return closeOK(&r) && r.Memory.PeakPerKey < c.Memory.PeakPerKey }) {
			fail("a cheaper algorithm than %s is within 0.1%% of the log", rv.CheapestClose)
		}
		var front []string
		for _, f := range rv.Frontier {
			front = append(front, f...)
		}
		for _, e := range rv.Algorithms {
			r := byName[e.Algorithm]
			dominated := slices.ContainsFunc(runs, func(o Run) bool {
				return o.Memory.PeakPerKey <= r.Memory.PeakPerKey && o.Over <= r.Over && o.Under <= r.Under &&
					(o.Memory.PeakPerKey < r.Memory.PeakPerKey || o.Over < r.Over || o.Under < r.Under)
			})
			switch {
			case e.DominatedBy != "" && !Dominates(byName[e.DominatedBy], r):
				fail("%s is said dominated by %s, which does not dominate it", e.Algorithm, e.DominatedBy)
			case e.DominatedBy == "" && dominated:
				fail("%s is dominated but not said so", e.Algorithm)
			case (e.DominatedBy == "") != slices.Contains(front, e.Algorithm):
				fail("%s: dominated by %q, on the frontier %v", e.Algorithm, e.DominatedBy, front)
			}
		}
		for _, p := range []struct {
			pick string
			fig  func(r *Run) int64
		}{{rv.LeastUnder, func(r *Run) int64 { return r.Under }}, {rv.LeastOver, func(r *Run) int64 { return r.Over }}} {
			var pool []*Run
			for _, a := range front {
				if a != "log" && (!budget.IsSet() || meetsPerMille(byName[a], perMille)) {
					pool = append(pool, byName[a])
				}
			}
			if len(pool) == 0 {
				if p.pick != "" {
					fail("a pick %s with no approximation in the pool", p.pick)
				}
				continue
			}
			best := slices.MinFunc(pool, func(a, b *Run) int { return int(p.fig(a) - p.fig(b)) })
			if p.pick == "" || p.fig(byName[p.pick]) != p.fig(best) {
				fail("pick %q, the least is %s", p.pick, best.Algorithm)
			}
		}
	}
}

// Bounds are exact: a figure at its bound meets it and one request more
// breaks it, at counts where the quotient in floating point cannot tell.
func TestPolicyBoundIsExact(t *testing.T) {
	const of int64 = 9_000_000_000_000_000_000 // 9e18
	const at = of / 1000
	for _, c := range []struct {
		n    int64
		want bool
	}{{at, true}, {at + 1, false}, {at - 1, true}} {
		r := &Run{Requests: of, Disagree: c.n}
		if got := (PolicyBound{FigureDisagreeRate, 0.001}).Holds(r); got != c.want {
			t.Errorf("%d of %d within 0.1%%: %v, want %v", c.n, of, got, c.want)
		}
	}
	// A share of no refusal holds; a figure the run lacks does not.
	r := &Run{Requests: 10}
	r.SetLogTerms(0, 10)
	if !(PolicyBound{FigureOverOfRefused, 0}).Holds(r) {
		t.Error("a bound on the log's refusals breaks where it refuses nothing")
	}
	if (PolicyBound{FigureOverOfRefused, 1}).Holds(&Run{Requests: 10}) {
		t.Error("a bound in the log's terms holds on a run without them")
	}
}

// The verdict is in summary.json: Conclude writes it, it survives a round
// trip, and a verdict that does not follow from the runs is refused.
func TestVerdictRoundTrip(t *testing.T) {
	s := withBinding(t, validSummary(10))
	s.Conclude()
	if s.Verdict == nil || s.Schema != SchemaV1_5 || len(s.Verdict.Rules) != 1 || s.Verdict.Rules[0].Outcome != OutcomeLogOnly {
		t.Fatalf("concluded: schema %s, verdict %+v", s.Schema, s.Verdict)
	}
	data, back := roundTrip(t, s)
	if !sameVerdict(back.Verdict, s.Verdict) || back.Schema != SchemaV1_5 {
		t.Errorf("round trip: %+v, want %+v", back.Verdict, s.Verdict)
	}
	bad := strings.Replace(string(data), `"outcome": "log_only"`, `"outcome": "choice", "choice": "log"`, 1)
	if bad == string(data) {
		t.Fatal("test: the verdict's outcome is not in the file as expected")
	}
	if _, err := ReadSummary(strings.NewReader(bad)); err == nil || !strings.Contains(err.Error(), "verdict") {
		t.Errorf("a verdict that does not follow from the runs: %v", err)
	}
}

// A rule the log refuses nothing under, or fewer than 1 in 1,000, carries
// the caveat; shadow-only runs carry theirs.
func TestVerdictCaveats(t *testing.T) {
	s := &Summary{Runs: verdictRuns(10000, 0, 48, "gcra", 8, 0, 0),
		Bindings: []Binding{{Rule: "5/30s", Count: "accepted", Requests: 10000}}}
	rv := VerdictOf(s, nil).Rules[0]
	if !rv.HasCaveat(CaveatDoesNotBind) || rv.Choice != "gcra" {
		t.Errorf("no refusal: %+v", rv)
	}
	s.Bindings[0].LogRefused, s.Bindings[0].KeysRefused = 9, 1
	if rv := VerdictOf(s, nil).Rules[0]; !rv.HasCaveat(CaveatBindsLittle) || rv.HasCaveat(CaveatDoesNotBind) {
		t.Errorf("9 of 10,000 refused: %+v", rv.Caveats)
	}
	s.Bindings[0].LogRefused = 10
	if rv := VerdictOf(s, nil).Rules[0]; len(rv.Caveats) != 0 {
		t.Errorf("10 of 10,000 refused: %+v", rv.Caveats)
	}
	for i := range s.Runs {
		s.Runs[i].Mode = "shadow"
	}
	if rv := VerdictOf(s, nil).Rules[0]; !rv.ShadowOnly || !rv.HasCaveat(CaveatShadowOnly) {
		t.Errorf("shadow only: %+v", rv)
	}
}

// At identical figures the verdict ranks a textbook algorithm before a
// product, then by name, whatever the order of the runs: the choice, the
// frontier's entry and the picks do not follow -alg.
func TestVerdictTieOrder(t *testing.T) {
	for _, tc := range []struct {
		cands []any
		want  []string // the ranked order of the candidates
	}{
		{[]any{"aqua", 16, 10, 20, "token", 16, 10, 20}, []string{"token", "aqua"}},
		{[]any{"token", 16, 10, 20, "aqua", 16, 10, 20}, []string{"token", "aqua"}},
		{[]any{"token", 16, 10, 20, "gcra", 16, 10, 20, "aqua", 16, 10, 20}, []string{"gcra", "token", "aqua"}},
	} {
		runs := verdictRuns(100000, 10000, 48, tc.cands...)
		runs[slices.IndexFunc(runs, func(r Run) bool { return r.Algorithm == "aqua" })].Product = &Product{Twin: "token"} // the product
		v := VerdictOf(&Summary{Runs: runs}, nil).Rules[0]
		var ranked []string
		for _, e := range v.Algorithms[:len(tc.want)] {
			ranked = append(ranked, e.Algorithm)
		}
		if !slices.Equal(ranked, tc.want) || !slices.Equal(v.Frontier[0], tc.want) {
			t.Errorf("runs %v: ranked %v, frontier %v, want %v", tc.cands, ranked, v.Frontier, tc.want)
		}
		for what, got := range map[string]string{"choice": v.Choice, "closest": v.Closest, "least under": v.LeastUnder, "least over": v.LeastOver, "cheapest close": v.CheapestClose} {
			if got != tc.want[0] {
				t.Errorf("runs %v: the %s is %s, want %s", tc.cands, what, got, tc.want[0])
			}
		}
	}
}

// dominated_by names the cheapest algorithm that dominates a run, the log
// in its ranked place: a cheaper approximation before the log, the log
// before a dearer approximation.
func TestVerdictDominatedByCheapest(t *testing.T) {
	runs := verdictRuns(100000, 10000, 48,
		"buckets:4", 64, 20, 20, // dominated by gcra, counter, the log and fixed
		"counter", 24, 10, 20, // by gcra
		"gcra", 8, 10, 10,
		"buckets:16", 96, 5, 5, // by the log and fixed, dearer than the log
		"fixed", 64, 5, 5, // by the log
	)
	v := VerdictOf(&Summary{Runs: runs}, nil).Rules[0]
	for alg, want := range map[string]string{"buckets:4": "gcra", "counter": "gcra", "gcra": "", "buckets:16": "log", "fixed": "log", "log": ""} {
		if e := v.Entry(alg); e == nil || e.DominatedBy != want {
			t.Errorf("%s: dominated by %q, want %q", alg, e.DominatedBy, want)
		}
	}
}

// Each count policy has its verdict: on its independent-mode runs, else
// on its shadow-mode runs marked shadow only, whatever the other count
// was run in.
func TestVerdictBasisPerCount(t *testing.T) {
	type basis struct {
		count, mode string
		shadowOnly  bool
	}
	for _, tc := range []struct {
		groups []string // count/mode, in the order of the runs
		want   []basis
	}{
		{[]string{"accepted/shadow", "all/shadow"}, []basis{{"accepted", "shadow", true}, {"all", "shadow", true}}},
		{[]string{"all/shadow", "accepted/shadow"}, []basis{{"all", "shadow", true}, {"accepted", "shadow", true}}},
		{[]string{"accepted/shadow"}, []basis{{"accepted", "shadow", true}}},
		{[]string{"all/shadow"}, []basis{{"all", "shadow", true}}},
		{[]string{"accepted/independent", "accepted/shadow", "all/shadow"}, []basis{{"accepted", "independent", false}, {"all", "shadow", true}}},
		{[]string{"accepted/shadow", "accepted/independent", "all/independent", "all/shadow"}, []basis{{"accepted", "independent", false}, {"all", "independent", false}}},
	} {
		var runs []Run
		for _, g := range tc.groups {
			count, mode, _ := strings.Cut(g, "/")
			for _, r := range verdictRuns(10000, 100, 48, "gcra", 8, 1, 1) {
				r.Count, r.Mode = count, mode
				runs = append(runs, r)
			}
		}
		var got []basis
		for _, rv := range VerdictOf(&Summary{Runs: runs}, nil).Rules {
			got = append(got, basis{rv.Count, rv.Mode, rv.ShadowOnly})
			if rv.ShadowOnly != rv.HasCaveat(CaveatShadowOnly) || rv.Choice != "gcra" {
				t.Errorf("%v: count %s, %s mode: shadow only %v, caveats %v, choice %q", tc.groups, rv.Count, rv.Mode, rv.ShadowOnly, rv.Caveats, rv.Choice)
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%v: verdicts on %v, want %v", tc.groups, got, tc.want)
		}
	}
}
