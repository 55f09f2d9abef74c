package algorithms

import (
	"fmt"
	"strconv"
	"strings"
)

// DefaultSpecs is the algorithm set compared when none is named.
var DefaultSpecs = []string{"log", "counter", "counter-lt", "counter-floor", "fixed", "token", "gcra", "buckets:4"}

// Catalogue describes each algorithm spec New accepts, for help texts.
var Catalogue = []struct{ Spec, About string }{
	{"log", "sliding window log: the exact reference"},
	{"counter", "sliding window counter: prev*(W-e)/W + curr + cost <= L"},
	{"counter-lt", "counter admitting iff prev*(W-e)/W + curr < L, as in a common Redis Lua snippet"},
	{"counter-floor", "counter with the weighted previous count rounded down (with cost 1 it decides as counter-lt, and as Upstash's slidingWindow without its cache)"},
	{"fixed", "fixed window: curr + cost <= L"},
	{"token[:B=N]", "token bucket, L/W tokens per unit time, capacity B (default L)"},
	{"gcra[:B=N]", "generic cell rate algorithm, emission interval W/L, burst B; decides as token"},
	{"xrate[:B=N]", "peer library golang.org/x/time/rate: float64 token bucket, rate L/W, burst B (default L)"},
	{"buckets:N", "sliding window over N sub-windows of width W/N; buckets:1 = counter"},
	{"nginx[:rate=Nr/s|Nr/m][:burst=N][:zone]", "nginx limit_req: leaky bucket in milli-requests on a millisecond clock, rate truncated as nginx parses it (default: rate L/W, burst L-1); zone models the zone's expiry of idle nodes, which couples keys"},
	{"leaky[:B=N]", "leaky bucket as a queue (shaper), capacity B (default L), drains one unit every W/L; admits as token, with a delay"},
	{"envoy", "Envoy's global rate limit service: fixed window on the epoch in whole seconds, W one unit (1s, 1m, 1h, 24h, ...), every request counted"},
	{"redis_rate[:burst=N]", "go-redis/redis_rate v10: GCRA in a Lua script on float64 seconds from Redis TIME (microseconds), Limit{Rate: L, Period: W, Burst: N (default L)}"},
	{"throttled[:burst=N]", "throttled/throttled v2 with its memory store: GCRA in integer ns, emission interval W/L truncated, MaxBurst N (default L-1) admitting N+1 at once"},
	{"envoy-local[:max=N:fill=N:interval=D:phase=D]", "Envoy's local rate limit filter: max tokens (default L), fill tokens every interval (>= 50ms, default the exact L/W), one token per request"},
	{"ulule", "github.com/ulule/limiter (Redis store): fixed window anchored at the key's first hit, Redis's millisecond clock, every request counted"},
	{"go-limiter", "github.com/sethvargo/go-limiter (memorystore): fixed window anchored at the key's first request, one token per request"},
	{"juju[:rate][:capacity=N][:quantum=N:interval=D]", "github.com/juju/ratelimit: quantum tokens every whole interval from the key's first request, capacity N (default L, and the exact rate L/W; rate: as NewBucketWithRate, within 1%)"},
	{"kong", "Kong's rate-limiting plugin, local policy: fixed window on the UTC calendar (W 1s, 1m, 1h, 24h; 720h a calendar month, 8760h a calendar year), admitted while the count is below L, one hit per request"},
	{"redis-cell[:burst=N]", "redis-cell's CL.THROTTLE: GCRA in nanoseconds, max_burst N (default L-1, so L at once), emission interval period/count truncated, the period whole seconds"},
	{"guava", "Guava's RateLimiter.create(L/W per second) asked tryAcquire(cost): SmoothBursty on a microsecond stopwatch from the key's first request, in doubles, one second of stored permits, starting empty, admitting whenever free and charging the cost after"},
	{"upstash", "Upstash's slidingWindow: floor(prev*(W-e)/W) + curr >= L refuses, on a millisecond clock, behind its ephemeral cache"},
	{"upstash-fixed", "Upstash's fixedWindow: every request counted, behind its ephemeral cache"},
	{"upstash-token[:max=N][:refill=N:interval=D]", "Upstash's tokenBucket: refill tokens per whole interval from the key's first request (default the rule's rate), max tokens (default L), behind its ephemeral cache"},
	{"ALG:block[=D]", "any algorithm behind a refusal cache: a key it refuses is refused until the end of the rule's window (block), or for D (block=D)"},
	{"PRODUCT:without=NAME", "a deployed product with one of its deviations from its textbook algorithm turned off"},
}

// New builds the limiter named by spec for rule r. Besides its own
// parameters, any spec takes ":block" or ":block=D" (a refusal cache, see
// Blocked) and a product's ":without=NAME" (a deviation turned off, see
// Product).
func New(spec string, r Rule) (Limiter, error) {
	g, err := splitGeneric(spec)
	if err != nil {
		return nil, err
	}
	l, err := newBase(g.spec, r)
	if err != nil {
		return nil, err
	}
	return applyGeneric(l, g, spec, r)
}

// newBase builds the limiter named by spec, without generic parameters.
func newBase(spec string, r Rule) (Limiter, error) {
	name, arg, hasArg := strings.Cut(strings.TrimSpace(spec), ":")
	noArg := func(l Limiter) (Limiter, error) {
		if hasArg {
			return nil, fmt.Errorf("algorithm %q takes no parameter", spec)
		}
		return l, nil
	}
	switch name {
	case "log":
		return noArg(NewLog(r))
	case "counter":
		return noArg(NewCounter(r))
	case "counter-lt":
		return noArg(NewCounterLT(r))
	case "counter-floor":
		return noArg(NewCounterFloor(r))
	case "fixed":
		return noArg(NewFixed(r))
	case "token", "gcra", "xrate", "leaky":
		var b int64
		if hasArg {
			v, ok := strings.CutPrefix(arg, "B=")
			n, err := strconv.ParseInt(v, 10, 64)
			if !ok || err != nil || n < 1 {
				return nil, fmt.Errorf("algorithm %q: want %s:B=N with N a positive integer", spec, name)
			}
			b = n
		}
		if name == "token" {
			return NewToken(r, b), nil
		}
		if name == "xrate" {
			return NewXRate(r, b), nil
		}
		if name == "leaky" {
			return NewLeaky(r, b), nil
		}
		return NewGCRA(r, b), nil
	case "nginx":
		if hasArg && strings.TrimSpace(arg) == "" {
			return nil, fmt.Errorf("algorithm %q: want nginx, or nginx:rate=Nr/s or Nr/m and :burst=N", spec)
		}
		ng, err := NewNginx(r, arg)
		if err != nil {
			return nil, err
		}
		return ng, nil
	case "envoy":
		if hasArg {
			return nil, fmt.Errorf("algorithm %q takes no parameter", spec)
		}
		return NewEnvoy(r)
	case "envoy-local":
		return newEnvoyLocalSpec(spec, arg, hasArg, r)
	case "ulule":
		return noArg(NewUlule(r))
	case "go-limiter":
		return noArg(NewGoLimiter(r))
	case "juju":
		return newJujuSpec(spec, arg, hasArg, r)
	case "kong":
		if hasArg {
			return nil, fmt.Errorf("algorithm %q takes no parameter", spec)
		}
		return NewKong(r)
	case "guava":
		return noArg(NewGuava(r))
	case "redis-cell":
		return newRedisCellSpec(spec, arg, hasArg, r)
	case "upstash", "upstash-fixed":
		if hasArg {
			return nil, fmt.Errorf("algorithm %q takes no parameter", spec)
		}
		if name == "upstash" {
			return NewUpstash(r)
		}
		return NewUpstashFixed(r)
	case "upstash-token":
		if hasArg && strings.TrimSpace(arg) == "" {
			return nil, fmt.Errorf("algorithm %q: want upstash-token, or upstash-token:max=N and :refill=N:interval=D", spec)
		}
		return NewUpstashToken(r, arg)
	case "redis_rate":
		return NewRedisRate(r, arg, hasArg)
	case "throttled":
		return NewThrottled(r, arg, hasArg)
	case "buckets":
		n, err := strconv.ParseInt(arg, 10, 64)
		if !hasArg || err != nil {
			return nil, fmt.Errorf("algorithm %q: want buckets:N with N a positive integer", spec)
		}
		return NewBuckets(r, n)
	}
	return nil, fmt.Errorf("unknown algorithm %q (known: %s)", spec, knownSpecs())
}

// ParseSpecs splits a comma-separated list of specs and checks each against
// rule r, returning their canonical names without duplicates.
func ParseSpecs(list string, r Rule) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, s := range strings.Split(list, ",") {
		if strings.TrimSpace(s) == "" {
			continue
		}
		l, err := New(s, r)
		if err != nil {
			return nil, err
		}
		if !seen[l.Name()] {
			seen[l.Name()] = true
			out = append(out, l.Name())
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no algorithm named in %q", list)
	}
	return out, nil
}

// knownSpecs lists the catalogue's specs, for an error.
func knownSpecs() string {
	names := make([]string, len(Catalogue))
	for i, c := range Catalogue {
		names[i] = c.Spec
	}
	return strings.Join(names, ", ")
}
