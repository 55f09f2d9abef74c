package redis

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-redis/redis_rate/v10"
	goredis "github.com/redis/go-redis/v9"

	"ratebench/algorithms"
	"ratebench/generators"
	"ratebench/live"
	"ratebench/traces"
)

// TestProductScriptsVerbatim: the Upstash scripts are the product's (their
// SHA1s are the hashes ratelimit-js gives them), and the redis_rate script
// is the one the library itself loads into Redis.
func TestProductScriptsVerbatim(t *testing.T) {
	if h := ScriptUpstashSliding.Hash(); h != UpstashSlidingSHA1 {
		t.Errorf("upstash sliding window script: SHA1 %s, want %s", h, UpstashSlidingSHA1)
	}
	if h := ScriptUpstashFixed.Hash(); h != UpstashFixedSHA1 {
		t.Errorf("upstash fixed window script: SHA1 %s, want %s", h, UpstashFixedSHA1)
	}
	// The SHA1 of request_rate_limiter.lua at spring-cloud-gateway's
	// commit 5227205: the file is that script, unchanged.
	if h := ScriptSpringGateway.Hash(); h != "0ad5736ed1c04aae6ec194376c784b89b8c08a7a" {
		t.Errorf("spring-gateway script: SHA1 %s, not request_rate_limiter.lua's", h)
	}
	// Tyk's sliding_log_add.lua: the SHA1 of its content, and its git
	// blob id at TykTechnologies/tyk commit 31e219b (git ls-tree
	// internal/rate/scripts), so the file is that script, unchanged.
	if h := ScriptTyk.Hash(); h != "ca685f7500773e4f5f26db6c231669744f141312" {
		t.Errorf("tyk script: SHA1 %s, not sliding_log_add.lua's", h)
	}
	blob := sha1.Sum([]byte(fmt.Sprintf("blob %d\x00%s", len(luaTyk), luaTyk)))
	if h := hex.EncodeToString(blob[:]); h != "f1036a9e7e5300338f36c8a9f808109097d7dcb0" {
		t.Errorf("tyk script: git blob %s, not internal/rate/scripts/sliding_log_add.lua's at 31e219b", h)
	}
	// The SHA1 the store's SCRIPT LOAD returns for rate-limit-redis
	// 6.0.1's increment script (live/node's check compares it with the
	// store's own).
	if sum := sha1.Sum([]byte(luaRateLimitRedis)); hex.EncodeToString(sum[:]) != RateLimitRedisSHA1 {
		t.Errorf("rate-limit-redis script: SHA1 %x, want %s", sum, RateLimitRedisSHA1)
	}
	// rate-limiter-flexible 11.4.0's incrTtlLuaScript, as its store EVALs
	// it (live/node's check compares it with the package's own).
	if sum := sha1.Sum([]byte(luaRateLimiterFlexible)); hex.EncodeToString(sum[:]) != RateLimiterFlexibleSHA1 {
		t.Errorf("rate-limiter-flexible script: SHA1 %x, want %s", sum, RateLimiterFlexibleSHA1)
	}
	// limits 2.8.0's acquire_moving_window.lua: its git blob is the one at
	// the tag (9d2d7add...), and its SHA1 the one redis-py registers.
	blob = sha1.Sum([]byte(fmt.Sprintf("blob %d\x00%s", len(luaLimitsMovingWindow), luaLimitsMovingWindow)))
	if h := hex.EncodeToString(blob[:]); h != "9d2d7addc2f77c469a600adf6a5fa8ba8405dfae" {
		t.Errorf("limits' moving window script: git blob %s, not acquire_moving_window.lua's at limits 2.8.0", h)
	}
	if h := ScriptLimitsMovingWindow.Hash(); h != "d19f37c18768a509dbf1310a257bfc35be65609f" {
		t.Errorf("limits' moving window script: SHA1 %s", h)
	}
	srv := StartForTest(t)
	c := goredis.NewClient(&goredis.Options{Addr: srv.Addr})
	defer c.Close()
	ctx := context.Background()
	if _, err := redis_rate.NewLimiter(c).Allow(ctx, "x", redis_rate.PerSecond(5)); err != nil {
		t.Fatal(err)
	}
	sum := sha1.Sum([]byte(luaRedisRate))
	ok, err := c.ScriptExists(ctx, hex.EncodeToString(sum[:])).Result()
	if err != nil {
		t.Fatal(err)
	}
	if !ok[0] {
		t.Error("lua/redis_rate.lua is not the script redis_rate's AllowN runs")
	}
}

// TestProductsAgreeWithOneClient: with one client each product's own Redis
// code decides exactly as its model on every request.
func TestProductsAgreeWithOneClient(t *testing.T) {
	srv := StartForTest(t)
	cases := []struct {
		name  string
		rule  string
		algs  []string
		speed int64
		trace func() traces.Reader
	}{
		{"5/1s", "5/1s", []string{"upstash", "upstash-fixed", "envoy", "kong", "spring-gateway", "tyk", FlaskMovingRedis}, 0, func() traces.Reader { return randomTrace(11, 3000, 6, 1e9, 1) }},
		{"10/1m", "10/1m", []string{"upstash", "upstash-fixed", "envoy", "kong", "spring-gateway", "tyk", FlaskMovingRedis}, 0, func() traces.Reader { return randomTrace(12, 3000, 4, 60e9, 1) }},
		// costs: refused requests counted (upstash: those that passed its
		// script's first test; upstash-fixed, envoy: all) use up the window
		{"costs 20/1s", "20/1s", []string{"upstash", "upstash-fixed", "envoy", "kong", "spring-gateway", "tyk", FlaskMovingRedis}, 0, func() traces.Reader { return randomTrace(13, 3000, 3, 1e9, 7) }},
		// spring-gateway at a rate below one a second: replenishRate 1,
		// requestedTokens 3 (20/1m), whole seconds of the trace for TIME
		{"spring 20/1m", "20/1m", []string{"spring-gateway"}, 0, func() traces.Reader { return randomTrace(16, 3000, 3, 60e9, 3) }},
		// live, at speed 100: 10 ms windows, some 40 s of trace in 0.4 s
		{"live 5/1s", "5/1s", []string{"redis_rate", "redis_rate:burst=2"}, 100, func() traces.Reader { return randomTrace(14, 400, 3, 1e9, 1) }},
		{"live costs 10/1s", "10/1s", []string{"redis_rate"}, 100, func() traces.Reader { return randomTrace(15, 400, 2, 1e9, 3) }},
		// rate-limit-redis, live at speed 100 too: windows of 10 ms on
		// Redis's milliseconds.
		{"live express-rate-limit 5/1s", "5/1s", []string{"express-rate-limit:store=redis"}, 100, func() traces.Reader { return randomTrace(17, 400, 3, 1e9, 1) }},
		{"live express-rate-limit 10/1s", "10/1s", []string{"express-rate-limit:store=redis"}, 100, func() traces.Reader { return randomTrace(18, 400, 2, 1e9, 1) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr := load(t, c.trace())
			for _, alg := range c.algs {
				res := run(t, srv, alg, mustRule(t, c.rule), 1, c.speed, tr)
				for _, n := range res.Notes {
					// A live replay that fell behind the trace's pace on a
					// busy machine still decides on Redis's own times,
					// which the model is fed: agreement below is what
					// must hold.
					if c.speed > 0 && strings.Contains(n, "fell behind the trace's pace") {
						t.Logf("note: %s", n)
						continue
					}
					t.Errorf("%s: note: %s", alg, n)
				}
				checkAgreement(t, res, t.Errorf)
				// Tyk's sorted sets hold what the model's logs hold:
				// refused requests, one member per nanosecond.
				if alg == "tyk" && (res.Memory.Entries != res.Memory.ModelEntries || res.Memory.Entries == 0) {
					t.Errorf("tyk: %d entries in Redis's sorted sets, %d in the model's logs", res.Memory.Entries, res.Memory.ModelEntries)
				}
			}
		})
	}
}

// TestProductsRace: under concurrent clients Kong's read-then-increment
// lets through more than its model; Envoy's decision on the INCRBY result
// does not (with cost 1 it admits exactly L per key and window whatever
// the order), nor do the atomic scripts.
func TestProductsRace(t *testing.T) {
	srv := StartForTest(t)
	// A window of a minute: the products' keys live W on the server's
	// clock, which a pass stalled on a loaded machine must not outlast.
	rule := mustRule(t, "50/1m")
	tr := load(t, raceTrace(2, 5, 200, rule.W))
	want := int64(5 * 2 * rule.L)
	for _, alg := range []string{"kong", "envoy", "upstash-fixed"} {
		for _, clients := range []int{1, 16} {
			p := run(t, srv, alg, rule, clients, 0, tr)
			t.Logf("%s, %d clients: admitted %d, model %d, over %d, under %d", alg, clients, p.Admitted, modelAdmitted(p), p.Model.SoftwareOnly, p.Model.OtherOnly)
			if modelAdmitted(p) != want {
				t.Errorf("%s: the model admitted %d, want %d", alg, modelAdmitted(p), want)
			}
			switch {
			case alg == "kong" && clients > 1:
				if p.Admitted <= want {
					t.Errorf("kong with %d clients admitted %d, want more than the model's %d", clients, p.Admitted, want)
				}
			case p.Admitted != want:
				t.Errorf("%s with %d clients admitted %d, want %d", alg, clients, p.Admitted, want)
			}
		}
	}
}

// TestRateLimitRedisConcurrentClients: rate-limit-redis's script is
// atomic and the model is fed the TIME each call read, in Redis's order,
// so with 4 and 16 clients too every decision agrees.
func TestRateLimitRedisConcurrentClients(t *testing.T) {
	srv := StartForTest(t)
	rule := mustRule(t, "50/1s")
	tr := load(t, raceTrace(2, 4, 200, rule.W))
	for _, clients := range []int{1, 4, 16} {
		res := run(t, srv, "express-rate-limit:store=redis", rule, clients, 10, tr)
		if res.Clients != clients {
			t.Fatalf("%d clients, want %d", res.Clients, clients)
		}
		checkAgreement(t, res, t.Errorf)
		for _, n := range res.Notes { // falling behind the pace on a busy machine is no error: the model is fed Redis's times
			if strings.Contains(n, "disagrees") {
				t.Errorf("note: %s", n)
			}
		}
	}
	if _, err := replay(t, srv, "express-rate-limit:store=redis", rule, 1, 0, load(t, randomTrace(19, 10, 2, 1e9, 3))); err == nil || !strings.Contains(err.Error(), "one hit per request") {
		t.Errorf("a trace with costs: err = %v, want it refused", err)
	}
}

// TestRateLimiterFlexibleConcurrentClients: rate-limiter-flexible's
// script is atomic and the model is fed the clock each call's script read,
// in Redis's order, so with 1, 4 and 16 clients every decision agrees, with
// costs too (its consume takes points). Its window is whole seconds, so
// the replay runs at the trace's pace.
func TestRateLimiterFlexibleConcurrentClients(t *testing.T) {
	srv := StartForTest(t)
	rule := mustRule(t, "50/1s")
	tr := load(t, raceTrace(2, 4, 200, rule.W))
	for _, clients := range []int{1, 4, 16} {
		res := run(t, srv, "rate-limiter-flexible:store=redis", rule, clients, 1, tr)
		if res.Clients != clients {
			t.Fatalf("%d clients, want %d", res.Clients, clients)
		}
		checkAgreement(t, res, t.Errorf)
		for _, n := range res.Notes {
			if strings.Contains(n, "disagrees") {
				t.Errorf("note: %s", n)
			}
		}
	}
	res := run(t, srv, "rate-limiter-flexible:store=redis", mustRule(t, "10/1s"), 1, 1, load(t, randomTrace(20, 300, 2, 1e9, 3)))
	checkAgreement(t, res, t.Errorf)
	// A block of 1 s: its SET comes in a second round trip, one client.
	res = run(t, srv, "rate-limiter-flexible:store=redis:blockDuration=1s", mustRule(t, "5/1s"), 1, 1, load(t, randomTrace(21, 300, 2, 1e9, 1)))
	checkAgreement(t, res, t.Errorf)
}

// TestLimitsMovingWindowUnderConcurrency: limits' moving-window script is
// atomic in Redis. On bursts of requests a microsecond apart, all within
// the window, it admits exactly L per key and burst with 1, 4 or 16
// clients, whatever order they arrive in; on a random trace, with one
// client it decides every request as its model, and with more the
// overlapping requests reach Redis in another order, whose timestamps it
// pushes as they come.
func TestLimitsMovingWindowUnderConcurrency(t *testing.T) {
	srv := StartForTest(t)
	rule := mustRule(t, "50/1m")
	clients := []int{1, 4, 16}
	bursts := load(t, raceTrace(2, 5, 200, rule.W))
	want := int64(5 * 2 * rule.L)
	for _, c := range clients {
		p := run(t, srv, FlaskMovingRedis, rule, c, 0, bursts)
		t.Logf("bursts, %d clients: admitted %d, model %d, agree %d of %d", c, p.Admitted, modelAdmitted(p), p.Model.Agree, p.Trace.Requests)
		if p.Admitted != want || modelAdmitted(p) != want {
			t.Errorf("%d clients: admitted %d, the model %d, want %d", c, p.Admitted, modelAdmitted(p), want)
		}
	}
	rule = mustRule(t, "5/1s")
	random := load(t, randomTrace(21, 4000, 4, rule.W, 1))
	for _, c := range clients {
		p := run(t, srv, FlaskMovingRedis, rule, c, 0, random)
		t.Logf("random, %d clients: admitted %d, model %d, agree %d of %d (over %d, under %d)", c, p.Admitted, modelAdmitted(p), p.Model.Agree, p.Trace.Requests, p.Model.SoftwareOnly, p.Model.OtherOnly)
		if c == 1 && p.Model.Agree != p.Trace.Requests {
			t.Errorf("one client: %d of %d agree", p.Model.Agree, p.Trace.Requests)
		}
		if p.Trace.Requests != 4000 || p.Admitted == 0 || p.Admitted == p.Trace.Requests {
			t.Errorf("%d clients: admitted %d of %d", c, p.Admitted, p.Trace.Requests)
		}
	}
}

// TestLiveFallsBehind: a live replay too fast to keep its pace says so.
func TestLiveFallsBehind(t *testing.T) {
	srv := StartForTest(t)
	// 10,000 requests over some 15 min of trace, at a million times: 1 ms
	// asked, and a round trip to Redis each: 0.2 s or more taken.
	res := run(t, srv, "redis_rate", mustRule(t, "5/1s"), 1, 1_000_000, load(t, randomTrace(16, 10_000, 2, 1e9, 1)))
	if res.Model.Agree != res.Trace.Requests {
		t.Errorf("%d of %d agree", res.Model.Agree, res.Trace.Requests)
	}
	if !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, "fell behind the trace's pace") }) {
		t.Errorf("notes %q, want one saying the replay fell behind", res.Notes)
	}
	if _, err := replay(t, srv, "redis_rate", mustRule(t, "5/1s"), 1, 3, load(t, randomTrace(16, 10, 2, 1e9, 1))); err == nil || !strings.Contains(err.Error(), "not a whole number of ns") {
		t.Errorf("speed 3 on a 1s window: err = %v", err)
	}
}

// TestKeyLife: the longest a window key must live, from its window's first
// request to the last that reads it (the next window's too when it is read
// in two).
func TestKeyLife(t *testing.T) {
	t0 := time.Unix(0, 0)
	at := func(ms int64) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	sends := []struct{ trace, real int64 }{{0, 0}, {500, 100}, {999, 700}, {1000, 800}, {1500, 2000}, {3000, 2100}, {3100, 2200}}
	for _, c := range []struct {
		reads int64
		want  time.Duration
	}{{1, 1200 * time.Millisecond}, {2, 2000 * time.Millisecond}} {
		l := keyLife{w: int64(time.Second), reads: c.reads}
		for _, s := range sends {
			l.see(s.trace*int64(time.Millisecond), at(s.real))
		}
		if l.max != c.want {
			t.Errorf("read in %d windows: %v, want %v", c.reads, l.max, c.want)
		}
	}
}

// TestTykScriptDeviations: Tyk's own script, run on a real server with
// the gateway's arguments, decides each deviation's timeline as the model
// tyk does, and not as the model with that deviation turned off.
func TestTykScriptDeviations(t *testing.T) {
	srv := StartForTest(t)
	c := goredis.NewClient(&goredis.Options{Addr: srv.Addr, Protocol: 2})
	defer c.Close()
	ctx := context.Background()
	const ms, sec = int64(time.Millisecond), int64(time.Second)
	b := int64(1_700_000_000_000_000_000) / 256 * 256 // a double, near 2024 in ns
	for i, tc := range []struct {
		deviation, rule string
		reqs            [][2]int64 // time, cost
		want, without   string
	}{
		// Tyk has no cost: the script is not told it, one member each.
		{"one-hit", "2/1s", [][2]int64{{b, 1}, {b + ms, 5}}, "AA", "AR"},
		// The refused request at 200 ms is logged and still counts at 1050 ms.
		{"counts-refused", "2/1s", [][2]int64{{b, 1}, {b + 100*ms, 1}, {b + 200*ms, 1}, {b + 1050*ms, 1}}, "AARR", "AARA"},
		// One member for the three requests of one nanosecond.
		{"same-ns", "2/1s", [][2]int64{{b, 1}, {b, 1}, {b, 1}}, "AAA", "AAR"},
		// b + 1 scores b, the window start b: ZREMRANGEBYSCORE -inf b trims it.
		{"float", "1/1s", [][2]int64{{b + 1, 1}, {b + sec, 1}}, "AA", "AR"},
	} {
		r := mustRule(t, tc.rule)
		key := fmt.Sprintf("tyk-%d", i)
		var got strings.Builder
		for _, q := range tc.reqs {
			ok, err := TykDo(ctx, c, ScriptTyk.Run, key, q[0], r.L, r.W/sec)
			if err != nil {
				t.Fatal(err)
			}
			got.WriteByte("RA"[btoi(ok)])
		}
		model := modelTimeline(t, "tyk", r, tc.reqs)
		without := modelTimeline(t, "tyk:without="+tc.deviation, r, tc.reqs)
		if got.String() != tc.want || model != tc.want || without != tc.without {
			t.Errorf("%s: the script decides %s, the model %s, without %s %s; want %s, %s", tc.deviation, got.String(), model, tc.deviation, without, tc.want, tc.without)
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// modelTimeline replays reqs on one key of spec, recording what it admits
// and, when it counts every request, everything.
func modelTimeline(t *testing.T, spec string, r algorithms.Rule, reqs [][2]int64) string {
	t.Helper()
	l, err := algorithms.New(spec, r)
	if err != nil {
		t.Fatal(err)
	}
	l.Grow(1)
	every := algorithms.CountsEvery(l)
	var out strings.Builder
	for _, q := range reqs {
		ok := l.Decide(0, q[0], q[1])
		if ok || every {
			l.Record(0, q[0], q[1])
		}
		out.WriteByte("RA"[btoi(ok)])
	}
	return out.String()
}

// TestTykScriptAtTheWindowEdge: on one key whose requests come in bursts
// of one nanosecond and W give or take a few hundred ns apart, near 2024
// in ns, Tyk's script decides every request as the model tyk. Under 1/1s
// each decision hangs on the newest entry, so the float deviation changes
// some; under 3/1s the same-ns deviation does.
func TestTykScriptAtTheWindowEdge(t *testing.T) {
	srv := StartForTest(t)
	c := goredis.NewClient(&goredis.Options{Addr: srv.Addr, Protocol: 2})
	defer c.Close()
	ctx := context.Background()
	for i, tc := range []struct{ rule, shows string }{{"1/1s", "float"}, {"3/1s", "same-ns"}} {
		r := mustRule(t, tc.rule)
		rng := rand.New(rand.NewPCG(31, uint64(i)))
		at := generators.DefaultStart
		var reqs [][2]int64
		for range 3000 {
			switch rng.IntN(4) {
			case 0: // the same nanosecond
			case 1:
				at += r.W + rng.Int64N(601) - 300
			default:
				at += rng.Int64N(r.W / 3)
			}
			reqs = append(reqs, [2]int64{at, 1})
		}
		var b strings.Builder
		key := fmt.Sprintf("edge-%d", i)
		for _, q := range reqs {
			ok, err := TykDo(ctx, c, ScriptTyk.Run, key, q[0], r.L, r.W/int64(time.Second))
			if err != nil {
				t.Fatal(err)
			}
			b.WriteByte("RA"[btoi(ok)])
		}
		got, model := b.String(), modelTimeline(t, "tyk", r, reqs)
		for j := range model {
			if got[j] != model[j] {
				t.Fatalf("%s: request %d at %d: the script decides %c, the model %c", tc.rule, j, reqs[j][0], got[j], model[j])
			}
		}
		without := modelTimeline(t, "tyk:without="+tc.shows, r, reqs)
		n := 0
		for j := range model {
			if model[j] != without[j] {
				n++
			}
		}
		t.Logf("%s: the script decides all %d requests as the model; without %s, %d differ", tc.rule, len(reqs), tc.shows, n)
		if n == 0 {
			t.Errorf("%s: without %s the model decides this trace alike: the test does not exercise it", tc.rule, tc.shows)
		}
	}
}

// rate-limiter-flexible's block is written a round trip after the consume
// that first went over: that refusal, and only it, carries the block's
// start on Redis's clock, no earlier than the millisecond the script read.
func TestRateLimiterFlexibleTellsTheBlocksStart(t *testing.T) {
	srv := StartForTest(t)
	target, variant, ok := live.Find("redis:rate-limiter-flexible:store=redis:blockDuration=1s")
	if !ok {
		t.Fatal("no target")
	}
	s, err := target.Start(context.Background(), mustRule(t, "2/1m"), live.LateBlockTrace(), live.Options{Variant: variant, Addr: srv.Addr})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := live.CheckLateBlock(context.Background(), s); err != nil {
		t.Error(err)
	}
}
