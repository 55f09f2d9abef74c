package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"ratebench/live/openresty"
	"slices"
	"strconv"
	"strings"
	"testing"

	"ratebench/algorithms"
	"ratebench/live"
	"ratebench/summary"
)

// fixedSession is software that decides as the fixed window, its clock
// driven by the trace.
type fixedSession struct {
	live.Plain
	l   algorithms.Limiter
	ids map[string]int32
}

func (s *fixedSession) Decide(_ context.Context, q live.Request) (live.Decision, error) {
	key, t := q.Key, q.T
	id, ok := s.ids[key]
	if !ok {
		id = int32(len(s.ids))
		s.ids[key] = id
		s.l.Grow(len(s.ids))
	}
	a := s.l.Decide(id, t, 1)
	s.l.Record(id, t, 1) // it counts every request, as its model does
	return live.Decision{Admit: a, At: t}, nil
}

func (*fixedSession) Close() error { return nil }

func init() {
	live.Register(live.Target{Name: "test-fixed", About: "a fixed window in the test's own process", Driven: true, Variants: []string{""},
		Version: func(context.Context, live.Options) (string, error) { return "test-fixed 1.0", nil },
		Model: func(_ algorithms.Rule, o live.Options) (string, error) {
			if o.Variant != "" && o.Variant != "same" {
				return "", fmt.Errorf("live test-fixed: no variant %q", o.Variant)
			}
			return "envoy", nil
		},
		Start: func(_ context.Context, r algorithms.Rule, _ *live.Trace, _ live.Options) (live.Session, error) {
			l, err := algorithms.New("envoy", r)
			return &fixedSession{l: l, ids: map[string]int32{}}, err
		}})
}

// ownClockTarget is software on its own clock whose model, HAProxy's,
// takes windows of whole milliseconds only; it never starts.
var ownClockTarget = live.Target{Name: "test-own-clock", About: "software on its own clock, never started",
	Version: func(context.Context, live.Options) (string, error) { return "test-own-clock 1.0", nil },
	Model:   func(algorithms.Rule, live.Options) (string, error) { return "haproxy", nil },
	Start: func(context.Context, algorithms.Rule, *live.Trace, live.Options) (live.Session, error) {
		return nil, fmt.Errorf("test-own-clock never starts")
	}}

func init() { live.Register(ownClockTarget) }

// A -speed at which the rule cannot run on the software's clock is a usage
// error naming -speed, before the trace is read or the folder made.
func TestLiveProductSpeedTheRuleCannotRunAt(t *testing.T) {
	for speed, want := range map[string]string{
		"1e9": `-speed 1e9: the rule 5/1s at speed 1000000000 is 5/1ns on the software's clock: live test-own-clock: its model: algorithm "haproxy": http_req_rate's period is a whole number of milliseconds`,
		"3":   "-speed 3: rule 5/1s at speed 3: the window would be 1000000000/3 ns, not a whole number of ns",
	} {
		dir := filepath.Join(t.TempDir(), "out")
		_, stderr, err := ratebench(t, "live", "test-own-clock", "-rule", "5/1s", "-gen", "poisson:requests=100,keys=2", "-speed", speed, "-o", dir)
		var ue usageError
		if !errors.As(err, &ue) || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("-speed %s: %v, want a usage error starting %q", speed, err, want)
		}
		if strings.Contains(stderr, "replaying") {
			t.Errorf("-speed %s: refused after the trace was read", speed)
		}
		if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("-speed %s: the folder was made", speed)
		}
	}
}

// ratebench live PRODUCT replays the check's trace by default, writes
// live.json and live.md, and prints the agreement.
func TestLiveProductCommand(t *testing.T) {
	dir := t.TempDir()
	stdout, stderr, err := ratebench(t, "live", "test-fixed", "-o", dir)
	if err != nil {
		t.Fatalf("%v\nstderr:\n%s", err, stderr)
	}
	n := len(live.Bursty3Keys().T)
	for _, want := range []string{"# Live replay through test-fixed 1.0", "with its clock driven by the trace's times",
		"| `envoy` | the times it decided at | " + strconv.Itoa(n) + " | 100% | 0 | 0 |",
		"test-fixed agrees with its model on " + strconv.Itoa(n) + " of " + strconv.Itoa(n) + " requests (100.000%)"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "live.json"))
	if err != nil {
		t.Fatal(err)
	}
	var res summary.Live
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	if res.Schema != summary.LiveSchemaVersion || res.Target != "test-fixed" || res.Trace.Requests != int64(n) || res.Model.Agree != int64(n) || res.Refused == 0 || res.Log.Disagree() == 0 {
		t.Errorf("live.json: %+v", res)
	}
	md, err := os.ReadFile(filepath.Join(dir, "live.md"))
	if err != nil || !strings.Contains(string(md), "the product's algorithm") {
		t.Errorf("live.md (%v) lacks the log's classes:\n%s", err, md)
	}
}

// PRODUCT:VARIANT is PRODUCT -variant VARIANT, and names what ran.
func TestLiveProductVariant(t *testing.T) {
	dir := t.TempDir()
	stdout, stderr, err := ratebench(t, "live", "test-fixed:same", "-o", dir)
	if err != nil || !strings.Contains(stdout, "test-fixed:same agrees with its model on") || !strings.Contains(stderr, "through test-fixed:same") {
		t.Errorf("err %v\nstdout:\n%s\nstderr:\n%s", err, stdout, stderr)
	}
}

func TestLiveProductBadArgs(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"live", "no-such"}, `unknown program "no-such"`},
		{[]string{"live", "test-fixed", "-variant", "x"}, `no variant "x"`},
		{[]string{"live", "test-fixed:x"}, `no variant "x"`},
		{[]string{"live", "no-such:x"}, `unknown program "no-such:x"`},
		{[]string{"live", "test-fixed", "-speed", "0"}, "-speed"},
		{[]string{"live", "test-fixed", "-rule", "5"}, "rule"},
		{[]string{"live", "test-fixed", "-clients", "2"}, "one client"},
	} {
		_, stderr, err := ratebench(t, c.args...)
		if err == nil || !strings.Contains(err.Error()+stderr, c.want) {
			t.Errorf("%v: err %v, stderr %q: want %q", c.args, err, stderr, c.want)
		}
	}
}

// ratebench live -h lists every target it replays through, with what runs
// and what it needs installed.
func TestLiveListsProducts(t *testing.T) {
	_, stderr, err := ratebench(t, "live", "-h")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range live.Names() {
		tg, _ := live.Lookup(n)
		if !strings.Contains(stderr, "  "+n+"\n      "+tg.About+"\n      needs "+tg.Requires+"\n") {
			t.Errorf("live -h does not list %s with what runs and what it needs:\n%s", n, stderr)
		}
	}
}

// ratebench live -list prints the product checks make live runs, one
// TARGET[:VARIANT] a line: each a variant its target takes, and together
// every product whose real software runs here.
//
// lua-resty-limit-traffic's files come from no package scripts/deps can
// install: where they are missing its checks are left out, stderr says so.
func TestLiveListsTheChecks(t *testing.T) {
	stdout, stderr, err := ratebench(t, "live", "-list")
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Fields(stdout)
	for _, c := range got {
		tg, variant, ok := live.Find(c)
		if !ok || !slices.Contains(tg.Variants, variant) {
			t.Errorf("live -list prints %q, not a target's variant", c)
		}
	}
	want := []string{"drf-throttling", "drf-throttling:max-entries=2", "express-rate-limit", "express-rate-limit:store=redis", "fastify-rate-limit", "fastify-rate-limit:continue-exceeding",
		"flask-limiter", "flask-limiter:strategy=moving", "flask-limiter:strategy=moving:storage=redis", "haproxy", "haproxy:short-expire",
		"laravel", "lua-resty-limit-traffic", "lua-resty-limit-traffic:module=count",
		"nestjs-throttler", "rack-attack", "rate-limiter-flexible", "rate-limiter-flexible:store=redis",
		"redis:spring-gateway", "redis:tyk", "symfony", "symfony:policy=sliding_window", "symfony:policy=token_bucket", "varnish", "varnish:ban=2s"}
	if err := openresty.Unpackaged(); err != nil {
		want = slices.DeleteFunc(want, func(c string) bool { return strings.HasPrefix(c, openresty.Name) })
		if !strings.Contains(stderr, "the checks of lua-resty-limit-traffic are left out: "+err.Error()) {
			t.Errorf("live -list leaves lua-resty-limit-traffic out without a word: stderr %q", stderr)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("live -list:\n got %q\nwant %q", got, want)
	}
}
