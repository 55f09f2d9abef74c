package redis

import (
	"context"
	_ "embed"
	"fmt"
	"strconv"
	"sync"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"ratebench/algorithms"
	"ratebench/algorithms/products"
	"ratebench/live"
)

// The products' own Redis code, replayed against the models of package
// algorithms (upstash.go, envoy.go, redis_rate.go, kong.go: their doc
// comments cite the sources line by line).
//
//   - upstash, upstash-fixed: the Lua scripts of @upstash/ratelimit
//     (github.com/upstash/ratelimit-js at commit
//     5b5448a5f0bae809cd624a7c639771a8b2e227cb, src/lua-scripts/single.ts:
//     slidingWindowLimitScript and fixedWindowLimitScript), copied byte for
//     byte into lua/upstash_sliding.lua and lua/upstash_fixed.lua: their
//     SHA1s are the hashes src/lua-scripts/hash.ts gives them (977fb636...
//     and 472e5544..., checked by a test), so EVALSHA runs the product's
//     very scripts. The client's side is single.ts's limit (lines 160-223,
//     278-344): Date.now() is the trace's time floored to whole ms (not
//     rebased: the product's keys are identifier:floor(now/window)), the
//     dynamic-limit key is "" (dynamicLimits off, the default), and the
//     ephemeral cache (cache.ts), on by default, is kept by the client as
//     the product keeps it: a refused identifier is blocked until the
//     reset the call returned, while reset >= Date.now(). The cache is one
//     per replay, shared by its clients, as one application process's.
//   - envoy: the Redis backend of envoyproxy/ratelimit
//     (src/redis/fixed_cache_impl.go:36-38, 161-187): INCRBY key hits and
//     EXPIRE key divider, pipelined, on the key ending with the epoch-
//     aligned window start (src/limiter/cache_key.go:81-82); the client
//     refuses when the INCRBY result exceeds the limit
//     (src/limiter/base_limiter.go:104). The local over-limit cache is off,
//     as by default (LOCAL_CACHE_SIZE_IN_BYTES 0).
//   - redis_rate: go-redis/redis_rate/v10 v10.0.1's allowN script (lua.go),
//     copied byte for byte into lua/redis_rate.lua (a test checks that the
//     library's own AllowN loads a script of the same SHA1). It reads Redis
//     TIME, so it is replayed live (the target redis:redis_rate); it runs inside a small
//     wrapper that hands it, as redis, a proxy keeping the TIME it read,
//     returned after its own reply: the model is fed that very time.
//   - kong: the rate-limiting plugin's decision (handler.lua:89-114, 126-216):
//     read the usage (GET), decide usage < limit, then, if admitted, the
//     increment in a second round trip (INCRBY key 1, EXPIRE key
//     EXPIRATION[period] NX: shm:incr's init_ttl), on the key ending with
//     the period's start in ms and the period (policies/init.lua:68-73). This
//     is the local policy's sequence carried out on Redis; Kong's own redis
//     policy with sync_rate -1 counts in one atomic EVAL of INCR instead,
//     every request included, which is not what the model kong models.
//   - spring-gateway: Spring Cloud Gateway's request_rate_limiter.lua
//     (spring-cloud/spring-cloud-gateway at commit
//     5227205c743d6d2b743bedf2f58cc76c65ca7408,
//     spring-cloud-gateway-server-webflux/src/main/resources/META-INF/
//     scripts/request_rate_limiter.lua), copied byte for byte into
//     lua/spring_gateway.lua, on the client's .tokens and .timestamp keys
//     (RedisRateLimiter's request_rate_limiter.{id}.tokens and .timestamp),
//     with the route's replenishRate, burstCapacity and
//     requestedTokens (times the request's cost) as RedisRateLimiter.java
//     passes them (isAllowed, line 265). RedisRateLimiter passes "" for the
//     time, so that the script reads Redis TIME's seconds
//     (tonumber(ARGV[3]) or redis.call('TIME')[1]); the replay passes the
//     trace's whole seconds there instead, the time a server whose clock
//     is the trace's would return.
//   - express-rate-limit:store=redis: rate-limit-redis 6.0.1's increment
//     script (the npm package's dist/index.cjs, lines 6-17: the template
//     with its leading whitespace stripped and trimmed, as the store
//     loads it), copied byte for byte into lua/rate_limit_redis.lua: its
//     SHA1 is the one the store's SCRIPT LOAD returns (checked by a test
//     here, and against the store itself by the live check of live/node).
//     Its ARGV is windowMs (lib.ts's retryableIncrement), and the
//     middleware refuses when the count it returns exceeds the limit.
//     The script reads Redis's own clock (PTTL, and SET ... PX), so it is
//     replayed live, as redis_rate. It runs inside a wrapper that reads
//     TIME first (which orders the decisions), then runs the script, and
//     returns the milliseconds the script's clock read, which the model is
//     fed: PEXPIRETIME of the key less the time to expire the script
//     returned (Redis 7's PTTL and SET read the live clock, mstime(), a
//     little after TIME: on a busy machine, after another millisecond).
//     The product counts one hit per request: a trace with other costs is
//     refused.
//   - tyk: Tyk Gateway's rolling-window limiter, internal/rate/scripts/
//     sliding_log_add.lua (TykTechnologies/tyk at commit
//     31e219bebd5598ae9cce67c9b494cebba941f4a4), copied byte for byte into
//     lua/tyk_sliding_log_add.lua (a test checks its git blob id), run on
//     the key's sorted set with ARGV = {now, now - per, rate, per} as
//     SlidingLog.SetCountScript passes them (internal/rate/
//     sliding_log.go:198-214): now the trace's time in ns as a decimal
//     string (the gateway's time.Now().UnixNano(), not rebased: the
//     scores' float64 rounding is the product's), rate L and per W in
//     seconds; the gateway blocks iff the count returned exceeds rate - 1
//     (gateway/session_manager.go:153). The request's cost is not sent:
//     Tyk logs one member per request.
//   - flask-limiter:strategy=moving:storage=redis: limits 2.8.0's
//     acquire_moving_window.lua (alisaifee/limits at tag 2.8.0, commit
//     9ee3d6886c3a2d6fe5a89fe4c589f6ed09617f64, limits/resources/redis/
//     lua_scripts/acquire_moving_window.lua, git blob 9d2d7add), copied
//     byte for byte into lua/limits_acquire_moving_window.lua, with ARGV
//     as RedisInteractor._acquire_entry passes them (limits/storage/
//     redis.py:97-100): time.time() at the trace's time (as redis-py writes
//     a float, its shortest round-trip decimal), the limit L, the expiry W
//     in whole seconds and the cost. The script pushes the client's
//     timestamps; its key's EXPIRE W, on the server's clock, drops a list
//     only after W without an admission, whose entries count no more.
//
// The products' key lifetimes are their own (upstash: window or 2*window +
// 1 s in ms, envoy and kong: the unit, tyk: per from each request), on the server's clock: a replay
// faster than its trace outlives none of them within a window, but a
// window whose requests take longer than that to replay would lose its
// count (the replay notes it).
var (
	//go:embed lua/upstash_sliding.lua
	luaUpstashSliding string
	//go:embed lua/upstash_fixed.lua
	luaUpstashFixed string
	//go:embed lua/redis_rate.lua
	luaRedisRate string
	//go:embed lua/spring_gateway.lua
	luaSpringGateway string
	//go:embed lua/rate_limit_redis.lua
	luaRateLimitRedis string
	//go:embed lua/tyk_sliding_log_add.lua
	luaTyk string
	//go:embed lua/rate_limiter_flexible.lua
	luaRateLimiterFlexible string

	// ScriptRateLimiterFlexible is rate-limiter-flexible 11.4.0's
	// incrTtlLuaScript after a read of TIME; it returns the script's reply
	// (the points consumed and the time to expire), the time in ms the
	// script's clock read (the key's expiry less the time to expire: its
	// PTTL, or 1000*secDuration when it set the expiry itself) and TIME's
	// seconds and microseconds.
	ScriptRateLimiterFlexible = goredis.NewScript(`-- ratebench: rate-limiter-flexible 11.4.0's incrTtlLuaScript, verbatim; the TIME before it and the clock it read
local now = redis.call("TIME")
local reply = (function()
` + luaRateLimiterFlexible + `
end)()
return {reply[1], reply[2], redis.call("PEXPIRETIME", KEYS[1]) - reply[2], now[1], now[2]}
`)

	// ScriptTyk is Tyk's internal/rate/scripts/sliding_log_add.lua.
	ScriptTyk = goredis.NewScript(luaTyk)
	//go:embed lua/limits_acquire_moving_window.lua
	luaLimitsMovingWindow string

	// ScriptLimitsMovingWindow is limits' acquire_moving_window.lua, the
	// moving window of Flask-Limiter on Redis.
	ScriptLimitsMovingWindow = goredis.NewScript(luaLimitsMovingWindow)

	// ScriptSpringGateway is Spring Cloud Gateway's request_rate_limiter.lua.
	ScriptSpringGateway = goredis.NewScript(luaSpringGateway)

	// ScriptRateLimitRedis is rate-limit-redis's increment script after a
	// read of TIME; it returns the script's reply (the count and the time
	// to expire), the time in ms the script's clock read, and TIME's
	// seconds and microseconds. The script reads the clock in PTTL (and
	// SET ... PX), live, a little after TIME; the key's expiry less the
	// time to expire the script returns is that very reading: when - (when
	// - now) when it counted (PTTL > 0), and (now + windowMs) - windowMs
	// when it set the key anew.
	ScriptRateLimitRedis = goredis.NewScript(`-- ratebench: rate-limit-redis 6.0.1's increment script, verbatim; the TIME before it and the clock it read
local now = redis.call("TIME")
local reply = (function()
` + luaRateLimitRedis + `
end)()
return {reply[1], reply[2], redis.call("PEXPIRETIME", KEYS[1]) - reply[2], now[1], now[2]}
`)

	ScriptUpstashSliding = goredis.NewScript(luaUpstashSliding)
	ScriptUpstashFixed   = goredis.NewScript(luaUpstashFixed)
	// ScriptRedisRate is redis_rate's allowN run with a redis whose call
	// keeps the TIME the script reads; it returns allowN's reply followed
	// by TIME's seconds and microseconds.
	ScriptRedisRate = goredis.NewScript(`-- ratebench: go-redis/redis_rate v10.0.1's allowN, verbatim, and the TIME it read
local seen
local proxy = setmetatable({call = function(cmd, ...)
  local r = redis.call(cmd, ...)
  if cmd == "TIME" then seen = r end
  return r
end}, {__index = redis})
local reply = (function(redis)
` + luaRedisRate + `
end)(proxy)
reply[5], reply[6] = seen[1], seen[2]
return reply
`)
)

// UpstashSlidingSHA1 and UpstashFixedSHA1 are the scripts' hashes in
// ratelimit-js (src/lua-scripts/hash.ts); RateLimitRedisSHA1 is the hash
// of rate-limit-redis 6.0.1's increment script, as its store loads it.
const (
	RateLimitRedisSHA1 = "895b92e1712734e1b464999be23953485475357b"
	// RateLimiterFlexibleSHA1 is the hash of rate-limiter-flexible
	// 11.4.0's incrTtlLuaScript (lib/RateLimiterRedis.js:4-12, the
	// template literal's line continuations joined), as its store EVALs it.
	RateLimiterFlexibleSHA1 = "a1de965f42e177aa339706bd580f049065eca79a"

	UpstashSlidingSHA1 = "977fb636fb5ceb7e98a96d1b3a1272ba018efdae"
	UpstashFixedSHA1   = "472e55443b62f60d0991028456c57815a387066d"
)

// newProductOp returns the Redis implementation of product name (see
// productAlgorithm) for rule r.
func newProductOp(name string, model algorithms.Limiter, r algorithms.Rule) (op, error) {
	switch name {
	case "upstash", "upstash-fixed":
		s := &upstashOp{sliding: name == "upstash", L: r.L, W: r.W / int64(time.Millisecond), cache: map[string]int64{}}
		s.script = ScriptUpstashFixed
		if s.sliding {
			s.script = ScriptUpstashSliding
		}
		return s, nil
	case "envoy":
		return &envoyOp{L: r.L, div: r.W / int64(time.Second)}, nil
	case "kong":
		k := model.(*products.Kong)
		switch k.Period() {
		case "second", "minute", "hour", "day":
		default:
			return nil, fmt.Errorf("kong with rule %s: the Redis replay supports the periods second to day (1s, 1m, 1h, 24h), not the calendar %s", r, k.Period())
		}
		return &kongOp{L: r.L, W: r.W, period: k.Period()}, nil
	case FlaskMovingRedis:
		return &limitsMovingOp{L: r.L, expiry: r.W / int64(time.Second)}, nil
	}
	if sg, ok := model.(*products.SpringGateway); ok {
		rate, requested, capacity := sg.Config()
		return &springOp{rate: rate, requested: requested, capacity: capacity}, nil
	}
	if _, ok := model.(*products.Tyk); ok {
		return &tykOp{rate: r.L, per: r.W / int64(time.Second)}, nil
	}
	if rr, ok := model.(*products.RedisRate); ok {
		return &redisRateOp{burst: rr.Burst()}, nil
	}
	if _, ok := model.(*products.ExpressRateLimit); ok {
		return &rateLimitRedisOp{}, nil
	}
	if f, ok := model.(*products.RateLimiterFlexible); ok {
		return &rlfOp{block: f.BlockDuration()}, nil
	}
	return nil, fmt.Errorf("product %q has no Redis implementation", name)
}

// upstashOp is single.ts's limit over one of the two scripts, with the
// ephemeral cache.
type upstashOp struct {
	script  *goredis.Script
	sliding bool
	L, W    int64 // W in ms
	mu      sync.Mutex
	cache   map[string]int64 // identifier -> reset, ms (cache.ts)
}

func (u *upstashOp) keysPerClient() int {
	if u.sliding {
		return 2
	}
	return 1
}

func (u *upstashOp) do(ctx context.Context, c *goredis.Client, j *job) (bool, error) {
	now := j.abs / int64(time.Millisecond) // Date.now(); trace times are not negative
	u.mu.Lock()
	reset, blocked := u.cache[j.key]
	if blocked && reset < now { // cache.ts:18-21
		delete(u.cache, j.key)
		blocked = false
	}
	u.mu.Unlock()
	if blocked {
		return false, nil
	}
	bucket := now / u.W
	key := j.key + ":" + strconv.FormatInt(bucket, 10)
	var ok bool
	if u.sliding {
		prev := j.key + ":" + strconv.FormatInt(bucket-1, 10)
		v, err := u.script.EvalSha(ctx, c, []string{key, prev, ""}, u.L, now, u.W, j.cost).Int64Slice()
		if err != nil {
			return false, err
		}
		ok = v[0] >= 0 // single.ts:325: remainingTokens >= 0
	} else {
		v, err := u.script.EvalSha(ctx, c, []string{key, ""}, u.L, u.W, j.cost).Int64Slice()
		if err != nil {
			return false, err
		}
		ok = v[0] <= v[1] // single.ts:204: usedTokensAfterUpdate <= effectiveLimit
	}
	if !ok {
		u.mu.Lock()
		u.cache[j.key] = (bucket + 1) * u.W // blockUntil(identifier, reset)
		u.mu.Unlock()
	}
	return ok, nil
}

// envoyOp is the rate limit service's pipeline: INCRBY and EXPIRE, the
// decision on the count returned.
type envoyOp struct{ L, div int64 }

func (*envoyOp) keysPerClient() int { return 1 }

func (e *envoyOp) do(ctx context.Context, c *goredis.Client, j *job) (bool, error) {
	now := j.abs / int64(time.Second) // time.Now().Unix()
	key := j.key + "_" + strconv.FormatInt(now/e.div*e.div, 10)
	pipe := c.Pipeline()
	incr := pipe.IncrBy(ctx, key, j.cost)
	pipe.Expire(ctx, key, time.Duration(e.div)*time.Second)
	if _, err := pipe.Exec(ctx); err != nil {
		return false, err
	}
	return !(incr.Val() > e.L), nil // limitAfterIncrease > overLimitThreshold
}

// kongOp is the plugin's read, decision, and later increment.
type kongOp struct {
	L, W   int64
	period string
}

func (*kongOp) keysPerClient() int { return 1 }

func (k *kongOp) do(ctx context.Context, c *goredis.Client, j *job) (bool, error) {
	start := j.abs / k.W * k.W / int64(time.Millisecond) // period_date, ms
	key := j.key + ":" + strconv.FormatInt(start, 10) + ":" + k.period
	usage, err := count(c.Get(ctx, key))
	if err != nil {
		return false, err
	}
	if k.L-usage <= 0 { // handler.lua:100, 108
		return false, nil
	}
	pipe := c.Pipeline()
	pipe.IncrBy(ctx, key, 1)
	pipe.ExpireNX(ctx, key, time.Duration(k.W))
	if _, err := pipe.Exec(ctx); err != nil {
		return false, err
	}
	return true, nil
}

// liveOp is the round trip of a product whose script reads Redis's clock,
// replayed live.
type liveOp interface {
	op
	// setRule gives it the rule at the replay's speed.
	setRule(r algorithms.Rule)
	// allow runs the script for one request of key and returns its
	// decision: At the time its clock read (what the model is fed) and
	// Order the Redis TIME it ran at (which orders the decisions), in ns.
	allow(ctx context.Context, c *goredis.Client, key string, cost int64) (live.Decision, error)
}

// redisRateOp runs AllowN's script: ARGV = {Burst, Rate, Period.Seconds(),
// n} (rate.go:101), here with the rule live at the replay's speed; it
// returns the decision and the TIME the script read, in ns.
type redisRateOp struct {
	burst  int64
	rate   int64
	period float64
}

func (*redisRateOp) keysPerClient() int { return 1 }

func (r *redisRateOp) do(context.Context, *goredis.Client, *job) (bool, error) {
	return false, fmt.Errorf("redis_rate reads Redis TIME: it is replayed live")
}

func (r *redisRateOp) setRule(rule algorithms.Rule) {
	r.rate, r.period = rule.L, time.Duration(rule.W).Seconds()
}

func (r *redisRateOp) allow(ctx context.Context, c *goredis.Client, key string, cost int64) (live.Decision, error) {
	v, err := ScriptRedisRate.EvalSha(ctx, c, []string{key}, r.burst, r.rate, r.period, cost).Slice()
	if err != nil {
		return live.Decision{}, err
	}
	if len(v) != 6 {
		return live.Decision{}, fmt.Errorf("redis_rate script: %d values in the reply, want 6", len(v))
	}
	allowed, _ := v[0].(int64)
	t, err := redisTime(v[4], v[5])
	if err != nil {
		return live.Decision{}, fmt.Errorf("redis_rate script: %w", err)
	}
	return live.Decision{Admit: allowed > 0, At: t, Order: t}, nil // the script's clock is the TIME it read
}

// redisTime is TIME's seconds and microseconds, in ns.
func redisTime(sec, usec any) (int64, error) {
	s, err1 := strconv.ParseInt(fmt.Sprint(sec), 10, 64)
	us, err2 := strconv.ParseInt(fmt.Sprint(usec), 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("TIME %v %v", sec, usec)
	}
	return s*int64(time.Second) + us*int64(time.Microsecond), nil
}

// springOp is RedisRateLimiter.isAllowed: the script on the route's two
// keys, the trace's whole seconds for the time.
type springOp struct{ rate, requested, capacity int64 }

func (*springOp) keysPerClient() int { return 2 }

func (s *springOp) do(ctx context.Context, c *goredis.Client, j *job) (bool, error) {
	// The keys are the client's .tokens and .timestamp, under the replay's
	// namespace (which the memory measure scans) in place of Spring's
	// "request_rate_limiter.{route.id}" prefix.
	now := j.abs / int64(time.Second) // Redis TIME's seconds, on the trace's clock
	v, err := ScriptSpringGateway.EvalSha(ctx, c, []string{j.key + ".tokens", j.key + ".timestamp"}, s.rate, s.capacity, now, j.cost*s.requested).Int64Slice()
	if err != nil {
		return false, err
	}
	return v[0] == 1, nil // allowed and 1 or 0
}

// rateLimitRedisOp is rate-limit-redis's RedisStore.increment under
// express-rate-limit's middleware: the script with windowMs, the request
// refused iff the count it returns exceeds the limit.
type rateLimitRedisOp struct{ limit, windowMs int64 }

func (*rateLimitRedisOp) keysPerClient() int { return 1 }

func (*rateLimitRedisOp) do(context.Context, *goredis.Client, *job) (bool, error) {
	return false, fmt.Errorf("rate-limit-redis reads Redis's clock: it is replayed live")
}

func (o *rateLimitRedisOp) setRule(r algorithms.Rule) {
	o.limit, o.windowMs = r.L, r.W/int64(time.Millisecond) // whole ms: the model refuses another window
}

func (o *rateLimitRedisOp) allow(ctx context.Context, c *goredis.Client, key string, cost int64) (live.Decision, error) {
	if cost != 1 { // Start refuses such a trace
		return live.Decision{}, fmt.Errorf("rate-limit-redis counts one hit per request, not cost %d", cost)
	}
	v, err := ScriptRateLimitRedis.EvalSha(ctx, c, []string{key}, o.windowMs).Slice()
	if err != nil {
		return live.Decision{}, err
	}
	if len(v) != 5 {
		return live.Decision{}, fmt.Errorf("rate-limit-redis script: %d values in the reply, want 5", len(v))
	}
	hits, ok1 := v[0].(int64)
	at, ok2 := v[2].(int64)
	t, err := redisTime(v[3], v[4])
	if !ok1 || !ok2 || err != nil {
		return live.Decision{}, fmt.Errorf("rate-limit-redis script: count %v, clock %v, %v", v[0], v[2], err)
	}
	return live.Decision{Admit: !(hits > o.limit), At: at * int64(time.Millisecond), Order: t}, nil // totalHits > limit refuses
}

// rlfOp is RateLimiterRedis.consume(key, cost) under {points: L,
// duration: W in seconds[, blockDuration]}: the script with ARGV =
// {cost, secDuration, points, duration} (RateLimiterRedis.js:165-168),
// refused iff the points consumed exceed L; the consume that first goes
// over (consumed <= L + cost) then blocks the key, SET key consumed EX
// floor(blockDuration) in a second round trip (_block, as _upsert with
// forceExpire writes it: MULTI, SET, PTTL, EXEC; the replay reads the
// key's PEXPIRETIME in the same transaction, the block's start on Redis's
// clock, to begin the model's block there too).
type rlfOp struct {
	limit, secs, block int64
	duration           string // W in seconds as JavaScript writes it
}

func (*rlfOp) keysPerClient() int { return 1 }

func (*rlfOp) do(context.Context, *goredis.Client, *job) (bool, error) {
	return false, fmt.Errorf("rate-limiter-flexible's Redis store reads Redis's clock: it is replayed live")
}

func (o *rlfOp) setRule(r algorithms.Rule) {
	// floor(duration*1000/1000): the model refuses a window below 1 s.
	o.limit, o.secs = r.L, r.W/int64(time.Second)
	o.duration = strconv.FormatFloat(float64(r.W)/float64(time.Second), 'g', -1, 64)
}

func (o *rlfOp) allow(ctx context.Context, c *goredis.Client, key string, cost int64) (live.Decision, error) {
	v, err := ScriptRateLimiterFlexible.EvalSha(ctx, c, []string{key}, cost, o.secs, o.limit, o.duration).Slice()
	if err != nil {
		return live.Decision{}, err
	}
	if len(v) != 5 {
		return live.Decision{}, fmt.Errorf("rate-limiter-flexible script: %d values in the reply, want 5", len(v))
	}
	consumed, ok1 := v[0].(int64)
	at, ok2 := v[2].(int64)
	t, err := redisTime(v[3], v[4])
	if !ok1 || !ok2 || err != nil {
		return live.Decision{}, fmt.Errorf("rate-limiter-flexible script: consumed %v, clock %v, %v", v[0], v[2], err)
	}
	d := live.Decision{Admit: consumed <= o.limit, At: at * int64(time.Millisecond), Order: t}
	if consumed > o.limit && o.block > 0 && consumed <= o.limit+cost {
		secs := o.block / int64(time.Second)
		pipe := c.TxPipeline()
		pipe.Set(ctx, key, consumed, time.Duration(secs)*time.Second)
		pipe.PTTL(ctx, key)
		expiry := pipe.PExpireTime(ctx, key)
		if _, err := pipe.Exec(ctx); err != nil {
			return live.Decision{}, err
		}
		// The block begins when the SET runs, a round trip after the
		// consume: its expiry less the block is that millisecond on
		// Redis's clock.
		set := expiry.Val().Milliseconds() - secs*1000
		if set < at {
			return live.Decision{}, fmt.Errorf("rate-limiter-flexible's block: set at %d ms on Redis's clock, before the consume's %d ms", set, at)
		}
		d.Block, d.BlockAt = true, set*int64(time.Millisecond)
	}
	return d, nil
}

// tykOp is SlidingLog.Do as limitRedis calls it: the script on the key's
// sorted set with the trace's time, blocked iff count > rate - 1.
type tykOp struct{ rate, per int64 }

func (*tykOp) keysPerClient() int { return 1 }

func (y *tykOp) do(ctx context.Context, c *goredis.Client, j *job) (bool, error) {
	return TykDo(ctx, c, ScriptTyk.EvalSha, j.key, j.abs, y.rate, y.per)
}

// TykDo runs Tyk's sliding_log_add.lua through eval (a Script's Run or
// EvalSha) on key at now (ns since the epoch) for rate requests per per
// seconds, as SlidingLog.SetCountScript does, and returns the gateway's
// decision: admitted iff the count before this request is at most
// rate - 1.
func TykDo(ctx context.Context, c goredis.Scripter, eval func(context.Context, goredis.Scripter, []string, ...any) *goredis.Cmd, key string, now, rate, per int64) (bool, error) {
	windowStart := now - per*int64(time.Second)
	v, err := eval(ctx, c, []string{key}, strconv.FormatInt(now, 10), strconv.FormatInt(windowStart, 10), rate, per).Slice()
	if err != nil {
		return false, err
	}
	if len(v) != 3 {
		return false, fmt.Errorf("tyk script: %d values in the reply, want 3", len(v))
	}
	count, ok := v[0].(int64)
	if !ok {
		return false, fmt.Errorf("tyk script: count %v", v[0])
	}
	return !(count > rate-1), nil // session_manager.go:153, subtractor 1
}

// limitsMovingOp is limits' RedisStorage.acquire_entry: the script on the
// key's list, with time.time() at the trace's time.
type limitsMovingOp struct{ L, expiry int64 }

func (*limitsMovingOp) keysPerClient() int { return 1 }

func (l *limitsMovingOp) do(ctx context.Context, c *goredis.Client, j *job) (bool, error) {
	now := strconv.FormatFloat(products.PyTime(j.abs), 'f', -1, 64) // redis-py: repr(time.time())
	err := ScriptLimitsMovingWindow.EvalSha(ctx, c, []string{j.key}, now, l.L, l.expiry, j.cost).Err()
	switch {
	case err == goredis.Nil: // return false: a nil reply
		return false, nil
	case err != nil:
		return false, err
	}
	return true, nil // return true: the integer 1
}
