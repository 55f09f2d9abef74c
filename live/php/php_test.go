package php

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"ratebench/live/driver"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"ratebench/algorithms"
	"ratebench/live"
)

var (
	versionMu sync.Mutex
	versions  = map[string]error{}
)

// need fails the test, naming the packages to install, when php or the
// target's library is missing (asked once per target), and returns the
// target.
func need(t *testing.T, name string) live.Target {
	t.Helper()
	tg, ok := live.Lookup(name)
	if !ok {
		t.Fatalf("%s is not registered as a live target", name)
	}
	versionMu.Lock()
	err, asked := versions[name]
	if !asked {
		var v string
		v, err = tg.Version(context.Background(), live.Options{})
		versions[name] = err
		t.Logf("%s: %s", name, v)
	}
	versionMu.Unlock()
	if err != nil {
		t.Fatalf("%s's live check needs %s: %v", name, tg.Requires, err)
	}
	return tg
}

// checkTrace replays tr through target's variant v under rule r with
// live.Run, and fails unless the model agrees on every request and the
// software both admits and refuses.
func checkTrace(t *testing.T, tg live.Target, v string, rule string, tr *live.Trace) {
	t.Helper()
	r, err := algorithms.ParseRule(rule)
	if err != nil {
		t.Fatal(err)
	}
	res, err := live.Run(context.Background(), tg, r, tr, live.Options{Variant: v})
	if err != nil {
		t.Fatalf("%s %q: %v", tg.Name, v, err)
	}
	n := int64(len(tr.T))
	t.Logf("%s %q (%s): %d admitted, %d refused; the model %s agrees on %d of %d, the exact log on %d",
		tg.Name, v, res.Software, res.Admitted, res.Refused, res.ModelSpec, res.Model.Agree, n, res.Log.Agree)
	if res.Model.Agree != n || res.Model.Disagree() != 0 || len(res.Differences) != 0 {
		t.Errorf("%s %q: the model agrees on %d of %d requests: %+v", tg.Name, v, res.Model.Agree, n, res.Differences)
	}
	if res.Refused == 0 || res.Admitted == 0 {
		t.Errorf("%s %q: admitted %d, refused %d: the trace must cross the limit", tg.Name, v, res.Admitted, res.Refused)
	}
	if res.Clock != "driven" {
		t.Errorf("%s %q: clock %q, want driven", tg.Name, v, res.Clock)
	}
}

// The acceptance check: the real RateLimiter, each policy, replaying the
// bursty 3-key trace under 5/1s with microtime driven by the trace,
// decides every request as the model; and with costs (consume(cost)).
func TestSymfonyCheckTrace(t *testing.T) {
	tg := need(t, "symfony")
	for _, v := range tg.Variants {
		checkTrace(t, tg, v, live.CheckRule, live.Bursty3Keys())
		checkTrace(t, tg, v, live.CheckRule, live.Bursty3KeysWithCosts())
	}
}

// The acceptance check: the real throttle middleware replaying the bursty
// 3-key trace under 5/1s with Carbon's now driven by the trace decides
// every request as the model. Sent the requests of the trace with costs,
// one each (the middleware takes none), it decides as the model charging
// one hit per request.
func TestLaravelCheckTrace(t *testing.T) {
	tg := need(t, "laravel")
	checkTrace(t, tg, "", live.CheckRule, live.Bursty3Keys())
	checkTrace(t, tg, "", live.CheckRule, live.Bursty3KeysWithCosts())
}

// trace returns n requests over keys from start, each key near its rate,
// with requests at the same instant, exactly W after an earlier one (a
// window's end instant), within a microsecond of that, on whole seconds
// and after pauses of whole windows; a third of the time off whole
// microseconds; costs up to L+1 when costs.
func trace(rng *rand.Rand, r algorithms.Rule, keys, n int, start int64, costs bool) *live.Trace {
	tr := &live.Trace{Keys: keys}
	t := start
	mean := max(r.W/r.L/int64(keys)*2/3, 1) // each key half again its rate
	for i := range n {
		switch rng.IntN(32) {
		case 0, 1, 2, 3: // same instant
		case 4: // to the next whole second
			t += int64(time.Second) - t%int64(time.Second)
		case 5: // a pause of a window or two
			t += r.W * int64(1+rng.IntN(2))
		case 6, 7, 8, 9, 10: // W after a recent request, or within a microsecond of it
			if i > 0 {
				at := tr.T[i-1-rng.IntN(min(i, int(r.L)*keys))] + r.W
				if rng.IntN(2) == 0 {
					at += rng.Int64N(2001) - 1000
				}
				t = max(t, at)
			}
		default:
			t += rng.Int64N(2 * mean)
			if rng.IntN(3) != 0 {
				t -= t % 1000
			}
		}
		tr.T = append(tr.T, t)
		k := int32(rng.IntN(keys))
		if i < keys {
			k = int32(i) // keys appear in order, as live.Load numbers them
		}
		tr.Key = append(tr.Key, k)
		if costs {
			c := int64(1)
			if rng.IntN(4) == 0 {
				c = 1 + rng.Int64N(r.L+1)
			}
			tr.Cost = append(tr.Cost, c)
		}
	}
	return tr
}

// replay sends tr's requests to a session started for rule r.
func replay(t *testing.T, start func(context.Context, algorithms.Rule, *live.Trace, live.Options) (live.Session, error), o live.Options, r algorithms.Rule, tr *live.Trace) []bool {
	t.Helper()
	s, err := start(context.Background(), r, tr, o)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	out := make([]bool, len(tr.T))
	for i, id := range tr.Key {
		d, err := s.Decide(context.Background(), live.Request{Index: i, Key: live.KeyName(id), ID: id, T: tr.T[i], Cost: tr.CostOf(i)})
		if err != nil {
			t.Fatalf("%v, request %d: %v", r, i+1, err)
		}
		if d.At != tr.T[i] {
			t.Errorf("%v, request %d: decided at %d, not the request's %d", r, i+1, d.At, tr.T[i])
		}
		out[i] = d.Admit
	}
	if err := s.Close(); err != nil {
		t.Errorf("%v: Close: %v", r, err)
	}
	return out
}

// agree fails at the first request spec decides otherwise than real, and
// unless real both admits and refuses; it returns how many requests each
// of spec's deviations, turned off alone, decides otherwise.
func agree(t *testing.T, spec string, r algorithms.Rule, tr *live.Trace, real []bool, shown map[string]int) {
	t.Helper()
	model, err := live.Decide(spec, r, tr, tr.T)
	if err != nil {
		t.Fatal(err)
	}
	admitted := 0
	for i := range real {
		if real[i] != model[i] {
			t.Fatalf("%s %v, request %d (key %d at %d ns, cost %d): the software admits %v, the model %v", spec, r, i+1, tr.Key[i], tr.T[i], tr.CostOf(i), real[i], model[i])
		}
		if real[i] {
			admitted++
		}
	}
	if admitted == 0 || admitted == len(real) {
		t.Fatalf("%s %v: %d of %d admitted: the trace does not exercise the limit", spec, r, admitted, len(real))
	}
	l, _ := algorithms.New(spec, r)
	for _, d := range l.(algorithms.Product).Deviations() {
		off, err := live.Decide(spec+":without="+d.Name, r, tr, tr.T)
		if err != nil {
			t.Fatal(err)
		}
		for i := range off {
			if off[i] != real[i] {
				shown[d.Name]++
			}
		}
	}
}

// Under other rules, on traces with costs (up to one above the limit) at
// the epoch's start (where microtime's float64 seconds are finest) and in
// 2023, with requests at windows' end instants and off whole microseconds,
// the real RateLimiter decides every request as the model, each policy.
// The model with each deviation off disagrees with the software
// somewhere: each is the software's.
func TestSymfonyMatchesModelOnOtherRules(t *testing.T) {
	tg := need(t, "symfony")
	rng := rand.New(rand.NewPCG(35, 61))
	for _, v := range tg.Variants {
		spec, _ := SymfonyModel(algorithms.Rule{}, live.Options{Variant: v})
		shown := map[string]int{}
		for _, rule := range []string{"3/1s", "4/2s", "10/1m", "7/3s", "100/1m"} {
			r, err := algorithms.ParseRule(rule)
			if err != nil {
				t.Fatal(err)
			}
			for _, start := range []int64{123_456_789, 1_700_000_000_123_456_789} {
				tr := trace(rng, r, 3, 700, start, true)
				agree(t, spec, r, tr, replay(t, StartSymfony, live.Options{Variant: v}, r, tr), shown)
			}
		}
		t.Logf("%s: each deviation off disagrees with the software on %v requests", spec, shown)
		l, _ := algorithms.New(spec, algorithms.Rule{L: 5, W: int64(time.Second)})
		for _, d := range l.(algorithms.Product).Deviations() {
			// clock, float and counts-refused show at sub-microsecond or
			// float64 edges, or with a cost refused at a window's end
			// instant: TestSymfonyDeviationTimelines holds them
			if shown[d.Name] == 0 && d.Name != "clock" && d.Name != "float" && d.Name != "counts-refused" {
				t.Errorf("%s:without=%s decides every request as the software: the traces do not show %s", spec, d.Name, d.Name)
			}
		}
	}
}

// The deviations that show only at sub-microsecond or float64 edges, or
// with a cost refused at a window's end instant, on timelines worked out
// from the source: the software decides each as the model, and otherwise
// than the model with that deviation off.
func TestSymfonyDeviationTimelines(t *testing.T) {
	need(t, "symfony")
	const ns, ms, s = int64(1), int64(time.Millisecond), int64(time.Second)
	for _, c := range []struct {
		variant, rule, dev string
		reqs               [][2]int64 // time, cost
		want, off          string
	}{
		// the window [0, 1] is full at its end instant: a request of cost
		// 2 there is refused and added, so one of cost 1 is refused too.
		{"", "3/1s", "counts-refused", [][2]int64{{0, 1}, {500 * ms, 1}, {s, 2}, {s, 1}}, "AARR", "AARA"},
		// 1 s + 500 ns is the end instant of the window begun at 0 on
		// microtime, past it in ns.
		{"", "2/1s", "clock", [][2]int64{{0, 1}, {500 * ms, 1}, {s + 500*ns, 1}}, "AAR", "AAA"},
		// 2.003 - 1.003 is 1.0000000000000002 in float64: past the window's
		// end.
		{"", "2/1s", "float", [][2]int64{{1003 * ms, 1}, {1500 * ms, 1}, {2003 * ms, 1}}, "AAA", "AAR"},
		// the previous window's 3 weigh 3*(1-0.333333) = 2.000001 on whole
		// microseconds, floored to 2, but 1.9999998 in ns, floored to 1.
		{"policy=sliding_window", "3/1s", "clock", [][2]int64{{0, 1}, {0, 1}, {0, 1}, {1_333_333_400 * ns, 2}}, "AAAR", "AAAA"},
		// the bucket's timer is 0 µs, not 500 ns: a whole interval at
		// 1 s + 200 ns.
		{"policy=token_bucket", "2/2s", "clock", [][2]int64{{500 * ns, 2}, {s + 200*ns, 1}}, "AA", "AR"},
		// 1.001 - 0.001 is 0.9999999999999999 in float64: no whole
		// interval yet.
		{"policy=token_bucket", "2/2s", "float", [][2]int64{{ms, 2}, {1001 * ms, 1}}, "AR", "AA"},
	} {
		r, err := algorithms.ParseRule(c.rule)
		if err != nil {
			t.Fatal(err)
		}
		tr := &live.Trace{Keys: 1, Key: make([]int32, len(c.reqs))}
		for _, q := range c.reqs {
			tr.T, tr.Cost = append(tr.T, q[0]), append(tr.Cost, q[1])
		}
		spec, _ := SymfonyModel(r, live.Options{Variant: c.variant})
		real := timeline(replay(t, StartSymfony, live.Options{Variant: c.variant}, r, tr))
		model, _ := live.Decide(spec, r, tr, tr.T)
		off, _ := live.Decide(spec+":without="+c.dev, r, tr, tr.T)
		if real != c.want || timeline(model) != c.want || timeline(off) != c.off {
			t.Errorf("%s %s, %s: the software decides %s, the model %s, without %s %s; want %s, and %s without", spec, c.rule, c.dev, real, timeline(model), c.dev, timeline(off), c.want, c.off)
		}
	}
}

// timeline writes decisions as A (admitted) and R (refused).
func timeline(d []bool) string {
	var b strings.Builder
	for _, a := range d {
		b.WriteByte("RA"[b2i(a)])
	}
	return b.String()
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Under other rules, whole minutes and fractions of one (throttle:3,0.5
// for 3/30s), the real middleware decides every request as the model,
// counting one hit per request whatever its cost; the model with each
// deviation off disagrees with it somewhere.
func TestLaravelMatchesModelOnOtherRules(t *testing.T) {
	need(t, "laravel")
	rng := rand.New(rand.NewPCG(36, 61))
	shown := map[string]int{}
	for _, rule := range []string{"3/1s", "4/2s", "10/1m", "3/30s", "6/2m"} {
		r, err := algorithms.ParseRule(rule)
		if err != nil {
			t.Fatal(err)
		}
		for _, start := range []int64{123_456_789, 1_700_000_000_123_456_789} {
			tr := trace(rng, r, 3, 700, start, true)
			agree(t, "laravel", r, tr, replay(t, StartLaravel, live.Options{}, r, tr), shown)
		}
	}
	t.Logf("laravel: each deviation off disagrees with the software on %v requests", shown)
	for _, d := range []string{"anchor", "clock", "closed", "one-hit"} {
		if shown[d] == 0 {
			t.Errorf("laravel:without=%s decides every request as the software: the traces do not show %s", d, d)
		}
	}
}

// Rules the products cannot express are refused before anything starts,
// and a variant the target does not have.
func TestRefusesRulesBeforeStarting(t *testing.T) {
	for _, c := range []struct {
		start   func(context.Context, algorithms.Rule, *live.Trace, live.Options) (live.Session, error)
		rule    string
		variant string
		mention string
	}{
		{StartSymfony, "5/999ms", "", "whole seconds"},
		{StartSymfony, "5/1500ms", "policy=token_bucket", "whole seconds"},
		{StartSymfony, "5/1s", "policy=moving_window", "no variant"},
		{StartLaravel, "5/999ms", "", "whole seconds"},
		{StartLaravel, "5/123s", "", "decay of 122 s"},
		{StartLaravel, "5/1s", "store=redis", "no variant"},
	} {
		r, err := algorithms.ParseRule(c.rule)
		if err != nil {
			t.Fatal(err)
		}
		// a binary that does not exist: the rule is refused before it is looked for
		_, err = c.start(context.Background(), r, live.Bursty3Keys(), live.Options{Variant: c.variant, Binary: filepath.Join(t.TempDir(), "no-php")})
		if err == nil || !strings.Contains(err.Error(), c.mention) {
			t.Errorf("%s %q: %v, want an error naming %q", c.rule, c.variant, err, c.mention)
		}
	}
}

// Without php, or with a php that cannot load the library, each target
// says which Debian packages to install.
func TestMissingSoftwareNamesPackages(t *testing.T) {
	fake := filepath.Join(t.TempDir(), "php")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho \"PHP Warning: require_once(Symfony/Component/RateLimiter/autoload.php): Failed to open stream\" >&2\nexit 255\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := algorithms.Rule{L: 5, W: int64(time.Second)}
	for _, c := range []struct {
		name, pkg string
		start     func(context.Context, algorithms.Rule, *live.Trace, live.Options) (live.Session, error)
	}{{"symfony", "php-symfony-rate-limiter", StartSymfony}, {"laravel", "php-laravel-framework", StartLaravel}} {
		tg, _ := live.Lookup(c.name)
		for _, bin := range []string{filepath.Join(t.TempDir(), "no-php"), fake} {
			o := live.Options{Binary: bin}
			if _, err := tg.Version(context.Background(), o); err == nil || !strings.Contains(err.Error(), c.pkg) || !strings.Contains(err.Error(), "php-cli") {
				t.Errorf("%s: Version with %s: %v, want an error naming php-cli and %s", c.name, bin, err, c.pkg)
			}
			if _, err := c.start(context.Background(), r, live.Bursty3Keys(), o); err == nil || !strings.Contains(err.Error(), c.pkg) {
				t.Errorf("%s: Start with %s: %v, want an error naming %s", c.name, bin, err, c.pkg)
			}
		}
	}
}

// Close kills the driver and is safe to repeat; a request after it fails;
// a request under a cancelled context, or with a key the driver's lines
// cannot carry, fails without being sent.
func TestCloseStopsTheDriver(t *testing.T) {
	need(t, "symfony")
	sess, err := StartSymfony(context.Background(), algorithms.Rule{L: 5, W: int64(time.Second)}, live.Bursty3Keys(), live.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := sess.(*driver.LineSession)
	pid := s.P.Pid()
	if d, err := s.Decide(context.Background(), live.Request{Key: "k0", T: 0, Cost: 1}); err != nil || !d.Admit {
		t.Fatalf("first request: %v, %v", d.Admit, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Decide(ctx, live.Request{Key: "k0", T: 1, Cost: 1}); err == nil {
		t.Error("a request under a cancelled context was answered")
	}
	if _, err := s.Decide(context.Background(), live.Request{Key: "k 0", T: 2, Cost: 1}); err == nil {
		t.Error("a key with a blank was sent")
	}
	if d, err := s.Decide(context.Background(), live.Request{Key: "k0", T: 2, Cost: 4}); err != nil || !d.Admit {
		t.Errorf("the second request, after two that were not sent: %v, %v", d.Admit, err)
	}
	if d, err := s.Decide(context.Background(), live.Request{Key: "k0", T: 3, Cost: 1}); err != nil || d.Admit {
		t.Errorf("the third, the window full: %v, %v", d.Admit, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("the driver (pid %d) runs on after Close: %v", pid, err)
	}
	if _, err := s.Decide(context.Background(), live.Request{Key: "k0", T: 4, Cost: 1}); err == nil {
		t.Error("a request after Close was answered")
	}
}
