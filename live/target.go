// Package live replays a trace, request by request, through a deployed
// limiter's real software (a server it starts on a loopback port, a
// product's script in a redis-server of its own, or the library itself in
// its own runtime with the trace's clock) and sets its decisions beside
// the product's model and beside the exact log.
//
// A Target is one program's real software. Its Start returns a Session
// that answers whether the software admits a request, and the trace time
// the software decided on: the request's own time when the software's
// clock is driven by the trace, or the time the software's own clock read
// when it runs in real time (then Run sends each request when it is due,
// at the trace's pace times Options.Speed). Run sends the trace's
// requests in order from Options.Clients concurrent clients (one, for
// most software: a serial replay in the trace's order), each taking the
// next request once it has its answer; it then sets the decisions beside
// the model (the Target's Model spec, built from algorithms' registry)
// fed the times the software decided at, in the order it decided them,
// beside the model on the trace's own times, and beside the exact log,
// in one result, summary.Live.
//
// Each Target lives in a package of its own under live/ and registers
// itself from its init; the command imports them.
package live

import (
	"context"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"sync"
	"time"

	"ratebench/algorithms"
)

// Options configure one live replay.
type Options struct {
	// Speed is the replay's pace for software on its own clock: a trace
	// time t is due (t - first)/Speed after the start, and the rule is
	// scaled by Speed. Ignored by software whose clock is driven. Nil
	// means 1.
	Speed *big.Rat
	// Variant is what follows the target's name, e.g. "store=memory" for
	// express-rate-limit:store=memory; "" for the default.
	Variant string
	// Clients is the number of concurrent clients sending the requests
	// (0 or 1: one, a serial replay); more only for a Target whose
	// Clients is set.
	Clients int
	// Addr is an address the software is to use instead of one the
	// harness picks: the loopback host:port a server listens on, or a
	// running server's (for a Target that takes one; "" otherwise).
	Addr string
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

// clients is the number of concurrent clients o asks for: at least 1.
func (o Options) clients() int { return max(o.Clients, 1) }

// Request is one request of the trace as a client sends it.
type Request struct {
	// Index is its place in the trace, from 0.
	Index int
	// Client is the client sending it, from 0 to Options.Clients - 1:
	// the connection it goes on, for software replayed over several.
	Client int
	// Key is the name the software sees for its key (KeyName(ID)), ID
	// the key's dense id.
	Key string
	ID  int32
	// T is its trace time, in ns.
	T int64
	// Cost is its cost. Only software whose Target takes costs is sent
	// it; the others are sent one request, whatever its cost, as a
	// product whose API takes no cost sees it.
	Cost int64
}

// Decision is the software's answer to one request.
type Decision struct {
	Admit bool
	// At is the time the software decided at, in ns on the timeline the
	// model's rule is for: the request's T when the clock is driven;
	// otherwise the software's own clock (on which the rule is the
	// trace's at Speed).
	At int64
	// Order places the decision in the order the software made them,
	// where it tells (a server's clock, the line of its log); the
	// decisions of equal Order, all of them by default, are in the
	// trace's order.
	Order int64
	// Block says this refusal began a block the software set in a later
	// step than the decision (rate-limiter-flexible's Redis store writes
	// it a round trip after the consume), and BlockAt when that step ran,
	// on At's clock: the model's block begins there.
	Block   bool
	BlockAt int64
}

// Session is one running instance of the real software.
type Session interface {
	// Decide asks the software whether it admits request q. With one
	// client, calls come serially in the trace's order; with several,
	// from each client at once.
	Decide(ctx context.Context, q Request) (Decision, error)
	// Settle completes the decisions, once every request has its answer,
	// with what the software tells only then (nginx: the time and order
	// of each decision, from its access log); d is in the trace's order.
	Settle(ctx context.Context, d []Decision) error
	// Analyze adds to the replay's result what only this software tells
	// (the causes of its disagreements, its memory), after the
	// comparison and before Close.
	Analyze(ctx context.Context, a *Analysis) error
	// Close stops what Start started and removes its files. It is
	// called once, after the replay, whether it ended, failed or was
	// cancelled.
	Close() error
}

// Plain is the Settle and Analyze of software whose decisions are whole
// when Decide returns and which adds nothing to the result: its sessions
// embed Plain.
type Plain struct{}

// Settle does nothing.
func (Plain) Settle(context.Context, []Decision) error { return nil }

// Analyze does nothing.
func (Plain) Analyze(context.Context, *Analysis) error { return nil }

// Target is one program's real software.
type Target struct {
	// Name is the target as `ratebench live NAME` takes it: the
	// product's name, as algorithms' registry knows it, or the program's
	// (nginx, redis) when its variants are the products.
	Name string
	// About says in one line what runs (e.g. "HAProxy's stick table,
	// a haproxy process on a loopback port").
	About string
	// Requires says what must be installed and how (e.g. "the Debian
	// package haproxy (apt-get install haproxy)"), for the error when it
	// is missing.
	Requires string
	// Driven is true when the software decides on the trace's clock
	// (then At is the request's time always and Speed is ignored).
	Driven bool
	// Clients is true when the software may be sent requests from
	// several clients at once (Options.Clients).
	Clients bool
	// Costs is true when the software is sent each request's cost, so
	// that a trace with costs may be replayed through it.
	Costs bool
	// Tick is the resolution of the clock the software decides on when
	// it is its own and the replay keeps to it (nginx: a millisecond of
	// CLOCK_MONOTONIC): the replay then starts on a tick of that clock
	// and sends each request at the start of the tick it is due in. 0
	// sends each request when it is due.
	Tick time.Duration
	// Variants lists the accepted Options.Variant values, the first the
	// default ("" when the target has one).
	Variants []string
	// Checks lists the variants (of Variants; "" the default) that
	// `ratebench live -list`, and so `make live`, replays the check's
	// trace through: the product checks of this software.
	Checks []string
	// Unpackaged, where set, says whether a part of the software that no
	// package this machine can install brings (scripts/deps cannot) is
	// missing here: its error names the part and how to put it in place
	// by hand. Its Checks are then left out of Checks, and so of make
	// live, and LeftOut says why; its tests skip, saying the same. A part
	// present but not the one the model follows is not missing: the
	// target refuses it.
	Unpackaged func() error
	// Version names the software and its version, e.g. "HAProxy 2.6.12";
	// an error when it is not installed (saying Requires). What it runs
	// to ask (childproc.Probe, a driver's first line) has
	// childproc.StartTimeout to answer, and stops when ctx is done.
	Version func(ctx context.Context, o Options) (string, error)
	// Scale is the rule the software runs under at speed s when it is
	// on its own clock; nil is ScaleRule (the window divided by s).
	Scale func(r algorithms.Rule, s *big.Rat) (algorithms.Rule, error)
	// Model is the spec of the product's model that must agree with the
	// software for rule r (the rule already scaled when the software is
	// on its own clock), and says why the software cannot run so (a
	// variant it does not take, an address it cannot use) before
	// anything starts.
	Model func(r algorithms.Rule, o Options) (string, error)
	// Start starts the software for rule r (scaled as for Model), to be
	// sent the requests of tr.
	Start func(ctx context.Context, r algorithms.Rule, tr *Trace, o Options) (Session, error)
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

// Find returns the target a command line names, TARGET[:VARIANT]: the
// target of the longest name that spec is or starts with before a colon,
// and the variant that follows (redis:token:B=20 is the target redis,
// variant token:B=20; redis:redis_rate:burst=2 the target
// redis:redis_rate, variant burst=2).
func Find(spec string) (t Target, variant string, ok bool) {
	for name := spec; ; {
		if t, ok := Lookup(name); ok {
			return t, strings.TrimPrefix(strings.TrimPrefix(spec, name), ":"), true
		}
		i := strings.LastIndexByte(name, ':')
		if i < 0 {
			return Target{}, "", false
		}
		name = name[:i]
	}
}

// Checks lists the product checks of every target, TARGET[:VARIANT],
// in the targets' order (see Target.Checks).
func Checks() []string {
	var out []string
	for _, n := range Names() {
		t, _ := Lookup(n)
		if t.Unpackaged != nil && t.Unpackaged() != nil {
			continue
		}
		for _, v := range t.Checks {
			if v == "" {
				out = append(out, n)
			} else {
				out = append(out, n+":"+v)
			}
		}
	}
	return out
}

// LeftOut says, a line a target, why the checks of the targets whose
// software lacks a part no package brings here (Target.Unpackaged) are left
// out of Checks.
func LeftOut() []string {
	var out []string
	for _, n := range Names() {
		t, _ := Lookup(n)
		if t.Unpackaged == nil {
			continue
		}
		if err := t.Unpackaged(); err != nil {
			out = append(out, fmt.Sprintf("the checks of %s are left out: %v", n, err))
		}
	}
	return out
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
