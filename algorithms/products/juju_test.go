package products_test

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/juju/ratelimit"

	"ratebench/algorithms"
	"ratebench/algorithms/products"
)

// The bucket's arithmetic (ratelimit.go at v1.0.2) for 3/1m, mapped to
// capacity 3, quantum 1, fillInterval 20 s: created full at the key's first
// request (lines 143-165); tick = (now-start)/fillInterval (305-307); each
// tick adds quantum tokens up to capacity (312-323); admitted iff the
// tokens cover the count (282-286).
func TestJujuTimeline(t *testing.T) {
	j := mustNew(t, "juju", "3/1m")
	p := j.(algorithms.Product)
	if cp, q, fi := j.(*products.Juju).Params(); cp != 3 || q != 1 || fi != 20*sec || p.Twin() != "token" || j.Name() != "juju" {
		t.Fatalf("juju 3/1m: capacity %d quantum %d interval %d twin %q name %s", cp, q, fi, p.Twin(), j.Name())
	}
	play(t, j, false, []step{
		{T: 5 * sec, Cost: 1, Admit: true},         // created at 5 s, ticks at 25, 45, 65 s: 3 -> 2
		{T: 44*sec + 900*ms, Cost: 3, Admit: true}, // tick 1: 3 (capped) -> 0
		{T: 45 * sec, Cost: 1, Admit: true},        // tick 2: 1 -> 0 (a token bucket has 0.005 of a token)
		{T: 45 * sec, Cost: 1, Admit: false},
		{T: 65 * sec, Cost: 1, Admit: true},   // tick 3: 1 -> 0
		{T: 125 * sec, Cost: 2, Admit: true},  // tick 6: 3 (capped) -> 1
		{T: 125 * sec, Cost: 1, Admit: true},  // 0
		{T: 125 * sec, Cost: 1, Admit: false}, // refused: nothing taken
		{T: 145 * sec, Cost: 1, Admit: true},
	})
	// whole-interval off: continuous refill, as token:B=3.
	cont := []step{{T: 5 * sec, Cost: 1, Admit: true}, {T: 44*sec + 900*ms, Cost: 3, Admit: true}, {T: 45 * sec, Cost: 1, Admit: false}}
	play(t, mustNew(t, "juju:without=whole-interval", "3/1m"), false, cont)
	play(t, mustNew(t, "token:B=3", "3/1m"), false, cont)
	// anchor off: ticks at 0, 20, 40, 60 s.
	play(t, mustNew(t, "juju:without=anchor", "3/1m"), false, []step{
		{T: 5 * sec, Cost: 1, Admit: true}, {T: 44*sec + 900*ms, Cost: 3, Admit: true}, {T: 45 * sec, Cost: 1, Admit: false}, {T: 60 * sec, Cost: 1, Admit: true},
	})
}

func TestJujuMapping(t *testing.T) {
	for _, c := range []struct {
		rule, spec, name, twin  string
		capacity, quantum, fill int64
	}{
		{"10/1m", "juju", "juju", "token", 10, 1, 6 * sec},
		{"3/1s", "juju", "juju", "token", 3, 3, sec},               // W/L is not whole ns: 3 every second
		{"7/1000000003ns", "juju", "juju", "token", 7, 7, sec + 3}, // gcd 1
		{"100/1ms", "juju", "juju", "token", 100, 1, 10 * us},      // W/L whole
		{"6/1s", "juju", "juju", "token", 6, 3, 500 * ms},          // gcd 2e8... 6/gcd(1e9, 6) = 3
		{"10/1m", "juju:capacity=4", "juju:capacity=4:quantum=1:interval=6s", "token:B=4", 4, 1, 6 * sec},
		{"10/1m", "juju:quantum=2:interval=10s", "juju:capacity=10:quantum=2:interval=10s", "", 10, 2, 10 * sec},
		{"10/1m", "juju:rate", "juju:rate", "token", 10, 1, 6 * sec}, // 1e9*1/(10/60.0) = 6e9: exact
		{"3/1s", "juju:rate", "juju:rate", "", 3, 1, 333333333},      // rate 3.000000003
		{"1000/1ms", "juju:rate", "juju:rate", "token", 1000, 1, us},
	} {
		r, _ := algorithms.ParseRule(c.rule)
		l, err := algorithms.New(c.spec, r)
		if err != nil {
			t.Errorf("%s %s: %v", c.spec, c.rule, err)
			continue
		}
		j := l.(*products.Juju)
		cp, q, fi := j.Params()
		if l.Name() != c.name || j.Twin() != c.twin || cp != c.capacity || q != c.quantum || fi != c.fill {
			t.Errorf("%s %s: %s twin %q capacity %d quantum %d interval %d, want %s %q %d %d %d", c.spec, c.rule, l.Name(), j.Twin(), cp, q, fi, c.name, c.twin, c.capacity, c.quantum, c.fill)
		}
		if back, err := algorithms.New(l.Name(), r); err != nil || back.Name() != l.Name() {
			t.Errorf("%s does not round-trip: %v %v", l.Name(), back, err)
		}
	}
	r, _ := algorithms.ParseRule("10/1m")
	for spec, want := range map[string]string{
		"juju:quantum=2":                  "quantum and interval together",
		"juju:rate:quantum=1:interval=1s": "give either",
		"juju:capacity=0":                 "want juju[:rate]",
		"juju:interval=-1s:quantum=1":     "want juju[:rate]",
		"juju:burst=3":                    "want juju[:rate]",
	} {
		if _, err := algorithms.New(spec, r); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", spec, err, want)
		}
	}
}

// traceClock is a ratelimit.Clock reading the trace's time.
type traceClock struct{ now int64 }

func (c *traceClock) Now() time.Time      { return time.Unix(0, c.now) }
func (c *traceClock) Sleep(time.Duration) {}

// TestJujuMatchesModule drives the module's buckets (one per key, created
// at its first request, NewBucketWithQuantumAndClock or, for juju:rate,
// NewBucketWithRateAndClock) with the trace's clock, admitting iff
// TakeMaxDuration(cost, 0) reports true, beside the model.
func TestJujuMatchesModule(t *testing.T) {
	if got := unsafe.Sizeof(ratelimit.Bucket{}); got != 88 {
		t.Errorf("a Bucket is %d bytes, Bytes says 88", got)
	}
	rng := rand.New(rand.NewPCG(16, 5))
	for _, r := range append(ululeRules, algorithms.Rule{L: 6, W: sec}, algorithms.Rule{L: 1000, W: ms}) {
		for _, spec := range []string{"juju", "juju:rate", "juju:capacity=3:quantum=2:interval=700ms"} {
			l, err := algorithms.New(spec, r)
			if err != nil {
				t.Fatal(err)
			}
			j := l.(*products.Juju)
			cp, q, fi := j.Params()
			j.Grow(8)
			clk := &traceClock{}
			buckets := make([]*ratelimit.Bucket, 8)
			admitted := 0
			trace := poissonish(rng, algorithms.Rule{L: 2 * r.L, W: r.W}, 3, 3000) // twice the rate
			for n, req := range trace {
				clk.now = req.T
				if buckets[req.Key] == nil {
					if spec == "juju:rate" {
						buckets[req.Key] = ratelimit.NewBucketWithRateAndClock(float64(r.L)/(float64(r.W)/1e9), cp, clk)
						if got, want := buckets[req.Key].Rate(), 1e9*float64(q)/float64(fi); got != want {
							t.Fatalf("%s %v: the module's rate %g, the model's %g", spec, r, got, want)
						}
					} else {
						buckets[req.Key] = ratelimit.NewBucketWithQuantumAndClock(time.Duration(fi), cp, q, clk)
					}
				}
				_, want := buckets[req.Key].TakeMaxDuration(req.Cost, 0)
				got := j.Decide(int32(req.Key), req.T, req.Cost)
				if got != want {
					t.Fatalf("%s %v request %d %+v: model admits %v, the module %v", spec, r, n, req, got, want)
				}
				if got {
					j.Record(int32(req.Key), req.T, req.Cost)
					admitted++
				}
			}
			if admitted == 0 || admitted == len(trace) {
				t.Errorf("%s %v: admitted %d of %d", spec, r, admitted, len(trace))
			}
		}
	}
}

func TestJujuDecidesAsTokenWithoutDeviations(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 6))
	for _, r := range propertyRules[:3] {
		trace := poissonish(rng, r, 8, 3000)
		j, err := algorithms.New("juju", r)
		if err != nil {
			t.Fatal(err)
		}
		sameDecisions(t, "juju:without=anchor:without=whole-interval", j.(algorithms.Product).Twin(), r, trace, false)
	}
}
