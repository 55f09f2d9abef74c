package generators

import (
	"math"
	"strings"
	"testing"
	"time"
)

// Parameters that would exhaust the machine, spin forever, write nothing or
// silently fall back to a default are refused by New, before any source is
// built, with a message naming the parameter, its value and what works.
// Every case fails during validation: none allocates more than a few
// sources.
func TestNewRefusesExhaustingParameters(t *testing.T) {
	for _, c := range []struct {
		spec string
		p    Params
		want []string // in the error
	}{
		// Timestamps collapsing onto one ns: a chunk that never ends.
		{"poisson:rate=1e300,requests=100", Params{}, []string{"rate=1e300: must be a number above 0 and at most 1e9", "one per ns"}},
		{"poisson", Params{Rate: 5e14}, []string{"rate=5e+14: must be a number above 0 and at most 1e9"}},
		{"poisson:rate=NaN", Params{}, []string{"rate=NaN: must be a number above 0 and at most 1e9"}},
		{"poisson:rate=+Inf", Params{}, []string{"rate=+Inf: must be"}},
		{"poisson:rate=-1", Params{}, []string{"rate=-1: must be"}},
		{"poisson", Params{Rate: math.NaN()}, []string{"rate=NaN: must be"}},
		{"poisson", Params{Rate: -0.5}, []string{"rate=-0.5: must be"}},
		{"onoff:on=0.001,off=1e9", Params{Rate: 100}, []string{"onoff: rate 100 with on=0.001 and off=1e+09", "1e+14 requests per second, more than 1e9"}},
		{"zipf:s=5", Params{Keys: 1000, Rate: 2e6}, []string{"zipf: rate 2e+06 with s=5 over 1000 keys", "1.929e+09 requests per second, more than 1e9"}},
		{"diurnal:amplitude=1", Params{Rate: 6e8}, []string{"diurnal: rate 6e+08 with amplitude=1", "1.2e+09 requests per second"}},
		{"population:max=1000", Params{Rate: 1e7}, []string{"population: rate 1e+07 with max=1000", "1e+10 requests per second"}},
		// A cycle so short that its phase overflows: thinning never
		// accepts a candidate.
		{"diurnal:period=1e-300", Params{}, []string{"diurnal: period=1e-300: a cycle must last at least 0.001 s"}},
		{"retry:every=1e-9", Params{}, []string{"retry: every=1e-09: spikes must come at least 0.001 s"}},
		// Bursts queued a window edge (or a spike) at a time.
		{"boundary:burst=1000000000", Params{}, []string{"boundary: burst=1e+09: a burst of 1e+09 requests, more than the 100000 of the whole trace"}},
		{"early:burst=1000000000", Params{}, []string{"early: burst=1e+09: a burst of 1e+09 requests, more than the 100000"}},
		{"retry:burst=1000000000", Params{}, []string{"retry: burst=1e+09: a burst of 1e+09 requests, more than the 100000"}},
		{"retry:retries=1e18", Params{}, []string{"retry: retries=1e+18 re-sending each request: a burst of 1e+18 requests"}},
		{"boundary", Params{Rate: 5e5}, []string{"boundary: rate 500000 with window 30s (burst 0: rate*window/2", "7.5e+06 requests, more than the 100000"}},
		{"early", Params{Rate: 5e5}, []string{"early: rate 500000 with window 30s (burst 0: rate*window per window)", "1.5e+07 requests"}},
		{"boundary:burst=50000", Params{Keys: 1000, Requests: 1e8}, []string{"boundary: 2*burst = 100000 timestamps per key at each window edge, 1e+08 over 1000 keys",
			"more than the 67108864 timestamps"}},
		{"early:burst=100000", Params{Keys: 1000, Requests: 1e8}, []string{"early: burst = 100000 timestamps per key in each window"}},
		{"retry:every=1,burst=100,retries=30,base=1", Params{Keys: 1000, Requests: 1e8}, []string{"retry: burst*(1+retries) = 3100 attempts per key at each spike, pending over"}},
		{"mix:poisson=1,boundary=1,boundary.burst=1e6", Params{Keys: 200, Requests: 1e7}, []string{"boundary: 2*burst = 2e+06 timestamps per key"}},
		// Per-key state: keys that can send are bounded.
		{"poisson", Params{Keys: 1e9, Requests: 1e9}, []string{"keys=1000000000 with requests=1000000000: 1000000000 keys can send, more than the 10000000"}},
		{"poisson:keys=3e9", Params{}, []string{"keys=3e9: must be a whole number from 1 to 2147483647"}},
		{"poisson:keys=0", Params{}, []string{"keys=0: must be a whole number from 1 to 2147483647"}},
		{"poisson", Params{Keys: -5}, []string{"keys=-5: must be a whole number from 1"}},
		// Explicit zeros are not defaults.
		{"poisson:requests=0", Params{}, []string{"requests=0: must be a whole number, at least 1"}},
		{"poisson:requests=-3", Params{}, []string{"requests=-3: must be a whole number, at least 1"}},
		{"poisson:requests=2.5", Params{}, []string{"requests=2.5: not a whole number"}},
		{"poisson:rate=0", Params{}, []string{"rate=0: must be a number above 0"}},
		{"poisson:window=0s", Params{}, []string{"window=0s: must be above 0"}},
		{"poisson", Params{Window: -time.Second}, []string{"window=-1s: must be above 0"}},
		{"poisson:duration=-1s", Params{}, []string{"duration=-1s: must not be negative"}},
		{"poisson:seed=0", Params{}, []string{"seed=0: must be at least 1"}},
		{"poisson", Params{Requests: -1}, []string{"requests=-1: must be a whole number"}},
		// Too slow: the trace's requests would pass the end of int64 time.
		{"poisson", Params{Rate: 1e-300}, []string{"requests=100000 at about 1e-298 requests per second from all 100 keys", "past the end of int64 ns time",
			"give at least 1.33e-05 requests per second in all"}},
		{"onoff:on=1e308", Params{}, []string{"onoff: on=1e308: must be a number from 0.001 to 9e+09"}},
		// Mixes.
		{"mix:poisson=NaN", Params{}, []string{"mix: poisson=NaN: a weight must be a number above 0"}},
		{"mix:poisson=Inf", Params{}, []string{"mix: poisson=Inf: a weight must be"}},
		{"mix:poisson=-1", Params{}, []string{"mix: poisson=-1: a weight must be"}},
		{"mix:poisson=1e308,boundary=1e308", Params{}, []string{"mix: the weights add up past the largest number"}},
		{"mix:poisson=1,onoff=1,onoff.on=NaN", Params{}, []string{"onoff: on=NaN: must be a number from 0.001 to 9e+09"}},
		// Values the scenarios used to clamp or raise silently.
		{"pareto:alpha=0.5", Params{}, []string{"pareto: alpha=0.5: must be a number, at least 1.05"}},
		{"diurnal:amplitude=1.5", Params{}, []string{"diurnal: amplitude=1.5: must be a number from 0 to 1"}},
		{"early:head=-1", Params{}, []string{"early: head=-1: must be a number from 0 to 1"}},
		{"boundary:spread=0.6", Params{}, []string{"boundary: spread=0.6: must be a number from 0 to 0.5"}},
		{"boundary:burst=2.5", Params{}, []string{"boundary: burst=2.5: must be a whole number, at least 0"}},
		// A value that is no plain number is quoted, escapes and all.
		{"poisson:rate=1\x1b[2J", Params{}, []string{`rate="1\x1b[2J": invalid syntax`}},
		{"onoff:on=\x1b[2J", Params{}, []string{`on="\x1b[2J" is not a number`}},
		{"mix:poisson=\x1b[2J", Params{}, []string{`poisson="\x1b[2J": a weight`}},
	} {
		g, err := New(c.spec, c.p)
		if err == nil {
			t.Errorf("New(%q, %+v) accepted, %d sources", c.spec, c.p, len(g.srcs))
			continue
		}
		if strings.ContainsRune(err.Error(), 0x1b) {
			t.Errorf("New(%q): %q prints an escape byte raw", c.spec, err)
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("New(%q, %+v): %v\n  want it to say %q", c.spec, c.p, err, w)
			}
		}
	}
}

// Every parameter that gen -list documents is checked: NaN, the
// infinities, values either side of its range and, for a count, a
// fraction are refused with its name, the value and the range; the ends of
// its range are accepted. The same holds in a mix.
func TestEveryParameterIsChecked(t *testing.T) {
	for _, sc := range Scenarios() {
		for _, p := range sc.Params {
			if sc.load == nil {
				t.Fatalf("%s has no load", sc.Name)
			}
			bad := []string{"NaN", "+Inf", "-Inf"}
			if p.Min != -noMax {
				bad = append(bad, ftoa(p.Min-max(1, math.Abs(p.Min))))
			}
			if p.Max != noMax {
				bad = append(bad, ftoa(p.Max*2))
			}
			if p.Whole {
				bad = append(bad, "0.5")
			}
			for _, v := range bad {
				for _, spec := range []string{sc.Name + ":" + p.Name + "=" + v, "mix:poisson=1," + sc.Name + "=1," + sc.Name + "." + p.Name + "=" + v} {
					_, err := New(spec, Params{})
					if err == nil {
						t.Errorf("%s accepted", spec)
						continue
					}
					if want := p.Name + "=" + v + ": must be " + p.Range(); !strings.Contains(err.Error(), want) {
						t.Errorf("%s: %v\n  want it to say %q", spec, err, want)
					}
				}
			}
			for _, f := range []float64{p.Min, p.Max} {
				if math.Abs(f) == noMax {
					continue
				}
				if _, err := New(sc.Name+":"+p.Name+"="+ftoa(f), Params{}); err != nil {
					t.Errorf("%s=%s, an end of its range, is refused: %v", p.Name, ftoa(f), err)
				}
			}
		}
	}
}

// With more keys than requests only the sources that can send are kept,
// and the trace is the one every source would give (but for a lone
// Poisson scenario, whose sending sources are drawn another way:
// TestPoissonFirstsDistribution).
func TestOnlySendingKeysAreKept(t *testing.T) {
	specs := []string{"mix:poisson=0.5,retry=0.2,zipf=0.2,boundary=0.1"}
	for _, sc := range Scenarios() {
		specs = append(specs, sc.Name)
	}
	for _, spec := range specs {
		p := Params{Keys: 5000, Requests: 700, Rate: 0.05}
		lazy, err := New(spec, p)
		if err != nil {
			t.Fatal(err)
		}
		if len(lazy.srcs) > 700 {
			t.Errorf("%s: %d sources kept for 700 requests", spec, len(lazy.srcs))
		}
		if spec == "poisson" {
			continue
		}
		all, err := newGenerator(spec, p, false)
		if err != nil {
			t.Fatal(err)
		}
		if len(all.srcs) != 5000 || lazy.Keys() != 5000 {
			t.Fatalf("%s: %d sources, Keys %d", spec, len(all.srcs), lazy.Keys())
		}
		n := 0
		for all.Scan() {
			if !lazy.Scan() {
				t.Fatalf("%s: %d requests, want 700", spec, n)
			}
			a, b := all.Request(), lazy.Request()
			if a.T != b.T || string(a.Key) != string(b.Key) || all.KeyIndex() != lazy.KeyIndex() {
				t.Fatalf("%s: request %d is %d %s (%d), want %d %s (%d)", spec, n, b.T, b.Key, lazy.KeyIndex(), a.T, a.Key, all.KeyIndex())
			}
			n++
		}
		if lazy.Scan() || n != 700 {
			t.Errorf("%s: more requests than %d", spec, n)
		}
	}

	// A million keys for ten requests: ten sources.
	g, err := New("poisson", Params{Keys: 1 << 20, Requests: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(g.srcs) != 10 || cap(g.due) > 16 {
		t.Errorf("%d sources kept (due capacity %d) for 10 requests", len(g.srcs), cap(g.due))
	}
	n := 0
	for ; g.Scan(); n++ {
	}
	if n != 10 || cap(g.buf) > 1<<17 {
		t.Errorf("%d requests, chunk capacity %d", n, cap(g.buf))
	}
}

// The first chunk spans what the sources send on average, not what the
// rate alone would: retry's spikes, boundary's and early's bursts are most
// of the requests, and a chunk as long as the rate implies would hold
// hundreds of millions.
func TestFirstChunkFollowsTheScenarioRate(t *testing.T) {
	for _, c := range []struct {
		spec string
		p    Params
	}{
		{"retry:every=0.001,retries=1,base=1000,burst=1", Params{Keys: 1}},
		{"retry:every=1,retries=30,base=1", Params{}},
		{"boundary:burst=5000", Params{Keys: 100, Requests: 1e6}},
		{"early:burst=5000", Params{Keys: 100, Requests: 1e6}},
	} {
		g, err := New(c.spec, c.p)
		if err != nil {
			t.Fatal(err)
		}
		// Before anything is drawn: the span holds about a chunk's worth
		// at the scenario's mean rate.
		total, _ := plan(g.p, g.parts)
		if got := float64(g.span) * total / 1e9; got > 2*float64(chunkTarget(len(g.srcs))) {
			t.Fatalf("%s: the first chunk spans %v, %.3g requests on average", c.spec, time.Duration(g.span), got)
		}
		biggest := 0
		for i := 0; i < 200_000 && g.Scan(); i++ {
			biggest = max(biggest, cap(g.buf))
		}
		if biggest > 1<<22 {
			t.Errorf("%s: a chunk of %d requests", c.spec, biggest)
		}
	}
}

// CheckFlags takes every field as given: a zero is an error, not the
// default New would read it as.
func TestCheckFlags(t *testing.T) {
	ok := Params{}.Defaults()
	if err := CheckFlags(ok); err != nil {
		t.Fatalf("the defaults: %v", err)
	}
	for _, c := range []struct {
		edit func(*Params)
		want string
	}{
		{func(p *Params) { p.Requests = 0 }, "-requests 0: must be a whole number, at least 1"},
		{func(p *Params) { p.Keys = 0 }, "-keys 0: must be a whole number from 1 to 2147483647"},
		{func(p *Params) { p.Rate = 0 }, "-rate 0: must be a number above 0 and at most 1e9"},
		{func(p *Params) { p.Rate = math.NaN() }, "-rate NaN: must be"},
		{func(p *Params) { p.Rate = 5e14 }, "-rate 5e+14: must be"},
		{func(p *Params) { p.Window = 0 }, "-window 0s: must be above 0"},
		{func(p *Params) { p.Duration = -time.Second }, "-duration -1s: must not be negative"},
		{func(p *Params) { p.Seed = 0 }, "-seed 0: must be at least 1"},
	} {
		p := ok
		c.edit(&p)
		if err := CheckFlags(p); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", p, err, c.want)
		}
	}
}

// A duration past the end of int64 time is no limit (it used to overflow
// into a negative end: no requests at all).
func TestDurationPastTheEndOfTime(t *testing.T) {
	g, err := New("poisson", Params{Requests: 5, Duration: time.Duration(math.MaxInt64)})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for ; g.Scan(); n++ {
	}
	if n != 5 {
		t.Errorf("%d requests, want 5", n)
	}
}

// Near the end of int64 time the window edges stop instead of wrapping
// around to negative times.
func TestBoundaryStopsAtTheEndOfTime(t *testing.T) {
	start := int64(math.MaxInt64) - int64(100*time.Second) - 1
	g, err := New("boundary:spread=0.5", Params{Start: start, Rate: 10, Requests: 950, Keys: 1})
	if err != nil {
		t.Fatal(err)
	}
	last, n := start, 0
	for ; g.Scan(); n++ {
		if r := g.Request(); r.T < last {
			t.Fatalf("request %d at %d, before %d", n, r.T, last)
		} else {
			last = r.T
		}
	}
	if n != 600 { // two edges of 2x150; the third's burst after it would pass the end
		t.Errorf("%d requests, want 600", n)
	}
}
