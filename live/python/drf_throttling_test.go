package python

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"ratebench/algorithms"
	"ratebench/live"
)

func drfTarget(t *testing.T) live.Target { return target(t, "drf-throttling") } // names python3-djangorestframework when missing

// The acceptance check: DRF's AnonRateThrottle on LocMemCache, driven by
// the trace's clock, decides every request of the bursty 3-key trace
// under 5/1s as the model, for each check (the cache keeping every key,
// and a cache of 2 entries, which culls).
func TestDRFThrottlingAgreesOnBursty3Keys(t *testing.T) {
	tg := drfTarget(t)
	n := int64(len(live.Bursty3Keys().T))
	for v, res := range agreesOnBursty3Keys(t, tg, tg.Checks) {
		if v != "" && res.Log.Agree == n {
			t.Errorf("variant %q: the log agrees on every request: the culls changed no decision", v)
		}
	}
}

// TestDRFThrottlingMatchesModel drives DRF with traces of 4 keys,
// some requests exactly W (or within 300 ns of W) after earlier ones, on
// the epoch's scale and from 0, with costs (which DRF does not take), the
// cache keeping every key or 3 of them, beside the model: they agree on
// every request. The model with each deviation off disagrees with DRF
// somewhere: each is DRF's.
func TestDRFThrottlingMatchesModel(t *testing.T) {
	drfTarget(t)
	rng := rand.New(rand.NewPCG(34, 1))
	for _, v := range []string{"", "max-entries=3"} {
		spec := "drf-throttling"
		if v != "" {
			spec += ":" + v
		}
		shown := map[string]int{}
		for _, rule := range []string{"1/1s", "2/1s", "3/1s", "1/1m", "2/1h"} {
			r, err := algorithms.ParseRule(rule)
			if err != nil {
				t.Fatal(err)
			}
			for _, start := range []int64{epochStart, int64(time.Millisecond)} {
				trace := hitTrace(rng, r, 4, 600, 3, start)
				s, err := StartDRF(context.Background(), r, live.Options{Variant: v})
				if err != nil {
					t.Fatal(err)
				}
				real := liveHits(t, s, trace)
				s.Close()
				if got := modelDecisions(t, spec, r, trace); !slices.Equal(got, real) {
					i := slices.Index(differ(got, real), true)
					q := trace[i]
					t.Fatalf("%s %v, request %d (key %d at %d ns, cost %d): the model admits %v, DRF %v", spec, r, i+1, q.key, q.t, q.cost, got[i], real[i])
				}
				if slices.Index(real, true) < 0 || slices.Index(real, false) < 0 {
					t.Errorf("%s %v: DRF admits all or none of the trace", spec, r)
				}
				l, _ := algorithms.New(spec, r)
				for _, d := range l.(algorithms.Product).Deviations() {
					for _, differs := range differ(modelDecisions(t, spec+":without="+d.Name, r, trace), real) {
						shown[d.Name] += b2i(differs)
					}
				}
			}
		}
		l, _ := algorithms.New(spec, algorithms.Rule{L: 5, W: int64(time.Second)})
		for _, d := range l.(algorithms.Product).Deviations() {
			t.Logf("%s:without=%s disagrees with DRF on %d requests", spec, d.Name, shown[d.Name])
			if shown[d.Name] == 0 {
				t.Errorf("%s:without=%s decides every request as DRF: the traces do not show %s", spec, d.Name, d.Name)
			}
		}
	}
}

// DRF compares time.time()'s float64 seconds, and its cache expires a key
// by a float64 sum: two requests W apart (or W less 128 ns) under 1/1s,
// where the sum or the difference rounds across the exact boundary. DRF
// decides each pair as the model does, and as the model without the
// deviation named does not.
func TestDRFThrottlingFloatTimelines(t *testing.T) {
	drfTarget(t)
	r := algorithms.Rule{L: 1, W: int64(time.Second)}
	s, ms := int64(time.Second), int64(time.Millisecond)
	const e = int64(1_700_000_000_123_456_000)
	for _, c := range []struct {
		t0, t1 int64
		want   string // DRF's decisions
		dev    string // the deviation that decides it
	}{
		// 0.001 <= 1.001 - 1 = 0.00099999999999989 is false, the entry
		// stays; but the key expired, 0.001 + 1 <= 1.001: admitted
		{ms, s + ms, "AA", "expiry"},
		// 0.128 <= 1.128 - 1 is false and 0.128 + 1 > 1.128: refused
		// (exactly, the entry is W old: admitted)
		{128 * ms, s + 128*ms, "AR", "float"},
		// e and e + W - 128 ns round to doubles 1 s apart: popped
		// (exactly, the entry is 128 ns short of W old: refused)
		{e, e + s - 128, "AA", "float"},
	} {
		trace := []hitReq{{0, c.t0, 1}, {0, c.t1, 1}}
		sess, err := StartDRF(context.Background(), r, live.Options{})
		if err != nil {
			t.Fatal(err)
		}
		real := liveHits(t, sess, trace)
		sess.Close()
		got := ""
		for _, a := range real {
			got += map[bool]string{true: "A", false: "R"}[a]
		}
		if got != c.want {
			t.Errorf("at %d, %d ns: DRF decides %s, want %s", c.t0, c.t1, got, c.want)
		}
		if m := modelDecisions(t, "drf-throttling", r, trace); !slices.Equal(m, real) {
			t.Errorf("at %d, %d ns: the model decides %v, DRF %v", c.t0, c.t1, m, real)
		}
		if m := modelDecisions(t, "drf-throttling:without="+c.dev, r, trace); slices.Equal(m, real) {
			t.Errorf("drf-throttling:without=%s at %d, %d ns decides as DRF, %v", c.dev, c.t0, c.t1, m)
		}
	}
}

// Without the interpreter or the library the target fails, naming the
// Debian package to install; a window DRF cannot write, a cache size
// below 1 or a deviation turned off is refused before anything starts.
func TestDRFThrottlingRefuses(t *testing.T) {
	tg, ok := live.Lookup("drf-throttling")
	if !ok {
		t.Fatal("drf-throttling is not registered")
	}
	if !tg.Driven || tg.Costs || tg.Variants[0] != "" {
		t.Errorf("driven %v, costs %v, variants %q: want a driven target without costs whose default variant is \"\"", tg.Driven, tg.Costs, tg.Variants)
	}
	for _, bin := range []string{"/nonexistent/python3", "/bin/true"} {
		if _, err := tg.Version(context.Background(), live.Options{Binary: bin}); err == nil || !strings.Contains(err.Error(), "apt-get install -y python3-djangorestframework") {
			t.Errorf("with %s: %v, want an error naming python3-djangorestframework", bin, err)
		}
	}
	if _, err := StartDRF(context.Background(), algorithms.Rule{L: 5, W: int64(time.Second)}, live.Options{Binary: "/nonexistent/python3"}); err == nil || !strings.Contains(err.Error(), "python3-djangorestframework") {
		t.Errorf("starting /nonexistent/python3: %v, want an error naming python3-djangorestframework", err)
	}
	for _, c := range []struct{ variant, rule string }{
		{"", "5/2s"}, {"max-entries=0", "5/1s"}, {"without=float", "5/1s"}, {"cache=redis", "5/1s"},
	} {
		r, _ := algorithms.ParseRule(c.rule)
		if s, err := StartDRF(context.Background(), r, live.Options{Variant: c.variant}); err == nil {
			s.Close()
			t.Errorf("variant %q, rule %s: started", c.variant, c.rule)
		}
		if _, err := tg.Model(r, live.Options{Variant: c.variant}); err == nil {
			t.Errorf("variant %q, rule %s: a model", c.variant, c.rule)
		}
	}
	for v, want := range map[string]string{"": "drf-throttling", "max-entries": "drf-throttling:max-entries", "max-entries=2": "drf-throttling:max-entries=2"} {
		if got, err := tg.Model(algorithms.Rule{L: 5, W: int64(time.Second)}, live.Options{Variant: v}); err != nil || got != want {
			t.Errorf("variant %q: model %q, %v; want %s", v, got, err, want)
		}
	}
}
