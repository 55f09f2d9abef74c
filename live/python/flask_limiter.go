// Package python holds the live targets whose real software is a Python
// library, run by Debian's /usr/bin/python3 in a driver of this package's
// (embedded), which answers one hit per line of stdin on the trace's
// clock.
package python

import (
	"context"
	_ "embed"
	"fmt"
	"strings"
	"sync"
	"time"

	"ratebench/algorithms"
	"ratebench/algorithms/products"
	"ratebench/internal/childproc"
	"ratebench/live"
	"ratebench/live/driver"
	liveredis "ratebench/live/redis"
)

//go:embed flask_limiter.py
var flaskDriver []byte

// Python is the interpreter the targets run by default: Debian's, where
// apt-get puts python3-limits (a python3 earlier on $PATH, such as a
// pyenv shim, does not see Debian's packages).
const Python = "/usr/bin/python3"

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

func python(o live.Options) string {
	if o.Binary != "" {
		return o.Binary
	}
	return Python
}

// flaskVersion asks the interpreter for limits' version.
func flaskVersion(ctx context.Context, o live.Options) (string, error) {
	py := python(o)
	out, err := childproc.Probe(ctx, py, "-c", "import limits, platform; print(limits.__version__, platform.python_version())")
	if childproc.Stopped(err) {
		return "", fmt.Errorf("live flask-limiter: %w", err)
	}
	if err != nil {
		return "", fmt.Errorf("live flask-limiter: %s cannot import limits (%v: %s); install %s", py, err, strings.TrimSpace(lastLine(out)), FlaskRequires)
	}
	f := strings.Fields(string(out))
	if len(f) != 2 {
		return "", fmt.Errorf("live flask-limiter: %s says %q for limits' version; install %s", py, out, FlaskRequires)
	}
	return fmt.Sprintf("limits %s (Python %s)", f[0], f[1]), nil
}

func lastLine(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return lines[len(lines)-1]
}

// FlaskSession is the driver running limits for one rule.
type FlaskSession struct {
	live.Plain
	p     *driver.Proc
	redis *liveredis.Server
	once  sync.Once
	err   error
}

// answerTimeout bounds one answer of the driver to a request.
const answerTimeout = 30 * time.Second

// StartFlask starts the driver for rule r: the strategy and storage of
// o.Variant (default: Flask-Limiter's, the fixed window in memory), the
// limit string "L per N second", and for storage=redis a redis-server of
// its own.
func StartFlask(ctx context.Context, r algorithms.Rule, o live.Options) (_ *FlaskSession, err error) {
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
	s := &FlaskSession{}
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
	if s.p, err = driver.Start(driver.Spec{Name: "the Python driver", Program: python(o), Script: flaskDriver, ScriptName: "flask_limiter.py",
		Args: []string{strategy, limit, uri}}); err != nil {
		return nil, fmt.Errorf("live flask-limiter: %w; install %s", err, FlaskRequires)
	}
	line, err := s.p.Ready(ctx)
	if err != nil {
		return nil, fmt.Errorf("live flask-limiter: %w", err)
	}
	if !strings.HasPrefix(line, "ready ") {
		return nil, fmt.Errorf("live flask-limiter: the driver says %q", line)
	}
	o.Logf("flask-limiter: limits %s, %s, %q, %s", strings.TrimPrefix(line, "ready "), strategy, limit, uri)
	return s, nil
}

// Decide sends one hit of q's key at its time and reads the decision.
func (s *FlaskSession) Decide(ctx context.Context, q live.Request) (live.Decision, error) {
	a, err := s.Hit(ctx, q.Key, q.T, 1)
	return live.Decision{Admit: a, At: q.T}, err
}

// Hit sends one hit of key at t costing cost and reads the decision.
func (s *FlaskSession) Hit(ctx context.Context, key string, t, cost int64) (bool, error) {
	line, err := s.p.Ask(ctx, fmt.Sprintf("%s %d %d", key, t, cost), answerTimeout)
	switch {
	case err != nil:
		return false, fmt.Errorf("live flask-limiter: %w", err)
	case line == "1":
		return true, nil
	case line == "0":
		return false, nil
	}
	return false, fmt.Errorf("live flask-limiter: the driver answers %q", line)
}

// Clear clears key's limit: the replay's stand-in for Redis expiring the
// key on its own clock, which runs faster than the trace's.
func (s *FlaskSession) Clear(ctx context.Context, key string) error {
	line, err := s.p.Ask(ctx, "clear "+key, answerTimeout)
	if err == nil && line != "1" {
		err = fmt.Errorf("live flask-limiter: the driver answers %q", line)
	}
	return err
}

// Close stops the driver and its redis-server, and removes its files.
func (s *FlaskSession) Close() error {
	s.once.Do(func() {
		if s.p != nil {
			s.err = s.p.Stop()
		}
		if s.redis != nil {
			if err := s.redis.Stop(); err != nil && s.err == nil {
				s.err = err
			}
		}
	})
	return s.err
}
