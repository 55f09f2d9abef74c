package products_test

import (
	"context"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/throttled/throttled/v2"
	"github.com/throttled/throttled/v2/store/memstore"

	"ratebench/algorithms"
	"ratebench/algorithms/products"
)

func TestThrottledSpec(t *testing.T) {
	r := algorithms.Rule{L: 10, W: int64(time.Minute)}
	for spec, want := range map[string][2]string{
		"throttled":                                  {"throttled", "gcra"},
		"throttled:burst=0":                          {"throttled:burst=0", "gcra:B=1"},
		"throttled:burst=19":                         {"throttled:burst=19", "gcra:B=20"},
		"throttled:without=rate-truncation":          {"throttled:without=rate-truncation", "gcra"},
		" throttled:burst=4:without=rate-truncation": {"throttled:burst=4:without=rate-truncation", "gcra:B=5"},
	} {
		l, err := algorithms.New(spec, r)
		if err != nil {
			t.Fatal(err)
		}
		if p := l.(algorithms.Product); l.Name() != want[0] || p.Twin() != want[1] {
			t.Errorf("New(%q): name %q twin %q, want %q %q", spec, l.Name(), p.Twin(), want[0], want[1])
		}
		if again, err := algorithms.New(l.Name(), r); err != nil || again.Name() != l.Name() {
			t.Errorf("%q does not round-trip: %v", l.Name(), err)
		}
	}
	for _, bad := range []string{"throttled:burst=-1", "throttled:3", "throttled:burst=x", "throttled:without=clock"} {
		if _, err := algorithms.New(bad, r); err == nil {
			t.Errorf("New(%q) accepted", bad)
		}
	}
	if _, err := algorithms.New("throttled", algorithms.Rule{L: 10, W: 9}); err == nil || !strings.Contains(err.Error(), "below one nanosecond") {
		t.Errorf("rule 10/9ns: err %v, want a period below one nanosecond refused", err)
	}
	if _, err := algorithms.New("nope", r); err == nil || !strings.Contains(err.Error(), "throttled[:burst=N]") {
		t.Errorf("unknown-algorithm error does not list throttled: %v", err)
	}
	// PerDuration(3, 1s): 333,333,333 ns (rate.go line 118).
	if p := mustNew(t, "throttled", "3/1s").(*products.Throttled).Period(); p != 333_333_333 {
		t.Errorf("period %d, want 333333333", p)
	}
	l := mustNew(t, "throttled", "10/1m")
	l.Grow(1)
	if l.Bytes(0) != 8 || !l.FixedSize() || l.CountsRejected() {
		t.Errorf("Bytes %d FixedSize %v CountsRejected %v, want 8 true false", l.Bytes(0), l.FixedSize(), l.CountsRejected())
	}
}

// With rate-truncation off, throttled decides as GCRA with B = MaxBurst+1.
func TestThrottledWithoutDeviationsIsTwin(t *testing.T) {
	rng := rand.New(rand.NewPCG(165, 166))
	for _, r := range propertyRules {
		trace := poissonish(rng, r, 20, 20000)
		for _, spec := range []string{"throttled", "throttled:burst=2"} {
			l, _ := algorithms.New(spec, r)
			sameDecisions(t, spec+":without=rate-truncation", l.(algorithms.Product).Twin(), r, trace, false)
		}
	}
}

// RateLimitCtx's arithmetic (rate.go lines 159, 215-224) for PerDuration(3,
// 1s), MaxBurst 2: period 333,333,333 ns, tolerance 999,999,999 ns. Three
// requests at t0 take the TAT to t0 + 999,999,999; a fourth has allowAt =
// t0 + 333,333,333 > now: refused. At t0 + 333,333,332 still refused, at
// t0 + 333,333,333 admitted (diff 0 is not < 0). Exact W/L puts the TAT at
// t0 + 1 s, and the admission at t0 + 333,333,333.33: 333,333,334.
func TestThrottledTimeline(t *testing.T) {
	t0 := int64(1_700_000_000) * sec
	steps := []step{{T: t0, Cost: 1, Admit: true}, {T: t0, Cost: 1, Admit: true}, {T: t0, Cost: 1, Admit: true}, {T: t0, Cost: 1, Admit: false},
		{T: t0 + 333_333_332, Cost: 1, Admit: false}, {T: t0 + 333_333_333, Cost: 1, Admit: true}, {T: t0 + 333_333_333, Cost: 1, Admit: false},
		{T: t0 + 2*333_333_333, Cost: 2, Admit: false}, {T: t0 + 3*333_333_333, Cost: 2, Admit: true}}
	play(t, mustNew(t, "throttled", "3/1s"), false, steps)
	exact := []step{{T: t0, Cost: 1, Admit: true}, {T: t0, Cost: 1, Admit: true}, {T: t0, Cost: 1, Admit: true}, {T: t0, Cost: 1, Admit: false},
		{T: t0 + 333_333_333, Cost: 1, Admit: false}, {T: t0 + 333_333_334, Cost: 1, Admit: true}}
	play(t, mustNew(t, "throttled:without=rate-truncation", "3/1s"), false, exact)
	// MaxBurst 0: one request at a time, the next one period later.
	play(t, mustNew(t, "throttled:burst=0", "3/1s"), false, []step{
		{T: t0, Cost: 1, Admit: true}, {T: t0, Cost: 1, Admit: false}, {T: t0 + 333_333_332, Cost: 1, Admit: false}, {T: t0 + 333_333_333, Cost: 1, Admit: true}, {T: t0 + 400_000_000, Cost: 2, Admit: false}})
}

// TestThrottledMatchesModule drives the real GCRARateLimiterCtx over its
// memory store, with the store's clock (SetTimeNow) at each request's time,
// beside the model, request by request: the decisions are identical.
func TestThrottledMatchesModule(t *testing.T) {
	rng := rand.New(rand.NewPCG(167, 168))
	ctx := context.Background()
	for _, c := range []struct{ rule, spec string }{
		{"3/1s", "throttled"},
		{"10/1m", "throttled"},
		{"7/1s", "throttled:burst=0"},
		{"100/1m", "throttled:burst=149"},
		{"1000000/24h", "throttled:burst=49999"},
	} {
		r, _ := algorithms.ParseRule(c.rule)
		for gen, trace := range map[string][]req{
			"poissonish": poissonish(rng, r, 8, 4000),
			"edge":       edgeTrace(rng, r, 8, 4000, 1_700_000_000*sec),
		} {
			model := mustNew(t, c.spec, c.rule).(*products.Throttled)
			model.Grow(8)
			st, err := memstore.New(0)
			if err != nil {
				t.Fatal(err)
			}
			var now time.Time
			st.SetTimeNow(func() time.Time { return now })
			lib, err := throttled.NewGCRARateLimiterCtx(throttled.WrapStoreWithContext(st), throttled.RateQuota{
				MaxRate: throttled.PerDuration(int(r.L), time.Duration(r.W)), MaxBurst: int(model.MaxBurst()),
			})
			if err != nil {
				t.Fatal(err)
			}
			admitted := 0
			for i, q := range trace {
				now = time.Unix(0, q.T)
				limited, _, err := lib.RateLimitCtx(ctx, gen+strconv.Itoa(q.Key), int(q.Cost))
				if err != nil {
					t.Fatal(err)
				}
				id := int32(q.Key)
				if got := model.Decide(id, q.T, q.Cost); got != !limited {
					t.Fatalf("%s %s %s: request %d %+v: model %v, module %v", c.spec, c.rule, gen, i, q, got, !limited)
				}
				if !limited {
					model.Record(id, q.T, q.Cost)
					admitted++
				}
			}
			if admitted == 0 || admitted == len(trace) {
				t.Fatalf("%s %s %s: admitted %d of %d", c.spec, c.rule, gen, admitted, len(trace))
			}
		}
	}
}

// Releasing a key when Idle says so changes no decision, and both products
// are in the Catalogue.
func TestGCRAProductsIdleRelease(t *testing.T) {
	rng := rand.New(rand.NewPCG(169, 170))
	for _, spec := range []string{"redis_rate", "redis_rate:without=float", "redis_rate:without=clock", "throttled", "throttled:burst=0"} {
		for _, r := range propertyRules[:3] {
			trace := poissonish(rng, r, 10, 5000)
			kept, rel := mustNewRule(t, spec, r), mustNewRule(t, spec, r)
			kept.Grow(10)
			rel.Grow(10)
			released := 0
			for i, q := range trace {
				id := int32(q.Key)
				if rl := rel.(algorithms.Releaser); rl.Idle(id, q.T) {
					rl.Release(id)
					released++
				}
				a, b := kept.Decide(id, q.T, q.Cost), rel.Decide(id, q.T, q.Cost)
				if a != b {
					t.Fatalf("%s %v: request %d %+v: %v kept, %v released", spec, r, i, q, a, b)
				}
				if a {
					kept.Record(id, q.T, q.Cost)
					rel.Record(id, q.T, q.Cost)
				}
			}
			if released == 0 {
				t.Errorf("%s %v: no key was ever idle", spec, r)
			}
		}
	}
	for _, name := range []string{"redis_rate", "throttled"} {
		found := false
		for _, c := range algorithms.Catalogue() {
			found = found || strings.HasPrefix(c.Spec, name+"[")
		}
		if !found {
			t.Errorf("%s is not in the Catalogue", name)
		}
	}
}
