// Package php holds the live targets whose real software is a PHP library
// installed from Debian under /usr/share/php (Symfony's RateLimiter,
// Laravel's cache RateLimiter), each run by Debian's php CLI in a driver of
// this package's (embedded) that answers one request per line of its
// standard input, the library's clock set to the request's time (Driven).
package php

import (
	"context"
	"fmt"
	"os/exec"
	"strings"

	"ratebench/internal/childproc"
	"ratebench/live"
	"ratebench/live/driver"
)

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
