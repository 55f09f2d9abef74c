package node

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"ratebench/algorithms"
	"ratebench/algorithms/products"
	"ratebench/live"
	"ratebench/live/driver"
	liveredis "ratebench/live/redis"
)

// The other Node products, each run by the driver on its own options
// (driver.cjs):
//
//   - rate-limiter-flexible: RateLimiterMemory({points: L, duration: W
//     in seconds[, blockDuration: D in seconds]}), consume(key, cost),
//     Date and its timers driven; its costs are sent.
//   - rate-limiter-flexible:store=redis: RateLimiterRedis on node-redis
//     and a redis-server the session starts, in real time on Redis's
//     clock, each request given the millisecond the store's script read
//     (as express-rate-limit:store=redis).
//   - nestjs-throttler: ThrottlerStorageService.increment(key, ttl: W in
//     ms, limit: L, blockDuration, 'default'), refused iff isBlocked, Date
//     and its sweep driven.
//   - fastify-rate-limit: @fastify/rate-limit on a Fastify app, {max: L,
//     timeWindow: W in ms[, continueExceeding: true]}, each request a GET
//     through app.inject, Date driven.
//
// Each target's variant is its product's parameters, as the model's spec
// writes them after the product's name.
type nodeProduct struct {
	name     string // the target, and its model's spec without parameters
	model    string // the model's spec the variant is appended to
	driver   string // the driver's mode
	packages []string
	minNode  int
	redis    bool
	// config is the product's options for the driver, from its model.
	config func(m algorithms.Limiter, r algorithms.Rule) any
}

var nodeProducts = []nodeProduct{
	{name: "rate-limiter-flexible", model: "rate-limiter-flexible", driver: "rate-limiter-flexible",
		packages: []string{"rate-limiter-flexible", "@sinonjs/fake-timers"}, minNode: 18, config: rlfConfig},
	{name: "rate-limiter-flexible:store=redis", model: "rate-limiter-flexible:store=redis", driver: "rate-limiter-flexible-redis",
		packages: []string{"rate-limiter-flexible", "redis"}, minNode: 20, redis: true, config: rlfConfig},
	{name: "nestjs-throttler", model: "nestjs-throttler", driver: "nestjs-throttler",
		packages: []string{"@nestjs/throttler", "@nestjs/common", "reflect-metadata", "@sinonjs/fake-timers"}, minNode: 20,
		config: func(m algorithms.Limiter, r algorithms.Rule) any {
			ms := float64(time.Millisecond)
			return map[string]any{"ttl": float64(r.W) / ms, "limit": r.L, "blockDuration": float64(m.(*products.NestThrottler).BlockDuration()) / ms}
		}},
	{name: "fastify-rate-limit", model: "fastify-rate-limit", driver: "fastify-rate-limit",
		packages: []string{"@fastify/rate-limit", "fastify", "@sinonjs/fake-timers"}, minNode: 20,
		config: func(m algorithms.Limiter, r algorithms.Rule) any {
			f := m.(*products.FastifyRateLimit)
			return map[string]any{"max": r.L, "timeWindow": float64(r.W) / float64(time.Millisecond), "continueExceeding": f.ContinueExceeding()}
		}},
}

// rlfConfig is rate-limiter-flexible's options: points, duration and
// blockDuration in seconds, as decimal JavaScript numbers.
func rlfConfig(m algorithms.Limiter, r algorithms.Rule) any {
	c := map[string]any{"points": r.L, "duration": float64(r.W) / float64(time.Second)}
	if d := m.(*products.RateLimiterFlexible).BlockDuration(); d > 0 {
		c["blockDuration"] = float64(d) / float64(time.Second)
	}
	return c
}

func init() {
	for _, p := range nodeProducts {
		req := "Node.js " + fmt.Sprint(p.minNode) + " or later and npm (apt-get install nodejs npm) and the npm packages of live/node (" + Install + ")"
		t := live.Target{Name: p.name, Requires: req, Costs: p.name != "nestjs-throttler" && p.name != "fastify-rate-limit",
			Version: func(ctx context.Context, o live.Options) (string, error) {
				if _, err := p.spec(algorithms.Rule{L: 1, W: int64(time.Minute)}, o); err != nil {
					return "", err
				}
				_, _, what, err := installedPackages(ctx, o, p.packages, p.minNode, req)
				return what, err
			},
			Model: func(r algorithms.Rule, o live.Options) (string, error) { return p.spec(r, o) },
			Start: func(ctx context.Context, r algorithms.Rule, _ *live.Trace, o live.Options) (live.Session, error) {
				return p.start(ctx, r, o, req)
			}}
		switch p.name {
		case "rate-limiter-flexible":
			t.About = "rate-limiter-flexible's RateLimiterMemory, in a node process whose Date and timers follow the trace"
			t.Driven, t.Variants, t.Checks = true, []string{"", "store=memory", "blockDuration=D"}, []string{""}
		case "rate-limiter-flexible:store=redis":
			t.About = "rate-limiter-flexible's RateLimiterRedis on node-redis, in a node process, on a redis-server on a loopback port, in real time"
			t.Requires += ", and redis-server (apt-get install redis-server)"
			t.Variants, t.Checks = []string{"", "blockDuration=D"}, []string{""}
		case "nestjs-throttler":
			t.About = "@nestjs/throttler's ThrottlerStorageService, in a node process whose Date and timers follow the trace"
			t.Driven, t.Variants, t.Checks = true, []string{"", "blockDuration=D"}, []string{""}
		case "fastify-rate-limit":
			t.About = "@fastify/rate-limit on a Fastify app through inject, in a node process whose Date follows the trace"
			t.Driven, t.Variants, t.Checks = true, []string{"", "continue-exceeding"}, []string{"", "continue-exceeding"}
		}
		live.Register(t)
	}
}

// spec is the model's spec for the variant o names: the product's own
// parameters; it must build for r and stay this target's product.
func (p nodeProduct) spec(r algorithms.Rule, o live.Options) (string, error) {
	s := p.model
	if v := strings.TrimSpace(o.Variant); v != "" && v != "store=memory" {
		s += ":" + v
	}
	m, err := algorithms.New(s, r)
	if err != nil {
		return "", err
	}
	if f, ok := m.(*products.RateLimiterFlexible); ok && f.Redis() != p.redis {
		return "", fmt.Errorf("%s: the Redis store runs on Redis's clock: it is the target rate-limiter-flexible:store=redis", p.name)
	}
	if strings.Contains(m.Name(), ":without=") {
		return "", fmt.Errorf("%s: the variant %q turns a deviation off, which the real software cannot", p.name, o.Variant)
	}
	return m.Name(), nil
}

// start runs the driver on the product's options (and for the Redis
// store, a redis-server).
func (p nodeProduct) start(ctx context.Context, r algorithms.Rule, o live.Options, req string) (live.Session, error) {
	spec, err := p.spec(r, o)
	if err != nil {
		return nil, err
	}
	m, err := algorithms.New(spec, r)
	if err != nil {
		return nil, err
	}
	node, prefix, _, err := installedPackages(ctx, o, p.packages, p.minNode, req)
	if err != nil {
		return nil, err
	}
	config, err := json.Marshal(p.config(m, r))
	if err != nil {
		return nil, err
	}
	s := &session{}
	args := []string{prefix, p.driver, string(config)}
	if p.redis {
		if s.server, err = liveredis.Start(ctx, ""); err != nil {
			return nil, err
		}
		args = append(args, s.server.Addr)
	}
	o.Logf("starting %s on the driver, %s %s", node, p.driver, config)
	if s.p, err = driver.Start(driver.Spec{Name: "the node driver", Program: node, Script: driverScript, ScriptName: "driver.cjs", Args: args}); err != nil {
		s.Close()
		return nil, err
	}
	if ans, err := s.p.Ready(ctx); err != nil || ans != "ready" {
		s.Close()
		if err == nil {
			err = fmt.Errorf("the node driver said %q, not ready", ans)
		}
		return nil, err
	}
	return s, nil
}
