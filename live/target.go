// Package live replays a trace, request by request, through a deployed
// limiter's real software (a server it starts on a loopback port, or the
// library itself in its own runtime with the trace's clock) and sets its
// decisions beside the product's model and beside the exact log.
//
// A Target is one product's real software. Its Start returns a Session
// that answers, serially and in the trace's order, whether the software
// admits a request of a key at a trace time, and the trace time the
// software decided on: the request's own time when the software's clock is
// driven by the trace, or the time the harness observed when it runs on
// its own clock (a server replayed in real time). Run drives a Session
// over a trace and compares its decisions with the model (the Target's
// Model spec, built from algorithms' registry) on the software's times and
// on the trace's, and with the exact log.
//
// Each Target lives in a package of its own under live/ and registers
// itself from its init; the command imports them.
package live

import (
	"context"
	"fmt"
	"math/big"
	"slices"
	"sync"

	"ratebench/algorithms"
)

// Options configure one live replay.
type Options struct {
	// Speed is the replay's pace for software on its own clock: a trace
	// time t is due (t - first)/Speed after the start, and the rule is
	// scaled by Speed. Ignored by software whose clock is driven. Nil
	// means 1.
	Speed *big.Rat
	// Variant is what follows the product's name, e.g. "store=redis" for
	// express-rate-limit:store=redis; "" for the default.
	Variant string
	// Binary overrides the program the Target starts (default: from
	// $PATH).
	Binary string
	// Log reports progress (may be nil).
	Log func(format string, args ...any)
}

// Logf reports through o.Log when set.
func (o Options) Logf(format string, args ...any) {
	if o.Log != nil {
		o.Log(format, args...)
	}
}

// Session is one running instance of the real software.
type Session interface {
	// Decide asks the software whether it admits one request of key
	// (the trace's key as the replay names it) at trace time t in ns.
	// Calls come serially in the trace's time order. It returns the
	// decision and the time the software decided at, in ns on the
	// timeline the model's rule is for: t when the clock is driven;
	// otherwise the software's own clock since the replay's first
	// request, on which the rule is the trace's at Speed (Pacer.Wait
	// gives the time each request was due there).
	Decide(ctx context.Context, key string, t int64) (admit bool, at int64, err error)
	// Close stops what Start started and removes its files. It is
	// called once, after the replay, whether it ended, failed or was
	// cancelled.
	Close() error
}

// Target is one product's real software.
type Target struct {
	// Name is the product's name as `ratebench live NAME` takes it, and
	// as algorithms' registry knows it.
	Name string
	// About says in one line what runs (e.g. "HAProxy's stick table,
	// a haproxy process on a loopback port").
	About string
	// Requires says what must be installed and how (e.g. "the Debian
	// package haproxy (apt-get install haproxy)"), for the error when it
	// is missing.
	Requires string
	// Driven is true when the software decides on the trace's clock
	// (then at == t always and Speed is ignored).
	Driven bool
	// Variants lists the accepted Options.Variant values, the first the
	// default ("").
	Variants []string
	// Version names the software and its version, e.g. "HAProxy 2.6.12";
	// an error when it is not installed (saying Requires). What it runs
	// to ask (childproc.Probe, a driver's first line) has
	// childproc.StartTimeout to answer, and stops when ctx is done.
	Version func(ctx context.Context, o Options) (string, error)
	// Model is the spec of the product's model that must agree with the
	// software for rule r (the rule already scaled by Speed when the
	// software is on its own clock).
	Model func(r algorithms.Rule, o Options) (string, error)
	// Start starts the software for rule r (scaled as for Model) with
	// keys named by the replay.
	Start func(ctx context.Context, r algorithms.Rule, o Options) (Session, error)
}

var (
	mu      sync.Mutex
	targets = map[string]Target{}
)

// Register adds t; a package under live/ calls it from its init. It
// panics on a second target of the same name (a programming error).
func Register(t Target) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := targets[t.Name]; dup {
		panic(fmt.Sprintf("live: target %q registered twice", t.Name))
	}
	targets[t.Name] = t
}

// Lookup returns the target named name.
func Lookup(name string) (Target, bool) {
	mu.Lock()
	defer mu.Unlock()
	t, ok := targets[name]
	return t, ok
}

// Names lists the registered targets in order.
func Names() []string {
	mu.Lock()
	defer mu.Unlock()
	var out []string
	for n := range targets {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}
