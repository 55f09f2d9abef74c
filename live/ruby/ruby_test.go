package ruby

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
	versionOnce sync.Once
	version     string
	versionErr  error
)

// needRuby fails the test, naming the packages to install, when Ruby or
// rack-attack is missing (asked once: the driver takes a second to load).
func needRuby(t *testing.T) string {
	t.Helper()
	versionOnce.Do(func() { version, versionErr = Version(context.Background(), live.Options{}) })
	if versionErr != nil {
		t.Fatalf("rack-attack's live check needs %s: %v", Requires, versionErr)
	}
	return version
}

// The acceptance check: the real Rack::Attack middleware, replaying the
// bursty 3-key trace under 5/1s with Time.now driven by the trace, decides
// every request as the model rack-attack does.
func TestRackAttackCheckTrace(t *testing.T) {
	version := needRuby(t)
	if !strings.HasPrefix(version, "rack-attack 6.6.1,") {
		t.Errorf("the driver loaded %s, want Debian's rack-attack 6.6.1 the model follows", version)
	}
	target, ok := live.Lookup("rack-attack")
	if !ok {
		t.Fatal("rack-attack is not registered as a live target")
	}
	r, err := algorithms.ParseRule(live.CheckRule)
	if err != nil {
		t.Fatal(err)
	}
	tr := live.Bursty3Keys()
	res, err := live.Run(context.Background(), target, r, tr, live.Options{})
	if err != nil {
		t.Fatal(err)
	}
	n := int64(len(tr.T))
	t.Logf("%s: %d requests, %d admitted, %d refused; the model %s agrees on %d, the exact log on %d",
		res.Software, n, res.Admitted, res.Refused, res.ModelSpec, res.Model.Agree, res.Log.Agree)
	if res.Model.Agree != n || res.Model.Disagree() != 0 || len(res.Differences) != 0 {
		t.Errorf("the model agrees on %d of %d requests: %+v", res.Model.Agree, n, res.Differences)
	}
	if res.Refused == 0 || res.Admitted == 0 {
		t.Errorf("admitted %d, refused %d: the check's trace must cross the limit", res.Admitted, res.Refused)
	}
	if res.ModelSpec != "rack-attack" || res.Clock != "driven" {
		t.Errorf("model %q, clock %q", res.ModelSpec, res.Clock)
	}
}

// A throttle takes no cost: sent the check's requests, the real middleware
// decides each as the model rack-attack decides the check's trace with
// costs (live.Bursty3KeysWithCosts), counting one per request, where
// charging the costs decides some otherwise (live's
// TestBursty3KeysWithCostsTellsOneHit).
func TestRackAttackCountsOneHitPerRequest(t *testing.T) {
	needRuby(t)
	target, ok := live.Lookup("rack-attack")
	if !ok {
		t.Fatal("rack-attack is not registered as a live target")
	}
	r, err := algorithms.ParseRule(live.CheckRule)
	if err != nil {
		t.Fatal(err)
	}
	tr := live.Bursty3KeysWithCosts()
	res, err := live.Run(context.Background(), target, r, tr, live.Options{})
	if err != nil {
		t.Fatal(err)
	}
	n := int64(len(tr.T))
	if res.Model.Agree != n || len(res.Differences) != 0 {
		t.Errorf("the model agrees on %d of %d requests: %+v", res.Model.Agree, n, res.Differences)
	}
	if res.Refused == 0 || res.Admitted == 0 {
		t.Errorf("admitted %d, refused %d: the trace must cross the limit", res.Admitted, res.Refused)
	}
}

// trace returns n requests over keys near an instant of 2023, each key a
// third above the rule's rate, with requests at the same instant, on whole
// seconds and after pauses of whole windows; times are on whole
// microseconds.
func trace(rng *rand.Rand, r algorithms.Rule, keys, n int) *live.Trace {
	tr := &live.Trace{Keys: keys}
	t := int64(1_700_000_000_123_456_000)
	mean := r.W / r.L / int64(keys) * 3 / 4 // each key a third above its rate
	for i := range n {
		switch rng.IntN(16) {
		case 0, 1: // same instant
		case 2: // to the next whole second
			t += int64(time.Second) - t%int64(time.Second)
		case 3: // a pause of a few windows
			t += r.W * int64(1+rng.IntN(3))
		default:
			t += rng.Int64N(2*mean) / 1000 * 1000
		}
		tr.T = append(tr.T, t)
		k := int32(rng.IntN(keys))
		if i < keys {
			k = int32(i) // keys appear in order, as live.Load numbers them
		}
		tr.Key = append(tr.Key, k)
	}
	return tr
}

// decisions replays tr through spec, counting as the product does.
func decisions(t *testing.T, spec string, r algorithms.Rule, tr *live.Trace) []bool {
	t.Helper()
	out, err := live.Decide(spec, r, tr, tr.T)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Under rules of other windows, the real middleware decides as the model
// too, including windows that are not whole seconds, whose period it
// truncates (period.to_i): 1.5 s is 1 s, 2.5 s is 2 s. There the model
// without its period deviation (windows of W) disagrees with the software:
// the truncation is the software's, not an artefact of the model.
func TestRackAttackMatchesModelOnOtherRules(t *testing.T) {
	needRuby(t)
	rng := rand.New(rand.NewPCG(6, 61))
	for _, c := range []struct {
		rule      string
		truncated bool // the period is not W
	}{{"3/1500ms", true}, {"4/2500ms", true}, {"10/1m", false}, {"2/1s", false}, {"7/3s", false}} {
		r, err := algorithms.ParseRule(c.rule)
		if err != nil {
			t.Fatal(err)
		}
		tr := trace(rng, r, 4, 1500)
		s, err := Start(context.Background(), r, tr, live.Options{})
		if err != nil {
			t.Fatal(err)
		}
		real := make([]bool, len(tr.T))
		admitted := 0
		for i, id := range tr.Key {
			d, err := s.Decide(context.Background(), live.Request{Index: i, Key: live.KeyName(id), ID: id, T: tr.T[i], Cost: 1})
			if err != nil {
				s.Close()
				t.Fatalf("%s, request %d: %v", c.rule, i+1, err)
			}
			if d.At != tr.T[i] {
				t.Errorf("%s, request %d: decided at %d, not the request's %d", c.rule, i+1, d.At, tr.T[i])
			}
			if real[i] = d.Admit; d.Admit {
				admitted++
			}
		}
		if err := s.Close(); err != nil {
			t.Errorf("%s: Close: %v", c.rule, err)
		}
		if admitted == 0 || admitted == len(tr.T) {
			t.Fatalf("%s: %d of %d admitted: the trace does not exercise the limit", c.rule, admitted, len(tr.T))
		}
		model := decisions(t, "rack-attack", r, tr)
		for i := range real {
			if real[i] != model[i] {
				t.Fatalf("%s, request %d (key %d at %d ns): rack-attack admits %v, the model %v", c.rule, i+1, tr.Key[i], tr.T[i], real[i], model[i])
			}
		}
		differ := 0
		for i, d := range decisions(t, "rack-attack:without=period", r, tr) {
			if d != real[i] {
				differ++
			}
		}
		if c.truncated && differ == 0 {
			t.Errorf("%s: the model with windows of W decides as the software, which truncates the period", c.rule)
		}
		if !c.truncated && differ != 0 {
			t.Errorf("%s: a period of whole seconds, yet the model with windows of W on the trace's nanoseconds disagrees %d times", c.rule, differ)
		}
		t.Logf("%s: %d requests, %d admitted, all decided as the model; windows of W would decide %d differently", c.rule, len(tr.T), admitted, differ)
	}
}

// A window below a second is a period of 0, which the software divides
// by: Start refuses it before starting anything.
func TestRackAttackRefusesSubSecondWindow(t *testing.T) {
	_, err := Start(context.Background(), algorithms.Rule{L: 5, W: int64(999 * time.Millisecond)}, live.Bursty3Keys(), live.Options{})
	if err == nil || !strings.Contains(err.Error(), "whole seconds") {
		t.Errorf("Start under 5/999ms: %v, want an error saying the period is whole seconds", err)
	}
	if _, err := Model(algorithms.Rule{L: 5, W: int64(time.Second)}, live.Options{Variant: "store=redis"}); err == nil {
		t.Error("a variant was accepted")
	}
}

// Without Ruby, or with a Ruby that cannot load rack-attack, the target
// says which Debian packages to install.
func TestRackAttackMissingSoftwareNamesPackages(t *testing.T) {
	fake := filepath.Join(t.TempDir(), "ruby")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho \"cannot load such file -- rack/attack (LoadError)\" >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, bin := range []string{filepath.Join(t.TempDir(), "no-ruby"), fake} {
		o := live.Options{Binary: bin}
		if _, err := Version(context.Background(), o); err == nil || !strings.Contains(err.Error(), "ruby-rack-attack") {
			t.Errorf("Version with %s: %v, want an error naming ruby-rack-attack", bin, err)
		}
		if _, err := Start(context.Background(), algorithms.Rule{L: 5, W: int64(time.Second)}, live.Bursty3Keys(), o); err == nil || !strings.Contains(err.Error(), "ruby-rack-attack") {
			t.Errorf("Start with %s: %v, want an error naming ruby-rack-attack", bin, err)
		}
	}
}

// Close kills the driver and is safe to repeat; a request after it fails;
// a request under a cancelled context, or with a key the driver's lines
// cannot carry, fails without being sent.
func TestRackAttackCloseStopsTheDriver(t *testing.T) {
	needRuby(t)
	sess, err := Start(context.Background(), algorithms.Rule{L: 5, W: int64(time.Second)}, live.Bursty3Keys(), live.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := sess.(*driver.LineSession)
	pid := s.P.Pid()
	if d, err := s.Decide(context.Background(), live.Request{Key: "k0", T: 0}); err != nil || !d.Admit {
		t.Fatalf("first request: %v, %v", d.Admit, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Decide(ctx, live.Request{Key: "k0", T: 1}); err == nil {
		t.Error("a request under a cancelled context was answered")
	}
	if _, err := s.Decide(context.Background(), live.Request{Key: "k 0", T: 2}); err == nil {
		t.Error("a key with a blank was sent")
	}
	if d, err := s.Decide(context.Background(), live.Request{Key: "k0", T: 2}); err != nil || !d.Admit {
		t.Errorf("the second request, after two that were not sent: %v, %v", d.Admit, err)
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
	if _, err := s.Decide(context.Background(), live.Request{Key: "k0", T: 3}); err == nil {
		t.Error("a request after Close was answered")
	}
}
