// Package redis registers the live targets whose real software is a
// product's own Redis script: each session starts a redis-server of its
// own (redisreplay.Start, on a free loopback port), runs the product's
// script verbatim for each request the way the product's client runs it,
// with the trace's time in place of the clock the product reads (the
// clock is driven), and stops the server when it closes.
//
//   - tyk: Tyk Gateway's internal/rate/scripts/sliding_log_add.lua
//     (redisreplay.ScriptTyk) on the key rate-limit-KEY, with ARGV = {now,
//     now - per, rate, per} as SlidingLog.SetCountScript passes them, now
//     the trace's time in ns; blocked iff the count returned exceeds
//     rate - 1 (see products.Tyk).
//   - spring-gateway: Spring Cloud Gateway's request_rate_limiter.lua
//     (redisreplay.ScriptSpringGateway) on request_rate_limiter.{KEY}.tokens
//     and .timestamp, with replenishRate, burstCapacity, the trace's whole
//     seconds for the time (where the Java side passes "" so that the
//     script reads Redis TIME's seconds) and requestedTokens (see
//     products.SpringGateway).
package redis

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"

	"ratebench/algorithms"
	"ratebench/algorithms/products"
	"ratebench/internal/childproc"
	"ratebench/live"
	"ratebench/redisreplay"
)

// requires is what the targets need installed.
const requires = "redis-server, the Debian package redis-server (apt-get install -y redis-server)"

func init() {
	live.Register(live.Target{
		Name:     "tyk",
		About:    "Tyk Gateway's sliding_log_add.lua, verbatim, in a redis-server on a loopback port, run per request with the trace's time in ns",
		Requires: requires,
		Driven:   true,
		Variants: []string{""},
		Version:  version("Tyk's internal/rate/scripts/sliding_log_add.lua at 31e219b"),
		Model: func(r algorithms.Rule, o live.Options) (string, error) {
			if _, err := products.NewTyk(r); err != nil {
				return "", err
			}
			return "tyk", nil
		},
		Start: func(ctx context.Context, r algorithms.Rule, o live.Options) (live.Session, error) {
			if _, err := products.NewTyk(r); err != nil {
				return nil, err
			}
			rate, per := r.L, r.W/int64(time.Second)
			return start(ctx, o, func(ctx context.Context, c *goredis.Client, key string, t int64) (bool, error) {
				return redisreplay.TykDo(ctx, c, redisreplay.ScriptTyk.Run, "rate-limit-"+key, t, rate, per)
			})
		},
	})
	live.Register(live.Target{
		Name:     "spring-gateway",
		About:    "Spring Cloud Gateway's request_rate_limiter.lua, verbatim, in a redis-server on a loopback port, run per request with the trace's whole seconds for Redis TIME's",
		Requires: requires,
		Driven:   true,
		Variants: []string{""},
		Version:  version("Spring Cloud Gateway's request_rate_limiter.lua at 5227205"),
		Model: func(r algorithms.Rule, o live.Options) (string, error) {
			if _, err := products.NewSpringGateway(r); err != nil {
				return "", err
			}
			return "spring-gateway", nil
		},
		Start: func(ctx context.Context, r algorithms.Rule, o live.Options) (live.Session, error) {
			sg, err := products.NewSpringGateway(r)
			if err != nil {
				return nil, err
			}
			rate, requested, capacity := sg.Config()
			return start(ctx, o, func(ctx context.Context, c *goredis.Client, key string, t int64) (bool, error) {
				// RedisRateLimiter.getKeys: request_rate_limiter.{id}.tokens
				// and .timestamp; isAllowed's arguments, the time the
				// trace's whole seconds (t >= 0).
				prefix := "request_rate_limiter.{" + key + "}"
				v, err := redisreplay.ScriptSpringGateway.Run(ctx, c, []string{prefix + ".tokens", prefix + ".timestamp"},
					rate, capacity, t/int64(time.Second), requested).Int64Slice()
				if err != nil {
					return false, err
				}
				if len(v) != 2 {
					return false, fmt.Errorf("spring-gateway script: %d values in the reply, want 2", len(v))
				}
				return v[0] == 1, nil
			})
		},
	})
}

// version returns a Target.Version naming redis-server's version and the
// script.
func version(script string) func(ctx context.Context, o live.Options) (string, error) {
	return func(ctx context.Context, o live.Options) (string, error) {
		bin := o.Binary
		if bin == "" {
			bin = redisreplay.ServerBinary
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
				v = "Redis " + s
				break
			}
		}
		return v + ", " + script, nil
	}
}

// session is one redis-server of the session's own and a client to it;
// do runs the product's script for one request.
type session struct {
	srv    *redisreplay.Server
	client *goredis.Client
	do     func(ctx context.Context, c *goredis.Client, key string, t int64) (bool, error)
}

// start starts redis-server (o.Binary or redis-server from $PATH) and
// connects to it.
func start(ctx context.Context, o live.Options, do func(context.Context, *goredis.Client, string, int64) (bool, error)) (*session, error) {
	srv, err := redisreplay.Start(ctx, o.Binary)
	if err != nil {
		return nil, err
	}
	o.Logf("redis-server at %s", srv.Addr)
	c := goredis.NewClient(&goredis.Options{
		Addr:                     srv.Addr,
		PoolSize:                 1,
		DisableIdentity:          true,
		Protocol:                 2,
		MaintNotificationsConfig: &maintnotifications.Config{Mode: maintnotifications.ModeDisabled},
	})
	if err := c.Ping(ctx).Err(); err != nil {
		c.Close()
		srv.Stop()
		return nil, fmt.Errorf("redis-server at %s: %w", srv.Addr, err)
	}
	return &session{srv: srv, client: c, do: do}, nil
}

// Decide runs the script for key at trace time t; the clock is driven,
// so the software decided at t.
func (s *session) Decide(ctx context.Context, key string, t int64) (bool, int64, error) {
	if t < 0 {
		return false, 0, fmt.Errorf("time %d ns before the epoch: the products' clocks do not go there", t)
	}
	ok, err := s.do(ctx, s.client, key, t)
	return ok, t, err
}

// Close closes the client and stops the server (and removes its
// directory).
func (s *session) Close() error {
	return errors.Join(s.client.Close(), s.srv.Stop())
}
