// Package python holds the live targets whose real software is a Python
// library, run by Debian's /usr/bin/python3 in a driver of this package's
// (embedded): flask-limiter (the limits library) and drf-throttling
// (Django REST Framework). Each driver answers one hit per line of stdin
// on the trace's clock, by trace_driver.py's protocol, which it imports.
package python

import (
	"context"
	"embed"
	"fmt"
	"strings"
	"sync"

	"ratebench/internal/childproc"
	"ratebench/live"
	"ratebench/live/driver"
	liveredis "ratebench/live/redis"
)

//go:embed trace_driver.py flask_limiter.py drf_throttling.py
var scripts embed.FS

// Python is the interpreter the targets run by default: Debian's, where
// apt-get puts the libraries (a python3 earlier on $PATH, such as a pyenv
// shim, does not see Debian's packages).
const Python = "/usr/bin/python3"

func python(o live.Options) string {
	if o.Binary != "" {
		return o.Binary
	}
	return Python
}

// probe runs code in the interpreter and returns the fields it prints,
// want of them; an error naming requires when it cannot.
func probe(ctx context.Context, target, code string, want int, o live.Options, requires string) ([]string, error) {
	py := python(o)
	out, err := childproc.Probe(ctx, py, "-c", code)
	if childproc.Stopped(err) {
		return nil, fmt.Errorf("live %s: %w", target, err)
	}
	if err != nil {
		return nil, fmt.Errorf("live %s: %s cannot import the library (%v: %s); install %s", target, py, err, strings.TrimSpace(lastLine(out)), requires)
	}
	f := strings.Fields(string(out))
	if len(f) != want {
		return nil, fmt.Errorf("live %s: %s says %q for the library's version; install %s", target, py, out, requires)
	}
	return f, nil
}

func lastLine(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return lines[len(lines)-1]
}

// Session is a driver answering one hit per line on the trace's clock,
// and the redis-server it uses, if any.
type Session struct {
	live.Plain
	target string
	p      *driver.Proc
	redis  *liveredis.Server
	once   sync.Once
	err    error
}

// run starts the driver script (a file of this package) with args and
// returns the version its ready line says.
func (s *Session) run(ctx context.Context, o live.Options, script string, args []string, requires string) (string, error) {
	src, err := scripts.ReadFile(script)
	if err != nil {
		return "", err
	}
	lib, err := scripts.ReadFile("trace_driver.py")
	if err != nil {
		return "", err
	}
	if s.p, err = driver.Start(driver.Spec{Name: "the Python driver", Program: python(o), Script: src, ScriptName: script,
		Files: map[string][]byte{"trace_driver.py": lib}, Args: args}); err != nil {
		return "", fmt.Errorf("live %s: %w; install %s", s.target, err, requires)
	}
	line, err := s.p.Ready(ctx)
	if err != nil {
		return "", fmt.Errorf("live %s: %w; install %s", s.target, err, requires)
	}
	v, ok := strings.CutPrefix(line, "ready ")
	if !ok {
		return "", fmt.Errorf("live %s: the driver says %q", s.target, line)
	}
	return v, nil
}

// Decide sends one hit of q's key at its time and reads the decision.
func (s *Session) Decide(ctx context.Context, q live.Request) (live.Decision, error) {
	a, err := s.Hit(ctx, q.Key, q.T, 1)
	return live.Decision{Admit: a, At: q.T}, err
}

// Hit sends one hit of key at t costing cost and reads the decision.
func (s *Session) Hit(ctx context.Context, key string, t, cost int64) (bool, error) {
	line, err := s.p.Ask(ctx, fmt.Sprintf("%s %d %d", key, t, cost), driver.AnswerTimeout)
	switch {
	case err != nil:
		return false, fmt.Errorf("live %s: %w", s.target, err)
	case line == "1":
		return true, nil
	case line == "0":
		return false, nil
	}
	return false, fmt.Errorf("live %s: the driver answers %q", s.target, line)
}

// Clear clears key's limit: the replay's stand-in for Redis expiring the
// key on its own clock, which runs faster than the trace's.
func (s *Session) Clear(ctx context.Context, key string) error {
	line, err := s.p.Ask(ctx, "clear "+key, driver.AnswerTimeout)
	if err == nil && line != "1" {
		err = fmt.Errorf("live %s: the driver answers %q", s.target, line)
	}
	return err
}

// Close stops the driver and its redis-server, and removes its files.
func (s *Session) Close() error {
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
