package redis

import (
	"context"
	"fmt"
	"os/exec"
	"strings"

	"ratebench/algorithms"
	"ratebench/internal/childproc"
	"ratebench/live"
)

// requires is what the targets need installed.
const requires = "redis-server, the Debian package redis-server (apt-get install -y redis-server)"

func init() {
	live.Register(live.Target{Name: "redis",
		About:    "a Lua script (or round trips) in a redis-server of its own on a loopback port, run per request with the trace's time: SCRIPT is " + strings.Join(Algorithms, ", ") + "[:B=N], or a product's code: " + strings.Join(Products, ", "),
		Requires: requires, Driven: true, Clients: true, Costs: true,
		Variants: append(append([]string{}, Algorithms...), Products...),
		Checks:   []string{"spring-gateway", "tyk"},
		Version:  version(""), Model: model(""), Start: start("")})
	live.Register(live.Target{Name: "redis:redis_rate",
		About:    "go-redis/redis_rate v10.0.1's allowN script, verbatim, in a redis-server on a loopback port, in real time on Redis TIME",
		Requires: requires, Clients: true, Costs: true, Variants: []string{"", "burst=N"},
		Version: version("redis_rate"), Model: model("redis_rate"), Start: start("redis_rate")})
	live.Register(live.Target{Name: "redis:express-rate-limit:store=redis",
		About:    "rate-limit-redis 6.0.1's increment script, verbatim, in a redis-server on a loopback port, in real time on Redis's clock",
		Requires: requires, Clients: true, Variants: []string{""},
		Version: version("express-rate-limit:store=redis"), Model: model("express-rate-limit:store=redis"), Start: start("express-rate-limit:store=redis")})
	live.Register(live.Target{Name: "redis:rate-limiter-flexible:store=redis",
		About:    "rate-limiter-flexible 11.4.0's incrTtlLuaScript, verbatim, and its block's SET, in a redis-server on a loopback port, in real time on Redis's clock",
		Requires: requires, Clients: true, Costs: true, Variants: []string{"", "blockDuration=D"},
		Version: version("rate-limiter-flexible:store=redis"), Model: model("rate-limiter-flexible:store=redis"), Start: start("rate-limiter-flexible:store=redis")})
}

// spec is the algorithm o asks of the target for product: the variant
// for the target redis, else the product and the variant.
func spec(product string, o live.Options) (string, error) {
	switch {
	case product != "" && o.Variant != "":
		return product + ":" + o.Variant, nil
	case product != "":
		return product, nil
	case o.Variant == "":
		return "", fmt.Errorf("live redis: name the script, as redis:SCRIPT: %s[:B=N], %s; or the target redis:redis_rate, redis:express-rate-limit:store=redis or redis:rate-limiter-flexible:store=redis",
			strings.Join(Algorithms, ", "), strings.Join(Products, ", "))
	}
	return o.Variant, nil
}

// model returns a Target.Model: the spec of the script's model.
func model(product string) func(r algorithms.Rule, o live.Options) (string, error) {
	return func(r algorithms.Rule, o live.Options) (string, error) {
		a, err := algorithmOf(product, r, o)
		return a.model, err
	}
}

// algorithmOf is the algorithm the target for product runs under r.
func algorithmOf(product string, r algorithms.Rule, o live.Options) (algorithm, error) {
	s, err := spec(product, o)
	if err != nil {
		return algorithm{}, err
	}
	a, err := parseAlgorithm(s, r)
	if err != nil {
		return algorithm{}, fmt.Errorf("live redis: %w", err)
	}
	if a.live != (product != "") {
		return algorithm{}, fmt.Errorf("live redis: %s reads Redis's clock: it is the target redis:%s, replayed in real time", s, s)
	}
	return a, nil
}

// scripts names what each algorithm runs, for the software's name.
var scripts = map[string]string{
	"log":                            "the sliding-window log as a Lua script of ratebench's",
	"counter":                        "the sliding-window counter as a Lua script of ratebench's",
	"counter-nonatomic":              "the sliding-window counter read, then incremented, in two round trips",
	"fixed":                          "the fixed window as a Lua script of ratebench's",
	"token":                          "the token bucket as a Lua script of ratebench's",
	"upstash":                        "@upstash/ratelimit's slidingWindowLimitScript at 5b5448a",
	"upstash-fixed":                  "@upstash/ratelimit's fixedWindowLimitScript at 5b5448a",
	"envoy":                          "envoyproxy/ratelimit's INCRBY and EXPIRE",
	"kong":                           "Kong's rate-limiting read, then increment",
	"spring-gateway":                 "Spring Cloud Gateway's request_rate_limiter.lua at 5227205",
	"tyk":                            "Tyk's internal/rate/scripts/sliding_log_add.lua at 31e219b",
	FlaskMovingRedis:                 "limits 2.8.0's acquire_moving_window.lua",
	"redis_rate":                     "go-redis/redis_rate v10.0.1's allowN script",
	"express-rate-limit:store=redis": "rate-limit-redis 6.0.1's increment script",
	"rate-limiter-flexible":          "rate-limiter-flexible 11.4.0's incrTtlLuaScript",
}

// scriptOf names what the target for product runs under o.
func scriptOf(product string, o live.Options) string {
	s, err := spec(product, o)
	if err != nil {
		return ""
	}
	if d, ok := scripts[s]; ok {
		return d
	}
	name, _, _ := strings.Cut(s, ":")
	return scripts[name]
}

// version returns a Target.Version naming the server's version and the
// script: redis-server's (--version), or with Options.Addr the running
// server's (INFO).
func version(product string) func(ctx context.Context, o live.Options) (string, error) {
	return func(ctx context.Context, o live.Options) (string, error) {
		v, err := serverVersion(ctx, o)
		if err != nil {
			return "", err
		}
		if s := scriptOf(product, o); s != "" {
			v += ", " + s
		}
		return v, nil
	}
}

// serverVersion is "Redis 7.0.15": the program's the session starts, or
// the running server's at o.Addr.
func serverVersion(ctx context.Context, o live.Options) (string, error) {
	if o.Addr != "" {
		c := newClient(o.Addr, 1)
		defer c.Close()
		info, err := readServer(ctx, c)
		if err != nil {
			return "", fmt.Errorf("redis at %s: %w", o.Addr, err)
		}
		return "Redis " + info.version, nil
	}
	bin := o.Binary
	if bin == "" {
		bin = ServerBinary
	}
	path, err := exec.LookPath(bin)
	if err != nil {
		return "", fmt.Errorf("%s not found (%v): install %s", bin, err, requires)
	}
	out, err := childproc.Probe(ctx, path, "--version")
	if childproc.Stopped(err) {
		return "", err
	}
	if err != nil {
		return "", fmt.Errorf("%s --version: %v", path, err)
	}
	// "Redis server v=7.0.15 sha=..."
	v := strings.TrimSpace(string(out))
	for _, f := range strings.Fields(v) {
		if s, ok := strings.CutPrefix(f, "v="); ok {
			return "Redis " + s, nil
		}
	}
	return v, nil
}
