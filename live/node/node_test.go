package node

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"ratebench/algorithms"
	"ratebench/live"
	liveredis "ratebench/live/redis"
)

// target returns the registered target named name.
func target(t *testing.T, name string) live.Target {
	t.Helper()
	tg, ok := live.Lookup(name)
	if !ok {
		t.Fatalf("no live target %s (targets: %v)", name, live.Names())
	}
	return tg
}

// run replays tr through the target under rule, failing the test (not
// skipping it) when node or the npm packages are missing: the error names
// what to install.
func run(t *testing.T, name, rule string, tr *live.Trace, o live.Options) (agree, refused int64, res func() string) {
	t.Helper()
	r, err := algorithms.ParseRule(rule)
	if err != nil {
		t.Fatal(err)
	}
	out, err := live.Run(context.Background(), target(t, name), r, tr, o)
	if err != nil {
		t.Fatalf("%s under %s: %v", name, rule, err)
	}
	return out.Model.Agree, out.Refused, func() string { return fmt.Sprintf("%s, first differences %+v", out.Software, out.Differences) }
}

// The acceptance check: the real middleware with its MemoryStore, its
// Date and timers driven by the trace, decides every request of the check's
// trace under 5/1s as the model does.
func TestMemoryStoreAgreesOnTheCheckTrace(t *testing.T) {
	tr := live.Bursty3Keys()
	agree, refused, diff := run(t, "express-rate-limit", live.CheckRule, tr, live.Options{})
	if agree != int64(len(tr.T)) {
		t.Fatalf("the model agrees on %d of %d requests: %s", agree, len(tr.T), diff())
	}
	if refused == 0 {
		t.Fatal("nothing refused: the check's trace does not exercise the limit")
	}
	t.Logf("agreement %d of %d requests, %d refused", agree, len(tr.T), refused)
}

// express-rate-limit takes no cost: sent the check's requests, the real
// middleware decides each as its model decides the check's trace with
// costs (live.Bursty3KeysWithCosts), counting one hit per request, where
// charging the costs decides some otherwise (live's
// TestBursty3KeysWithCostsTellsOneHit).
func TestMemoryStoreCountsOneHitPerRequest(t *testing.T) {
	tr := live.Bursty3KeysWithCosts()
	agree, refused, diff := run(t, "express-rate-limit", live.CheckRule, tr, live.Options{})
	if agree != int64(len(tr.T)) {
		t.Fatalf("the model agrees on %d of %d requests: %s", agree, len(tr.T), diff())
	}
	if refused == 0 {
		t.Fatal("nothing refused: the trace does not exercise the limit")
	}
}

// edgeTrace returns n requests over keys, from start, whose gaps linger on
// rule r's edges: the same instant, one ns, one ms either side of a
// millisecond and of the window, whole windows, and idle stretches.
func edgeTrace(rng *rand.Rand, r algorithms.Rule, keys, n int, start int64) *live.Trace {
	ms := int64(time.Millisecond)
	w := r.W / ms * ms
	gaps := []int64{0, 0, 1, ms - 1, ms, ms + 1, r.W / 7, r.W / 3, w - ms, w - 1, w, w + 1, w + ms, r.W, 3 * r.W}
	tr := &live.Trace{Keys: keys}
	tm := start
	for range n {
		tm += gaps[rng.IntN(len(gaps))] / int64(1+rng.IntN(3))
		tr.T = append(tr.T, tm)
		tr.Key = append(tr.Key, int32(rng.IntN(keys)))
	}
	return tr
}

// The middleware with its MemoryStore on traces along the windows' and the
// milliseconds' edges, from the epoch and from a Unix time: every request
// decided as the model does. windowMs 1000.9999 at Unix times shows the
// float64 sum now + windowMs rounding up to the next whole millisecond
// (the model's test TestExpressRateLimitClock), and 1.5 its truncation.
func TestMemoryStoreAgreesOnEdges(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 7))
	for _, c := range []struct {
		rule  algorithms.Rule
		start int64
	}{
		{algorithms.Rule{L: 3, W: int64(time.Second)}, 0},
		{algorithms.Rule{L: 2, W: 1000999900}, 1_700_000_000_000_000_000},
		{algorithms.Rule{L: 1, W: 1000999900}, 0},
		{algorithms.Rule{L: 2, W: 1500 * int64(time.Microsecond)}, 1_700_000_000_000_123_456},
		{algorithms.Rule{L: 4, W: int64(250 * time.Millisecond)}, 1_700_000_000_000_000_000},
	} {
		tr := edgeTrace(rng, c.rule, 3, 600, c.start)
		agree, refused, diff := run(t, "express-rate-limit", c.rule.String(), tr, live.Options{})
		if agree != int64(len(tr.T)) {
			t.Errorf("%v from %d: the model agrees on %d of %d requests: %s", c.rule, c.start, agree, len(tr.T), diff())
		}
		if refused == 0 || refused == int64(len(tr.T)) {
			t.Errorf("%v: %d refused of %d: the trace does not exercise the limit", c.rule, refused, len(tr.T))
		}
	}
}

// rate-limit-redis on a real redis-server, replayed in real time: Redis's
// clock cannot be driven, so each request is given the time Redis read
// just before the store's script, and the model is fed those times. Every
// request must be decided as the model decides on them, on the check's
// trace and on it with costs, which the store's script does not take (one
// hit per request, as the model counts).
func TestRedisStoreAgreesOnTheCheckTrace(t *testing.T) {
	r, _ := algorithms.ParseRule(live.CheckRule)
	for _, tr := range []*live.Trace{live.Bursty3Keys(), live.Bursty3KeysWithCosts()} {
		tg := target(t, "express-rate-limit:store=redis")
		var started live.Session
		start := tg.Start
		tg.Start = func(ctx context.Context, r algorithms.Rule, tr *live.Trace, o live.Options) (live.Session, error) {
			s, err := start(ctx, r, tr, o)
			started = s
			return s, err
		}
		res, err := live.Run(context.Background(), tg, r, tr, live.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Model.Agree != int64(len(tr.T)) {
			t.Fatalf("costs %v: the model agrees on %d of %d requests: %s, first differences %+v", tr.Cost != nil, res.Model.Agree, len(tr.T), res.Software, res.Differences)
		}
		if res.Refused == 0 {
			t.Fatal("nothing refused")
		}
		t.Logf("costs %v: agreement %d of %d requests on the times Redis decided at (%d given TIME's millisecond), %d on the trace's; %d refused",
			tr.Cost != nil, res.Model.Agree, len(tr.T), Approximate(started), res.Intended.Agree, res.Refused)
	}
}

// The Redis store loads the very script the Redis replay runs
// (live/redis's lua/rate_limit_redis.lua): their SHA1s are equal.
func TestRedisStoreLoadsTheReplayedScript(t *testing.T) {
	r, _ := algorithms.ParseRule("5/1s")
	s, err := target(t, "express-rate-limit:store=redis").Start(context.Background(), r, live.Bursty3Keys(), live.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if sha := s.(*session).sha; sha != liveredis.RateLimitRedisSHA1 {
		t.Errorf("the store loaded the script %s, the Redis replay runs %s", sha, liveredis.RateLimitRedisSHA1)
	}
}

// Close kills the node process and removes its folder.
func TestCloseKillsNode(t *testing.T) {
	r, _ := algorithms.ParseRule("5/1s")
	s, err := target(t, "express-rate-limit").Start(context.Background(), r, live.Bursty3Keys(), live.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := s.(*session).p
	pid := p.Pid()
	if d, err := s.Decide(context.Background(), live.Request{Key: "k0", T: 5, Cost: 1}); err != nil || !d.Admit || d.At != 5 {
		t.Fatalf("first request: %+v %v", d, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("node (pid %d) still there after Close: %v", pid, err)
	}
	if _, err := os.Stat(p.Dir()); !os.IsNotExist(err) {
		t.Errorf("its folder %s is left: %v", p.Dir(), err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("a second Close: %v", err)
	}
}

// Missing software is an error that says what to install.
func TestMissingSoftwareNamesTheInstall(t *testing.T) {
	tg := target(t, "express-rate-limit")
	if _, err := tg.Version(context.Background(), live.Options{Binary: "/nonexistent/node"}); err == nil || !strings.Contains(err.Error(), "apt-get install nodejs") {
		t.Errorf("no node: %v", err)
	}
	dir := t.TempDir()
	pkg, err := os.ReadFile(filepath.Join(mustPrefix(t), "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "package.json"), pkg, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("RATEBENCH_LIVE_NODE", dir)
	if _, err := tg.Version(context.Background(), live.Options{}); err == nil || !strings.Contains(err.Error(), Install) {
		t.Errorf("no packages: %v, want it to name %s", err, Install)
	}
	r, _ := algorithms.ParseRule("5/1s")
	if _, err := tg.Start(context.Background(), r, live.Bursty3Keys(), live.Options{Variant: "store=redis"}); err == nil || !strings.Contains(err.Error(), "express-rate-limit:store=redis") {
		t.Errorf("the redis variant of the memory target: %v", err)
	}
}

func mustPrefix(t *testing.T) string {
	t.Helper()
	p, err := Prefix()
	if err != nil {
		t.Fatal(err)
	}
	return p
}
