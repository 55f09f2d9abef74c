// Package python holds the live targets whose real software is a Python
// library, run by Debian's /usr/bin/python3 in a driver of this package's
// (embedded), which answers one hit per line of stdin on the trace's
// clock.
package python

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"ratebench/algorithms"
	"ratebench/live"
	"ratebench/products"
	"ratebench/redisreplay"
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
		Start: func(ctx context.Context, r algorithms.Rule, o live.Options) (live.Session, error) {
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
func flaskVersion(o live.Options) (string, error) {
	py := python(o)
	out, err := exec.Command(py, "-c", "import limits, platform; print(limits.__version__, platform.python_version())").CombinedOutput()
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
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *bytes.Buffer
	dir    string
	redis  *redisreplay.Server
	exited chan struct{} // closed once the driver has ended and its stderr is read
	once   sync.Once
	err    error
}

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
	s := &FlaskSession{stderr: &bytes.Buffer{}}
	defer func() {
		if err != nil {
			s.Close()
		}
	}()
	if strings.Contains(o.Variant, "storage=redis") {
		if s.redis, err = redisreplay.Start(ctx, ""); err != nil {
			return nil, fmt.Errorf("live flask-limiter: %w", err)
		}
		uri = "redis://" + s.redis.Addr
	}
	if s.dir, err = os.MkdirTemp("", "ratebench-flask-"); err != nil {
		return nil, err
	}
	script := filepath.Join(s.dir, "flask_limiter.py")
	if err := os.WriteFile(script, flaskDriver, 0o644); err != nil {
		return nil, err
	}
	s.cmd = exec.Command(python(o), script, strategy, limit, uri)
	s.cmd.Dir = s.dir
	s.cmd.Stderr = s.stderr
	if s.in, err = s.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	s.out = bufio.NewReader(stdout)
	if err := s.cmd.Start(); err != nil {
		s.cmd = nil
		return nil, fmt.Errorf("live flask-limiter: starting %s: %w; install %s", python(o), err, FlaskRequires)
	}
	s.exited = make(chan struct{})
	go func() { s.cmd.Wait(); close(s.exited) }()
	line, err := s.readLine(ctx)
	if err != nil {
		return nil, err
	}
	if !strings.HasPrefix(line, "ready ") {
		return nil, fmt.Errorf("live flask-limiter: the driver says %q", line)
	}
	o.Logf("flask-limiter: limits %s, %s, %q, %s", strings.TrimPrefix(line, "ready "), strategy, limit, uri)
	return s, nil
}

// readLine reads one answer, or fails with the driver's stderr when it
// ends, or when ctx is done.
func (s *FlaskSession) readLine(ctx context.Context) (string, error) {
	type res struct {
		line string
		err  error
	}
	ch := make(chan res, 1)
	go func() {
		l, err := s.out.ReadString('\n')
		ch <- res{strings.TrimSpace(l), err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			select {
			case <-s.exited:
			case <-time.After(2 * time.Second):
				return "", fmt.Errorf("live flask-limiter: the driver closed its output (%v)", r.err)
			}
			return "", fmt.Errorf("live flask-limiter: the driver ended (%v): %s", r.err, strings.TrimSpace(lastLine(s.stderr.Bytes())))
		}
		return r.line, nil
	case <-ctx.Done():
		s.Close()
		return "", ctx.Err()
	case <-time.After(30 * time.Second):
		return "", errors.New("live flask-limiter: the driver did not answer within 30 s")
	}
}

// Decide sends one hit of key at t and reads the decision.
func (s *FlaskSession) Decide(ctx context.Context, key string, t int64) (bool, int64, error) {
	a, err := s.Hit(ctx, key, t, 1)
	return a, t, err
}

// Hit sends one hit of key at t costing cost and reads the decision.
func (s *FlaskSession) Hit(ctx context.Context, key string, t, cost int64) (bool, error) {
	if _, err := fmt.Fprintf(s.in, "%s %d %d\n", key, t, cost); err != nil {
		return false, fmt.Errorf("live flask-limiter: writing to the driver: %w", err)
	}
	line, err := s.readLine(ctx)
	switch {
	case err != nil:
		return false, err
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
	if _, err := fmt.Fprintf(s.in, "clear %s\n", key); err != nil {
		return fmt.Errorf("live flask-limiter: writing to the driver: %w", err)
	}
	line, err := s.readLine(ctx)
	if err == nil && line != "1" {
		err = fmt.Errorf("live flask-limiter: the driver answers %q", line)
	}
	return err
}

// Close stops the driver and its redis-server, and removes its files.
func (s *FlaskSession) Close() error {
	s.once.Do(func() {
		if s.in != nil {
			s.in.Close()
		}
		if s.exited != nil {
			select {
			case <-s.exited:
			case <-time.After(2 * time.Second):
				s.cmd.Process.Kill()
				<-s.exited
			}
		}
		if s.redis != nil {
			s.err = s.redis.Stop()
		}
		if s.dir != "" {
			if err := os.RemoveAll(s.dir); err != nil && s.err == nil {
				s.err = err
			}
		}
	})
	return s.err
}
