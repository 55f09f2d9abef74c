// Package php holds the live targets whose real software is a PHP library
// installed from Debian under /usr/share/php (Symfony's RateLimiter,
// Laravel's cache RateLimiter), each run by Debian's php CLI in a driver of
// this package's (embedded) that answers one request per line of its
// standard input, the library's clock set to the request's time (Driven).
package php

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"ratebench/internal/childproc"
	"ratebench/live"
	"ratebench/live/driver"
)

// answerTimeout bounds one answer of a driver to a request (its loading
// has childproc.StartTimeout: driver.Proc.Ready).
const answerTimeout = 30 * time.Second

// library is one PHP library's driver: its name in errors, its script,
// the Debian package whose version names it, and what to install.
type library struct {
	name     string // the target's name, "symfony"
	script   []byte
	file     string // the script's name, "symfony.php"
	pkg      string // the Debian package, "php-symfony-rate-limiter"
	requires string
}

// binary is the php CLI the target runs: o.Binary, or php from $PATH.
func binary(o live.Options) string {
	if o.Binary != "" {
		return o.Binary
	}
	return "php"
}

// start runs the driver with args and waits until it has loaded; it
// returns the driver and the versions it names.
func (l library) start(ctx context.Context, o live.Options, args ...string) (*driver.Proc, string, error) {
	path, err := exec.LookPath(binary(o))
	if err != nil {
		return nil, "", fmt.Errorf("live %s: no %s: install %s", l.name, binary(o), l.requires)
	}
	p, err := driver.Start(driver.Spec{Name: "the PHP driver", Program: path, Script: l.script, ScriptName: l.file, Args: args})
	if err != nil {
		return nil, "", fmt.Errorf("live %s: %w; install %s", l.name, err, l.requires)
	}
	line, err := p.Ready(ctx)
	if ctx.Err() != nil {
		p.Stop()
		return nil, "", fmt.Errorf("live %s: %w", l.name, err)
	}
	v, ok := strings.CutPrefix(line, "ready ")
	if err == nil && !ok {
		err = fmt.Errorf("the driver said %q, not ready", line)
	}
	if err != nil {
		p.Stop()
		return nil, "", fmt.Errorf("live %s: the driver cannot load the library (%v): install %s", l.name, err, l.requires)
	}
	return p, v, nil
}

// version names the library by its Debian package's version (dpkg-query;
// the library itself carries none) and the PHP the driver runs.
func (l library) version(ctx context.Context, o live.Options, args ...string) (string, error) {
	p, v, err := l.start(ctx, o, args...)
	if err != nil {
		return "", err
	}
	defer p.Stop()
	pkg := l.pkg + " (version unknown: no dpkg-query)"
	if out, err := childproc.Probe(ctx, "dpkg-query", "-W", "-f=${Version}", l.pkg); err == nil {
		pkg = l.pkg + " " + strings.TrimSpace(string(out))
	}
	return pkg + ", " + v, nil
}

// session is one driver process.
type session struct {
	live.Plain
	p      *driver.Proc
	costs  bool  // the lines carry the request's cost
	broken error // set once a request failed: the answers may be out of step
}

func (s *session) Decide(ctx context.Context, q live.Request) (live.Decision, error) {
	if s.broken != nil {
		return live.Decision{}, s.broken
	}
	if err := ctx.Err(); err != nil {
		return live.Decision{}, err
	}
	if q.Key == "" || strings.ContainsAny(q.Key, " \r\n") {
		return live.Decision{}, fmt.Errorf("key %q: the driver's lines take a key without blanks", q.Key)
	}
	line := q.Key + " " + strconv.FormatInt(q.T, 10)
	if s.costs {
		line += " " + strconv.FormatInt(max(q.Cost, 1), 10)
	}
	answer, err := s.p.Ask(ctx, line, answerTimeout)
	if err == nil && answer != "1" && answer != "0" {
		err = fmt.Errorf("the driver answered %q", answer)
	}
	if err != nil {
		s.broken = fmt.Errorf("an earlier request failed: %w", err)
		return live.Decision{}, err
	}
	return live.Decision{Admit: answer == "1", At: q.T}, nil
}

// Close kills the driver and waits for it; it is safe to call more than
// once.
func (s *session) Close() error {
	s.broken = errors.New("the session is closed")
	return s.p.Stop()
}
