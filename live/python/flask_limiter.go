package python

import (
	"context"
	"fmt"
	"strings"

	"ratebench/algorithms"
	"ratebench/algorithms/products"
	"ratebench/live"
	liveredis "ratebench/live/redis"
)

// FlaskRequires names what the flask-limiter target needs installed.
const FlaskRequires = "the Debian packages python3-limits and python3-redis (apt-get install -y python3-limits python3-redis), for /usr/bin/python3; redis-server (apt-get install -y redis-server) for storage=redis"

// flaskVariants are the target's variants: the strategies on the memory
// storage, and the moving window on Redis, whose timestamps come from the
// client's time.time(), driven by the trace. (The fixed window on Redis
// expires its keys on Redis's own clock, which a trace cannot drive.)
var flaskVariants = []string{"", "strategy=moving", "strategy=moving:storage=redis"}

func init() {
	live.Register(live.Target{
		Name:     "flask-limiter",
		About:    "Flask-Limiter's limits library (Debian python3-limits) in a Python driver, its time.time() the trace's, on its memory storage or a redis-server on a loopback port",
		Requires: FlaskRequires,
		Driven:   true,
		Variants: flaskVariants,
		Checks:   flaskVariants,
		Version:  flaskVersion,
		Model: func(r algorithms.Rule, o live.Options) (string, error) {
			if err := flaskVariant(o.Variant); err != nil {
				return "", err
			}
			spec := "flask-limiter"
			if o.Variant != "" {
				spec += ":" + o.Variant
			}
			return spec, nil
		},
		Start: func(ctx context.Context, r algorithms.Rule, _ *live.Trace, o live.Options) (live.Session, error) {
			return StartFlask(ctx, r, o)
		},
	})
}

func flaskVariant(v string) error {
	for _, ok := range flaskVariants {
		if v == ok {
			return nil
		}
	}
	return fmt.Errorf("live flask-limiter: no variant %q (known: %q)", v, flaskVariants)
}

// flaskVersion asks the interpreter for limits' version.
func flaskVersion(ctx context.Context, o live.Options) (string, error) {
	f, err := probe(ctx, "flask-limiter", "import limits, platform; print(limits.__version__, platform.python_version())", 2, o, FlaskRequires)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("limits %s (Python %s)", f[0], f[1]), nil
}

// StartFlask starts the driver for rule r: the strategy and storage of
// o.Variant (default: Flask-Limiter's, the fixed window in memory), the
// limit string "L per N second", and for storage=redis a redis-server of
// its own.
func StartFlask(ctx context.Context, r algorithms.Rule, o live.Options) (_ *Session, err error) {
	if err := flaskVariant(o.Variant); err != nil {
		return nil, err
	}
	limit := products.FlaskLimitString(r)
	if limit == "" {
		return nil, fmt.Errorf("live flask-limiter: limits' windows are whole seconds, not %s", algorithms.FormatWindow(r.W))
	}
	strategy, uri := "fixed-window", "memory://"
	if strings.Contains(o.Variant, "strategy=moving") {
		strategy = "moving-window"
	}
	s := &Session{target: "flask-limiter"}
	defer func() {
		if err != nil {
			s.Close()
		}
	}()
	if strings.Contains(o.Variant, "storage=redis") {
		if s.redis, err = liveredis.Start(ctx, ""); err != nil {
			return nil, fmt.Errorf("live flask-limiter: %w", err)
		}
		uri = "redis://" + s.redis.Addr
	}
	v, err := s.run(ctx, o, "flask_limiter.py", []string{strategy, limit, uri}, FlaskRequires)
	if err != nil {
		return nil, err
	}
	o.Logf("flask-limiter: limits %s, %s, %q, %s", v, strategy, limit, uri)
	return s, nil
}
