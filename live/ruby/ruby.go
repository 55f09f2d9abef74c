// Package ruby is the live target of rack-attack: the real Rack::Attack
// middleware (Debian's ruby-rack-attack) with one throttle, limit: L and
// period: W in seconds, on an ActiveSupport::Cache::MemoryStore, run by an
// embedded Ruby driver (rack_attack.rb) that reads one request a line on
// its standard input and answers whether the middleware passed it on.
// Time.now is the replay's: the driver sets it to each request's time, so
// rack-attack decides on the trace's clock (Driven).
package ruby

import (
	"context"
	_ "embed"
	"fmt"
	"os/exec"
	"strconv"
	"strings"

	"ratebench/algorithms"
	"ratebench/live"
	"ratebench/live/driver"
)

//go:embed rack_attack.rb
var driverScript []byte

// Requires is what the target needs installed.
const Requires = "the Debian packages ruby, ruby-rack-attack and ruby-activesupport (apt-get install ruby ruby-rack-attack ruby-activesupport)"

func init() {
	live.Register(live.Target{
		Name:     "rack-attack",
		About:    "rack-attack's throttle on an ActiveSupport MemoryStore, the real Rack::Attack middleware in a Ruby process whose Time.now the trace drives",
		Requires: Requires,
		Driven:   true,
		Variants: []string{""},
		Checks:   []string{""},
		Version:  Version,
		Model:    Model,
		Start:    Start,
	})
}

func binary(o live.Options) string {
	if o.Binary != "" {
		return o.Binary
	}
	return "ruby"
}

// Version names rack-attack, ActiveSupport, Rack and Ruby as the driver
// loads them, or says what to install.
func Version(ctx context.Context, o live.Options) (string, error) {
	p, err := startDriver(o, "1", "1000000000")
	if err != nil {
		return "", err
	}
	defer p.Stop()
	return ready(ctx, p)
}

// startDriver starts the driver with args (L and W in ns).
func startDriver(o live.Options, args ...string) (*driver.Proc, error) {
	ruby, err := exec.LookPath(binary(o))
	if err != nil {
		return nil, fmt.Errorf("live rack-attack: no %s: install %s", binary(o), Requires)
	}
	return driver.Start(driver.Spec{Name: "the Ruby driver", Program: ruby, Script: driverScript, ScriptName: "rack_attack.rb", Args: args})
}

// ready waits for the driver to have loaded and returns the versions it
// names.
func ready(ctx context.Context, p *driver.Proc) (string, error) {
	line, err := p.Ready(ctx)
	if ctx.Err() != nil {
		return "", fmt.Errorf("live rack-attack: %w", err)
	}
	v, ok := strings.CutPrefix(line, "ready ")
	if err == nil && !ok {
		err = fmt.Errorf("the driver said %q, not ready", line)
	}
	if err != nil {
		return "", fmt.Errorf("live rack-attack: the driver cannot load rack-attack (%v): install %s", err, Requires)
	}
	return v, nil
}

// Model is rack-attack's model: the product's, with every deviation.
func Model(r algorithms.Rule, o live.Options) (string, error) {
	if o.Variant != "" {
		return "", fmt.Errorf("live rack-attack: no variant %q (it has none)", o.Variant)
	}
	return "rack-attack", nil
}

// Start runs the driver for rule r and waits until it has loaded.
func Start(ctx context.Context, r algorithms.Rule, _ *live.Trace, o live.Options) (live.Session, error) {
	if _, err := Model(r, o); err != nil {
		return nil, err
	}
	if _, err := algorithms.New("rack-attack", r); err != nil {
		return nil, fmt.Errorf("live rack-attack: %w", err)
	}
	p, err := startDriver(o, strconv.FormatInt(r.L, 10), strconv.FormatInt(r.W, 10))
	if err != nil {
		return nil, err
	}
	if _, err := ready(ctx, p); err != nil {
		p.Stop()
		return nil, err
	}
	return &driver.LineSession{P: p}, nil
}
