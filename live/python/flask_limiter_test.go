package python

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"ratebench/algorithms"
	"ratebench/live"
)

func flaskTarget(t *testing.T) live.Target { return target(t, "flask-limiter") } // names python3-limits when missing

// The acceptance check: the real limits library, driven by the trace's
// clock, decides every request of the bursty 3-key trace under 5/1s as
// the model, for each variant (the fixed window and the moving window in
// memory, the moving window in a real redis-server).
func TestFlaskLimiterAgreesOnBursty3Keys(t *testing.T) {
	tg := flaskTarget(t)
	agreesOnBursty3Keys(t, tg, tg.Variants)
}

// flaskRules and the traces below exercise the limit with costs, on the
// epoch's scale (where time.time()'s float64 has a quarter microsecond's
// resolution) and at whole seconds.
var flaskRules = []string{"5/1s", "3/2s", "10/1m", "4/1s"}

// TestFlaskLimiterMatchesModelWithCosts drives the driver with requests of
// random costs (up to L; beyond L too on Redis, whose list the model
// follows) at times on the epoch's scale, on a millisecond grid, at exactly
// W or within a few hundred ns of W after earlier ones, for each variant,
// beside the model: they agree on every request. The model with each
// deviation off disagrees with the software somewhere: each is the
// software's.
func TestFlaskLimiterMatchesModelWithCosts(t *testing.T) {
	flaskTarget(t)
	rng := rand.New(rand.NewPCG(40, 2))
	for _, v := range flaskVariants {
		spec := "flask-limiter"
		if v != "" {
			spec += ":" + v
		}
		shown := map[string]int{}
		for _, rule := range flaskRules {
			r, err := algorithms.ParseRule(rule)
			if err != nil {
				t.Fatal(err)
			}
			redis := v == "strategy=moving:storage=redis"
			maxCost := r.L
			if redis {
				maxCost = r.L + 2
			}
			trace := hitTrace(rng, r, 4, 600, maxCost, epochStart)
			real := liveFlask(t, v, r, trace, redis)
			if got := modelDecisions(t, spec, r, trace); !slices.Equal(got, real) {
				i := slices.Index(differ(got, real), true)
				q := trace[i]
				t.Fatalf("%s %v, request %d (key %d at %d ns, cost %d): the model admits %v, limits %v", spec, r, i+1, q.key, q.t, q.cost, got[i], real[i])
			}
			admitted := slices.Index(real, true) >= 0 && slices.Index(real, false) >= 0
			if !admitted {
				t.Errorf("%s %v: limits admits all or none of the trace", spec, r)
			}
			l, _ := algorithms.New(spec, r)
			for _, d := range l.(algorithms.Product).Deviations() {
				off := modelDecisions(t, spec+":without="+d.Name, r, trace)
				for _, differs := range differ(off, real) {
					shown[d.Name] += b2i(differs)
				}
			}
		}
		l, _ := algorithms.New(spec, algorithms.Rule{L: 5, W: int64(time.Second)})
		for _, d := range l.(algorithms.Product).Deviations() {
			t.Logf("%s:without=%s disagrees with limits on %d requests", spec, d.Name, shown[d.Name])
			// float shows within a rounding of W, found on fixed timelines
			// (TestFlaskLimiterFloatTimelines); over-cost is Redis's
			if shown[d.Name] == 0 && d.Name != "float" && !(d.Name == "over-cost" && v == "strategy=moving") {
				t.Errorf("%s:without=%s decides every request as limits: the traces do not show %s", spec, d.Name, d.Name)
			}
		}
	}
}

// liveFlask replays trace through the driver. On Redis it clears a key
// where Redis, its clock the trace's, would have expired it (once its
// millisecond clock is past the last push + W): the replay runs far
// faster than the trace.
func liveFlask(t *testing.T, variant string, r algorithms.Rule, trace []hitReq, redis bool) []bool {
	t.Helper()
	ctx := context.Background()
	s, err := StartFlask(ctx, r, live.Options{Variant: variant})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ms := int64(time.Millisecond)
	last := map[int32]int64{}
	out := make([]bool, len(trace))
	for i, q := range trace {
		key := fmt.Sprintf("k%d", q.key)
		if at, ok := last[q.key]; redis && ok && q.t/ms > at/ms+r.W/ms {
			if err := s.Clear(ctx, key); err != nil {
				t.Fatal(err)
			}
			delete(last, q.key)
		}
		if out[i], err = s.Hit(ctx, key, q.t, q.cost); err != nil {
			t.Fatal(err)
		}
		if out[i] && q.cost > 0 {
			last[q.key] = q.t
		}
	}
	return out
}

// limits compares time.time()'s float64 seconds: two requests W apart (or
// W and a few ns), under 1/1s, where the float sum or difference rounds
// across the exact boundary. Near the epoch's 1.7e9 s a double has a
// quarter microsecond's resolution; near 0 (the check trace's scale) 0.002
// and 1.002 - 1 differ in their last bits. limits decides each pair as the
// model does, and as the model without float does not.
func TestFlaskLimiterFloatTimelines(t *testing.T) {
	flaskTarget(t)
	r := algorithms.Rule{L: 1, W: int64(time.Second)}
	const e = int64(1_700_000_000_123_456_000)
	for _, c := range []struct {
		variant string
		t0, t1  int64
		want    string // limits' decisions
	}{
		// moving: the entry at e and time.time() at e + W + 1 ns round to
		// the same doubles W apart: entry >= now - W, refused (exactly, the
		// entry is 1 ns out of the window)
		{"strategy=moving", e, e + int64(time.Second) + 1, "AR"},
		{"strategy=moving:storage=redis", e, e + int64(time.Second) + 1, "AR"},
		// 0.002 >= 1.002 - 1 = 0.0020000000000000018 is false: admitted
		// (exactly, the entry is W old and counts)
		{"strategy=moving", 2_000_000, 1_002_000_000, "AA"},
		{"strategy=moving:storage=redis", 2_000_000, 1_002_000_000, "AA"},
		// fixed: 128 ns before first hit + W, time.time() rounds up to the
		// float expiry time.time() + W: a new window (exactly, the old one)
		{"", e, e + int64(time.Second) - 128, "AA"},
		// 0.128 + 1 = 1.1280000000000001 > 1.128: the old window still
		// (exactly, it has ended)
		{"", 128_000_000, 1_128_000_000, "AR"},
	} {
		spec := "flask-limiter"
		if c.variant != "" {
			spec += ":" + c.variant
		}
		trace := []hitReq{{0, c.t0, 1}, {0, c.t1, 1}}
		real := liveFlask(t, c.variant, r, trace, false)
		got := ""
		for _, a := range real {
			got += map[bool]string{true: "A", false: "R"}[a]
		}
		if got != c.want {
			t.Errorf("%s at %d, %d ns: limits decides %s, want %s", spec, c.t0, c.t1, got, c.want)
		}
		if m := modelDecisions(t, spec, r, trace); !slices.Equal(m, real) {
			t.Errorf("%s at %d, %d ns: the model decides %v, limits %v", spec, c.t0, c.t1, m, real)
		}
		if m := modelDecisions(t, spec+":without=float", r, trace); slices.Equal(m, real) {
			t.Errorf("%s:without=float at %d, %d ns decides as limits, %v", spec, c.t0, c.t1, m)
		}
	}
}

// Without the interpreter or the library the target fails, naming the
// Debian package to install; a variant it does not drive, or a window that
// is not whole seconds, is refused before anything starts.
func TestFlaskLimiterRefuses(t *testing.T) {
	tg, ok := live.Lookup("flask-limiter")
	if !ok {
		t.Fatal("flask-limiter is not registered")
	}
	if !tg.Driven || tg.Variants[0] != "" {
		t.Errorf("driven %v, variants %q: want a driven target whose default variant is \"\"", tg.Driven, tg.Variants)
	}
	for _, bin := range []string{"/nonexistent/python3", "/bin/true"} {
		if _, err := tg.Version(context.Background(), live.Options{Binary: bin}); err == nil || !strings.Contains(err.Error(), "apt-get install -y python3-limits") {
			t.Errorf("with %s: %v, want an error naming python3-limits", bin, err)
		}
	}
	ctx := context.Background()
	for _, c := range []struct{ variant, rule string }{
		{"strategy=fixed:storage=redis", "5/1s"}, {"storage=redis", "5/1s"}, {"", "5/1500ms"},
	} {
		r, _ := algorithms.ParseRule(c.rule)
		if s, err := StartFlask(ctx, r, live.Options{Variant: c.variant}); err == nil {
			s.Close()
			t.Errorf("variant %q, rule %s: started", c.variant, c.rule)
		}
		if _, err := tg.Model(r, live.Options{Variant: c.variant}); err == nil && c.variant != "" {
			t.Errorf("variant %q: a model", c.variant)
		}
	}
}
