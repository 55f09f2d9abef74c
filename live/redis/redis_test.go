package redis

import (
	"context"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"ratebench/algorithms"
	"ratebench/live"
)

// needRedis fails the test (it does not skip it) when redis-server is
// missing: a live check that silently skips proves nothing.
func needRedis(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Fatalf("redis-server is not installed (%v): the live checks run the products' scripts in a real Redis; install %s", err, requires)
	}
}

func checkRule(t *testing.T) algorithms.Rule {
	t.Helper()
	r, err := algorithms.ParseRule(live.CheckRule)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// The check: the check's trace under 5/1s, serially, through each
// product's script in a redis-server of its own, decides every request as
// the product's model does.
func TestLiveAgreesWithModel(t *testing.T) {
	needRedis(t)
	for _, name := range []string{"tyk", "spring-gateway"} {
		t.Run(name, func(t *testing.T) {
			target, variant, ok := live.Find("redis:" + name)
			if !ok {
				t.Fatalf("redis:%s is not registered (registered: %v)", name, live.Names())
			}
			tr := live.Bursty3Keys()
			res, err := live.Run(context.Background(), target, checkRule(t), tr, live.Options{Variant: variant})
			if err != nil {
				t.Fatal(err)
			}
			n := int64(len(tr.T))
			t.Logf("%s (%s): %d requests, %d admitted, %d refused; model %s agrees on %d; the exact log on %d",
				name, res.Software, n, res.Admitted, res.Refused, res.ModelSpec, res.Model.Agree, res.Log.Agree)
			if res.Model.Agree != n || res.Model.Disagree() != 0 || len(res.Differences) != 0 {
				t.Errorf("%s: the model agrees on %d of %d requests: %+v", name, res.Model.Agree, n, res.Differences)
			}
			if res.Refused == 0 || res.Admitted == 0 {
				t.Errorf("%s: admitted %d, refused %d: the check's trace must cross the limit", name, res.Admitted, res.Refused)
			}
			if !strings.HasPrefix(res.Software, "Redis ") || res.ModelSpec != name || res.Clock != "driven" || res.Target != "redis:"+name {
				t.Errorf("%s: software %q, model %q, clock %q, target %q", name, res.Software, res.ModelSpec, res.Clock, res.Target)
			}
		})
	}
}

// The check's trace shows Tyk's logging of refused requests: the script's
// decisions are the model's, and not the model's without counts-refused
// (the exact log's), on some request. Spring Cloud Gateway's whole-second
// refill shows too. And Tyk's script takes no cost: on the check's trace
// with costs (the script sent its requests and their costs), it decides
// as the model, which counts one per request, and not as the model
// charging the costs.
func TestLiveShowsTheDeviations(t *testing.T) {
	needRedis(t)
	r := checkRule(t)
	for _, c := range []struct {
		name, without string
		tr            *live.Trace
	}{{"tyk", "counts-refused", live.Bursty3Keys()}, {"spring-gateway", "clock", live.Bursty3Keys()}, {"tyk", "one-hit", live.Bursty3KeysWithCosts()}} {
		tr := c.tr
		target, _ := live.Lookup("redis")
		s, err := target.Start(context.Background(), r, tr, live.Options{Variant: c.name})
		if err != nil {
			t.Fatal(err)
		}
		real := make([]bool, len(tr.T))
		for i, t0 := range tr.T {
			// The script is sent each request's cost: Tyk's takes none.
			d, err := s.Decide(context.Background(), live.Request{Index: i, Key: live.KeyName(tr.Key[i]), ID: tr.Key[i], T: t0, Cost: tr.CostOf(i)})
			if err != nil {
				s.Close()
				t.Fatal(err)
			}
			if d.At != t0 {
				t.Errorf("%s: decided at %d, not the request's %d", c.name, d.At, t0)
			}
			real[i] = d.Admit
		}
		if err := s.Close(); err != nil {
			t.Errorf("%s: close: %v", c.name, err)
		}
		model := decisions(t, c.name, r, tr)
		without := decisions(t, c.name+":without="+c.without, r, tr)
		var differ, agree int
		for i := range real {
			if real[i] == model[i] {
				agree++
			}
			if real[i] != without[i] {
				differ++
			}
		}
		t.Logf("%s: %d of %d as the model; %d unlike %s:without=%s", c.name, agree, len(real), differ, c.name, c.without)
		if agree != len(real) || differ == 0 {
			t.Errorf("%s: %d of %d as the model, %d unlike it without %s; want all, and some", c.name, agree, len(real), differ, c.without)
		}
	}
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

// Close stops the session's redis-server: its port no longer answers.
func TestCloseStopsTheServer(t *testing.T) {
	needRedis(t)
	target, _ := live.Lookup("redis")
	ls, err := target.Start(context.Background(), checkRule(t), live.Bursty3Keys(), live.Options{Variant: "tyk"})
	if err != nil {
		t.Fatal(err)
	}
	s := ls.(*session)
	addr := s.srv.Addr
	if _, err := s.Decide(context.Background(), live.Request{Key: "k0", T: 0, Cost: 1}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond); err == nil {
		c.Close()
		t.Errorf("%s still answers after Close", addr)
	}
}

// A rule the product cannot express is refused before any server starts,
// and a missing binary is named with what to install.
func TestRefusals(t *testing.T) {
	r := algorithms.Rule{L: 5, W: int64(1500 * time.Millisecond)}
	target, _ := live.Lookup("redis")
	for _, name := range []string{"tyk", "spring-gateway"} {
		o := live.Options{Variant: name}
		if _, err := target.Model(r, o); err == nil || !strings.Contains(err.Error(), "whole seconds") {
			t.Errorf("%s under %s: model err %v", name, r, err)
		}
		if _, err := target.Start(context.Background(), r, live.Bursty3Keys(), o); err == nil {
			t.Errorf("%s under %s: started", name, r)
		}
		o.Binary = "/nonexistent/redis-server"
		if _, err := target.Version(context.Background(), o); err == nil || !strings.Contains(err.Error(), "apt-get install -y redis-server") {
			t.Errorf("%s with a missing binary: %v", name, err)
		}
	}
	// The target redis runs the script its variant names, and refuses
	// none, or one on Redis's own clock (a target of its own).
	for _, variant := range []string{"", "redis_rate"} {
		if _, err := target.Model(checkRule(t), live.Options{Variant: variant}); err == nil || !strings.Contains(err.Error(), "redis:") {
			t.Errorf("variant %q: model err %v, want it refused naming the targets", variant, err)
		}
	}
}
