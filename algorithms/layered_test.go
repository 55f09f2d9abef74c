package algorithms_test

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"ratebench/algorithms"
)

func TestParseRules(t *testing.T) {
	s, m := int64(time.Second), int64(time.Minute)
	for _, tc := range []struct {
		in   string
		want []algorithms.Rule
		str  string
	}{
		{"5/1s+100/1m", []algorithms.Rule{{L: 5, W: s}, {L: 100, W: m}}, "5/1s+100/1m"},
		{" 5/1s + 100/60s ", []algorithms.Rule{{L: 5, W: s}, {L: 100, W: m}}, "5/1s+100/1m"},
		{"10/1s", []algorithms.Rule{{L: 10, W: s}}, "10/1s"},
		{"3/7ns+7/1us+1000/24h", []algorithms.Rule{{L: 3, W: 7}, {L: 7, W: 1000}, {L: 1000, W: 24 * 60 * m}}, "3/7ns+7/1us+1000/24h"},
	} {
		got, err := algorithms.ParseRules(tc.in)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("ParseRules(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
			continue
		}
		if str := algorithms.FormatRules(got); str != tc.str {
			t.Errorf("FormatRules(ParseRules(%q)) = %q, want %q", tc.in, str, tc.str)
		}
	}
	for _, bad := range []string{"", " ", "5/1s+", "+5/1s", "5/1s++100/1m", "5/1s+100", "5/1s+x/1m", "5/1s+100/-1m"} {
		if got, err := algorithms.ParseRules(bad); err == nil {
			t.Errorf("ParseRules(%q) = %v, want an error", bad, got)
		}
	}
}

func TestNewLayered(t *testing.T) {
	rules := []algorithms.Rule{{L: 5, W: int64(time.Second)}, {L: 100, W: int64(time.Minute)}}
	lim, err := algorithms.NewLayered("buckets:4", rules)
	if err != nil {
		t.Fatal(err)
	}
	lim.Grow(1)
	if lim.Name() != "buckets:4" || lim.Bytes(0) != 2*8*(4+2) || !lim.FixedSize() || !lim.CountsRejected() {
		t.Errorf("layered buckets:4: Name %q, Bytes %d, FixedSize %v, CountsRejected %v", lim.Name(), lim.Bytes(0), lim.FixedSize(), lim.CountsRejected())
	}
	if _, ok := lim.(algorithms.Estimator); ok {
		t.Error("layered implements Estimator")
	}
	if ly := lim.(*algorithms.Layered); !slices.Equal(ly.Rules(), rules) || len(ly.Layers()) != 2 {
		t.Errorf("Rules %v, %d layers", ly.Rules(), len(ly.Layers()))
	}
	tok, _ := algorithms.NewLayered("token", rules)
	if tok.CountsRejected() {
		t.Error("layered token counts rejected requests")
	}
	logs, _ := algorithms.NewLayered("log", rules)
	logs.Grow(1)
	if logs.FixedSize() || logs.Bytes(0) != 16 {
		t.Errorf("layered log: FixedSize %v, Bytes %d (want 2 empty logs of 8)", logs.FixedSize(), logs.Bytes(0))
	}
	for _, bad := range []struct {
		spec  string
		rules []algorithms.Rule
	}{{"log", nil}, {"nope", rules}, {"buckets:0", rules}} {
		if _, err := algorithms.NewLayered(bad.spec, bad.rules); err == nil {
			t.Errorf("NewLayered(%q, %v) accepted", bad.spec, bad.rules)
		}
	}
}

// layeredSpecs are the algorithms the layered tests stack.
func layeredSpecs() []string {
	return append(append([]string(nil), algorithms.DefaultSpecs...), "buckets:3", "token:B=2", "leaky", "leaky:B=40")
}

// TestLayeredSingleRuleIsPlain: one layer decides exactly as the plain
// limiter, under every policy.
func TestLayeredSingleRuleIsPlain(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	for _, r := range retryRules {
		traces := retryTraces(rng, r)
		for _, spec := range layeredSpecs() {
			for _, trace := range traces {
				for _, policy := range []string{"independent", "all", "shadow"} {
					plain, err := algorithms.New(spec, r)
					if err != nil {
						t.Fatal(err)
					}
					ly, err := algorithms.NewLayered(spec, []algorithms.Rule{r})
					if err != nil {
						t.Fatal(err)
					}
					want := replayPolicy(plain, algorithms.NewLog(r), trace, policy)
					got := replayPolicy(ly, algorithms.NewLog(r), trace, policy)
					if i := slices.Index(eqMask(got, want), false); i >= 0 {
						t.Fatalf("%s %v %s: request %d %+v: layered %v, plain %v", spec, r, policy, i, trace[i], got[i], want[i])
					}
				}
			}
		}
	}
}

// eqMask returns, per index, whether a and b agree.
func eqMask(a, b []bool) []bool {
	m := make([]bool, len(a))
	for i := range a {
		m[i] = a[i] == b[i]
	}
	return m
}

// layeredPairs are two-rule stacks: a short and a long limit, with windows
// that are and are not multiples of each other.
var layeredPairs = [][]algorithms.Rule{
	{{L: 5, W: int64(time.Second)}, {L: 20, W: int64(10 * time.Second)}},
	{{L: 3, W: 7}, {L: 10, W: 50}},
	{{L: 2, W: int64(time.Second)}, {L: 7, W: int64(time.Minute) + 13}},
	{{L: 10, W: int64(time.Second)}, {L: 30, W: int64(7 * time.Second)}},
}

// TestLayeredIsAndOfLayers builds the model of docs/definitions.md §12 from two plain
// limiters: a request is admitted iff both admit, and both record what the
// policy says of the stack's decision (its own admissions, every request
// under --count all, or the layered log's admissions in shadow mode). The
// layered limiter must decide as the model, and the traces must make each
// layer refuse alone.
func TestLayeredIsAndOfLayers(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 34))
	for _, rules := range layeredPairs {
		traces := append(retryTraces(rng, rules[0]), poissonish(rng, rules[0], 5, 5000))
		for _, spec := range layeredSpecs() {
			onlyFirst, onlySecond := 0, 0
			for _, trace := range traces {
				for _, policy := range []string{"independent", "all", "shadow"} {
					lim, err := algorithms.NewLayered(spec, rules)
					if err != nil {
						t.Fatal(err)
					}
					ref, _ := algorithms.NewLayered("log", rules)
					a, _ := algorithms.New(spec, rules[0])
					b, _ := algorithms.New(spec, rules[1])
					keys := 5
					lim.Grow(keys)
					ref.Grow(keys)
					a.Grow(keys)
					b.Grow(keys)
					for i, q := range trace {
						id := int32(q.Key)
						da, db := a.Decide(id, q.T, q.Cost), b.Decide(id, q.T, q.Cost)
						got := lim.Decide(id, q.T, q.Cost)
						if got != (da && db) {
							t.Fatalf("%s %s %s: request %d %+v: layered %v, layers %v and %v", spec, algorithms.FormatRules(rules), policy, i, q, got, da, db)
						}
						if da && !db {
							onlySecond++
						} else if db && !da {
							onlyFirst++
						}
						if recordsAs(lim, ref, policy, got, id, q) {
							lim.Record(id, q.T, q.Cost)
							a.Record(id, q.T, q.Cost)
							b.Record(id, q.T, q.Cost)
						}
						if lim.Bytes(id) != a.Bytes(id)+b.Bytes(id) {
							t.Fatalf("%s: Bytes %d, layers %d + %d", spec, lim.Bytes(id), a.Bytes(id), b.Bytes(id))
						}
					}
				}
			}
			switch {
			case strings.Contains(spec, ":B="):
				// One B for both layers: the faster one (the first, in
				// every pair) always holds at least the tokens of the
				// slower, so it never refuses alone.
				if onlyFirst != 0 || onlySecond == 0 {
					t.Errorf("%s %s: %d refusals by the faster layer alone (want 0), %d by the slower", spec, algorithms.FormatRules(rules), onlyFirst, onlySecond)
				}
			case onlyFirst == 0 || onlySecond == 0:
				t.Errorf("%s %s: %d refusals by the first layer alone, %d by the second: the traces do not exercise both", spec, algorithms.FormatRules(rules), onlyFirst, onlySecond)
			}
		}
	}
}

// TestLayeredRetryAfter checks RetryAfter of two- and three-rule stacks as
// TestRetryAfterIsExact does for plain limiters: admitted exactly at the
// answer, refused 1 ns before.
func TestLayeredRetryAfter(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 36))
	stacks := append(slices.Clone(layeredPairs), []algorithms.Rule{{L: 3, W: 10}, {L: 5, W: 35}, {L: 9, W: 100}})
	for _, spec := range layeredSpecs() {
		if plain, _ := algorithms.New(spec, stacks[0][0]); !implementsRetryAfter(plain) {
			t.Logf("%s: no RetryAfter (a peer library); TestRetryAfterIsExact says which", spec)
			continue
		}
		var total retryStats
		overLimit := false // some request costs more than the stack ever admits
		for _, rules := range stacks {
			probe, err := algorithms.NewLayered(spec, rules)
			if err != nil {
				t.Fatal(err)
			}
			c := retryCase{
				name:  spec + " " + algorithms.FormatRules(rules),
				mk:    func() algorithms.Limiter { l, _ := algorithms.NewLayered(spec, rules); return l },
				mkRef: func() algorithms.Limiter { l, _ := algorithms.NewLayered("log", rules); return l },
				limit: 1<<63 - 1,
			}
			for _, r := range rules {
				lim, _ := algorithms.New(spec, r)
				c.limit = min(c.limit, costLimit(lim, r))
				c.horizon = max(c.horizon, 3*r.W+1)
			}
			if _, ok := probe.(algorithms.RetryAfterer); !ok {
				t.Fatalf("layered %s does not implement RetryAfterer", spec)
			}
			for _, trace := range retryTraces(rng, rules[0]) {
				for _, q := range trace {
					overLimit = overLimit || q.Cost > c.limit
				}
				for _, policy := range []string{"independent", "all", "shadow"} {
					total.add(checkRetryAfter(t, c, rng, trace, policy))
				}
			}
		}
		if total.later < 100 || overLimit != (total.never > 0) {
			t.Errorf("layered %s: %d refusals, %d with a later retry, %d never: the traces do not exercise RetryAfter", spec, total.refusals, total.later, total.never)
		}
	}
}

func implementsRetryAfter(l algorithms.Limiter) bool {
	_, ok := l.(algorithms.RetryAfterer)
	return ok
}
