package node

import (
	"context"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"ratebench/algorithms"
	"ratebench/live"
	liveredis "ratebench/live/redis"
)

// The acceptance check of each driven Node product: the real package, its
// clock driven by the trace, decides every request of the check's trace
// under 5/1s as the model does (rate-limiter-flexible also with the
// check's costs, which its consume takes).
func TestNodeProductsAgreeOnTheCheckTrace(t *testing.T) {
	for _, c := range []struct {
		target, variant string
		tr              *live.Trace
	}{
		{"rate-limiter-flexible", "", live.Bursty3Keys()},
		{"rate-limiter-flexible", "", live.Bursty3KeysWithCosts()},
		{"rate-limiter-flexible", "blockDuration=2s", live.Bursty3KeysWithCosts()},
		{"nestjs-throttler", "", live.Bursty3Keys()},
		{"nestjs-throttler", "blockDuration=0s", live.Bursty3Keys()},
		{"fastify-rate-limit", "", live.Bursty3Keys()},
		{"fastify-rate-limit", "continue-exceeding", live.Bursty3Keys()},
	} {
		agree, refused, diff := run(t, c.target, live.CheckRule, c.tr, live.Options{Variant: c.variant})
		if agree != int64(len(c.tr.T)) {
			t.Errorf("%s:%s, costs %v: the model agrees on %d of %d requests: %s", c.target, c.variant, c.tr.Cost != nil, agree, len(c.tr.T), diff())
		}
		if refused == 0 {
			t.Errorf("%s:%s: nothing refused", c.target, c.variant)
		}
	}
}

// The driven products on traces along the windows', the blocks' and the
// milliseconds' edges, from the epoch and from a Unix time: every request
// decided as the model does. A window of 1.0009999 s near 1.7e12 ms shows
// the float64 sums of expiries (rate-limiter-flexible's duration*1000,
// nestjs's ttl), 1.5 ms fastify's truncated timeWindow, blocks shorter and
// longer than the window the block's end and what it forgets.
func TestNodeProductsAgreeOnEdges(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 27))
	const unix = 1_700_000_000_000_123_456
	for _, c := range []struct {
		target, variant string
		rule            algorithms.Rule
		start           int64
	}{
		{"rate-limiter-flexible", "", algorithms.Rule{L: 3, W: int64(time.Second)}, 0},
		{"rate-limiter-flexible", "", algorithms.Rule{L: 2, W: 1000999900}, unix},
		{"rate-limiter-flexible", "", algorithms.Rule{L: 2, W: 1500 * int64(time.Microsecond)}, unix},
		{"rate-limiter-flexible", "blockDuration=300ms", algorithms.Rule{L: 3, W: int64(time.Second)}, unix},
		{"rate-limiter-flexible", "blockDuration=2500ms", algorithms.Rule{L: 2, W: int64(time.Second)}, 0},
		{"nestjs-throttler", "", algorithms.Rule{L: 3, W: int64(time.Second)}, 0},
		{"nestjs-throttler", "", algorithms.Rule{L: 2, W: 1000999900}, unix},
		{"nestjs-throttler", "blockDuration=0s", algorithms.Rule{L: 2, W: 1500 * int64(time.Microsecond)}, unix},
		{"nestjs-throttler", "blockDuration=300ms", algorithms.Rule{L: 3, W: int64(time.Second)}, unix},
		{"fastify-rate-limit", "", algorithms.Rule{L: 3, W: int64(time.Second)}, 0},
		{"fastify-rate-limit", "", algorithms.Rule{L: 2, W: 1500 * int64(time.Microsecond)}, unix},
		{"fastify-rate-limit", "continue-exceeding", algorithms.Rule{L: 3, W: int64(250 * time.Millisecond)}, unix},
	} {
		tr := edgeTrace(rng, c.rule, 3, 600, c.start)
		agree, refused, diff := run(t, c.target, c.rule.String(), tr, live.Options{Variant: c.variant})
		if agree != int64(len(tr.T)) {
			t.Errorf("%s:%s %v from %d: the model agrees on %d of %d requests: %s", c.target, c.variant, c.rule, c.start, agree, len(tr.T), diff())
		}
		if refused == 0 || refused == int64(len(tr.T)) {
			t.Errorf("%s:%s %v: %d refused of %d: the trace does not exercise the limit", c.target, c.variant, c.rule, refused, len(tr.T))
		}
	}
}

// RateLimiterRedis on a real redis-server, in real time: each request is
// given the millisecond the store's script read Redis's clock at, and is
// decided as the model decides on those times, on the check's trace, with
// its costs, and with a block of 1 s (whole seconds, as EX takes it).
func TestRateLimiterFlexibleRedisAgreesOnTheCheckTrace(t *testing.T) {
	r, _ := algorithms.ParseRule(live.CheckRule)
	for _, c := range []struct {
		variant string
		tr      *live.Trace
	}{{"", live.Bursty3Keys()}, {"", live.Bursty3KeysWithCosts()}, {"blockDuration=1s", live.Bursty3Keys()}} {
		res, err := live.Run(context.Background(), target(t, "rate-limiter-flexible:store=redis"), r, c.tr, live.Options{Variant: c.variant})
		if err != nil {
			t.Fatal(err)
		}
		if res.Model.Agree != int64(len(c.tr.T)) {
			t.Fatalf("%q, costs %v: the model agrees on %d of %d requests: %s, first differences %+v", c.variant, c.tr.Cost != nil, res.Model.Agree, len(c.tr.T), res.Software, res.Differences)
		}
		if res.Refused == 0 {
			t.Fatal("nothing refused")
		}
	}
}

// A variant is the product's own parameters: one the model refuses, one
// that turns a deviation off, or the Redis store on the memory target, is
// refused before anything starts.
func TestNodeProductsRefuseOtherVariants(t *testing.T) {
	r, _ := algorithms.ParseRule("5/1s")
	for _, c := range []struct{ target, variant string }{
		{"rate-limiter-flexible", "store=redis"},
		{"rate-limiter-flexible", "without=anchor"},
		{"rate-limiter-flexible:store=redis", "blockDuration=500ms"},
		{"nestjs-throttler", "ttl=1s"},
		{"fastify-rate-limit", "continueExceeding"},
	} {
		if _, err := target(t, c.target).Model(r, live.Options{Variant: c.variant}); err == nil {
			t.Errorf("%s, variant %s: no error", c.target, c.variant)
		}
	}
}

// The Redis replay of live/redis runs the very script the installed
// rate-limiter-flexible EVALs (incrTtlLuaScript, its template literal
// read by node): their SHA1s are equal.
func TestRateLimiterFlexibleRedisRunsTheReplayedScript(t *testing.T) {
	prefix := mustPrefix(t)
	src := filepath.Join(prefix, "node_modules", "rate-limiter-flexible", "lib", "RateLimiterRedis.js")
	out, err := exec.Command("node", "-e", "const m = require('fs').readFileSync(process.argv[1], 'utf8').match(/const incrTtlLuaScript = (`[^`]*`);/); process.stdout.write(require('crypto').createHash('sha1').update(eval(m[1])).digest('hex'))", src).Output()
	if err != nil {
		t.Fatalf("reading the script of %s: %v", src, err)
	}
	if got := string(out); got != liveredis.RateLimiterFlexibleSHA1 {
		t.Errorf("the package's script is %s, the Redis replay runs %s", got, liveredis.RateLimiterFlexibleSHA1)
	}
}

// RateLimiterRedis writes its block in a MULTI a round trip after the
// consume that first went over: that refusal, and only it, carries the
// block's start, no earlier than the millisecond the script read.
func TestRateLimiterFlexibleRedisTellsTheBlocksStart(t *testing.T) {
	r, _ := algorithms.ParseRule("2/1m")
	s, err := target(t, "rate-limiter-flexible:store=redis").Start(context.Background(), r, live.LateBlockTrace(), live.Options{Variant: "blockDuration=1s"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := live.CheckLateBlock(context.Background(), s); err != nil {
		t.Error(err)
	}
}
