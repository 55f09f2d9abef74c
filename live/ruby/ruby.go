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
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"ratebench/algorithms"
	"ratebench/live"
	"ratebench/live/driver"
)

//go:embed rack_attack.rb
var driverScript []byte

// Requires is what the target needs installed.
const Requires = "the Debian packages ruby, ruby-rack-attack and ruby-activesupport (apt-get install ruby ruby-rack-attack ruby-activesupport)"

// answerTimeout bounds one answer of the driver to a request (its
// loading of Ruby, Rack and ActiveSupport has childproc.StartTimeout:
// driver.Proc.Ready).
const answerTimeout = 30 * time.Second

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
	return &session{p: p}, nil
}

// session is one driver process.
type session struct {
	live.Plain
	p      *driver.Proc
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
	admit, err := s.ask(ctx, q.Key+" "+strconv.FormatInt(q.T, 10))
	if err != nil {
		s.broken = fmt.Errorf("an earlier request failed: %w", err)
		return live.Decision{}, err
	}
	return live.Decision{Admit: admit, At: q.T}, nil
}

// ask sends one request's line and reads its answer.
func (s *session) ask(ctx context.Context, line string) (bool, error) {
	answer, err := s.p.Ask(ctx, line, answerTimeout)
	if err != nil {
		return false, err
	}
	switch answer {
	case "1":
		return true, nil
	case "0":
		return false, nil
	}
	return false, fmt.Errorf("the driver answered %q", answer)
}

// Close kills the driver and waits for it; it is safe to call more than
// once.
func (s *session) Close() error {
	s.broken = errors.New("the session is closed")
	return s.p.Stop()
}
