package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"ratebench/algorithms"
	"ratebench/compare/resultsdir"
	"ratebench/internal/escape"
	"ratebench/live"
	"ratebench/report"
)

const liveSynopsis = "[FILE | -gen SCENARIO] [-rule L/W] [-speed S] [-variant V] [-clients N] [-addr HOST:PORT] [-bin PROGRAM] [-o DIR]\n\n" +
	"Replays the trace through the target's real software, which it starts (and stops): a server on a loopback port,\n" +
	"a script in a redis-server, or a library in its own runtime. Software on its own clock is sent each request at\n" +
	"the trace's pace times S, with the rule's window divided by S; software whose clock the trace drives is sent\n" +
	"them as fast as it answers. N clients send the requests at once (for the targets that take several: nginx, the\n" +
	"Redis scripts), each the next once it has its answer. It sets the software's decisions beside the product's\n" +
	"model and beside the exact log. With no trace it replays the check's trace: 3 keys in bursts over 12 s, for the\n" +
	"rule 5/1s."

// runLive is ratebench live TARGET[:VARIANT]: a replay through a target
// of package live.
func runLive(stdout, stderr io.Writer, args []string) error {
	if len(args) == 1 && (args[0] == "-list" || args[0] == "--list") {
		for _, c := range live.Checks() {
			fmt.Fprintln(stdout, c)
		}
		for _, l := range live.LeftOut() {
			fmt.Fprintln(stderr, "ratebench live -list: "+l)
		}
		return nil
	}
	if len(args) > 0 {
		if t, variant, ok := live.Find(args[0]); ok {
			return runLiveTarget(stdout, stderr, t, variant, args[1:])
		}
	}
	names := live.Names()
	fmt.Fprintf(stderr, "usage: ratebench live TARGET[:VARIANT] %s\n       ratebench live -list   (the product checks, TARGET[:VARIANT] a line, that make live runs)\n\nTARGET is one of:\n", liveSynopsis)
	for _, n := range names {
		t, _ := live.Lookup(n)
		fmt.Fprintf(stderr, "  %s\n      %s\n      needs %s\n", n, t.About, t.Requires)
	}
	if len(args) == 0 {
		return usageError{"live: want the program to replay through: " + strings.Join(names, ", ")}
	}
	if args[0] == "-h" || args[0] == "-help" || args[0] == "--help" {
		return nil
	}
	return usageError{fmt.Sprintf("live: unknown program %q: want one of %s", args[0], strings.Join(names, ", "))}
}

// runLiveTarget parses the flags of a replay through target and runs it.
func runLiveTarget(stdout, stderr io.Writer, target live.Target, variantArg string, args []string) error {
	fs := newFlagSet("live "+target.Name, stderr, liveSynopsis)
	var tf traceFlags
	tf.register(fs)
	genSpec := fs.String("gen", "", "replay a generated `scenario` instead of a trace, e.g. 'mix:poisson=0.7,boundary=0.3,requests=2000,keys=20,rate=1' (see ratebench gen -list)")
	ruleS := fs.String("rule", live.CheckRule, "rate limit `L/W`, configured in the product's own terms")
	speedS := fs.String("speed", "1", "for software on its own clock: replay `S` times as fast as the trace (a whole number, a decimal or a fraction such as 1/7), with the rule's window divided by S")
	variant := fs.String("variant", variantArg, "the target's `variant` (or TARGET:VARIANT), e.g. "+strings.Join(quoted(target.Variants), ", "))
	clients := fs.Int("clients", 1, "`N` concurrent clients, each with a connection of its own (nginx, the Redis scripts); 1 replays serially, in the trace's order")
	addr := fs.String("addr", "", "`host:port` for the software: the loopback address nginx listens on, or a running Redis server to use (never stopped; the replay's keys are deleted after it)")
	binary := fs.String("bin", "", "the `program` to start (default from $PATH)")
	out := fs.String("o", "", "output `dir` (default results/live/TARGET[:VARIANT]/<trace name>, and -N-clients with N > 1)")
	if err := parseCommand(fs, args, tf.operand()); err != nil {
		return err
	}
	rule, err := algorithms.ParseRule(*ruleS)
	if err != nil {
		return usageError{err.Error()}
	}
	speed, ok := new(big.Rat).SetString(*speedS)
	if !ok || speed.Sign() <= 0 {
		return usageError{fmt.Sprintf("-speed %q: want a positive number, e.g. 20, 2.5 or 1/7", *speedS)}
	}
	spec := target.Name // the target and its variant, naming the results folder
	if *variant != "" {
		spec += ":" + *variant
	}
	o := live.Options{Speed: speed, Variant: *variant, Clients: *clients, Addr: *addr, Binary: *binary, Log: func(f string, a ...any) { fmt.Fprintf(stderr, f+"\n", a...) }}
	if *clients < 1 {
		return usageError{fmt.Sprintf("-clients %d: want 1 to %d", *clients, live.MaxClients)}
	}
	if err := live.CheckOptions(target, o); err != nil {
		return usageError{"-clients: " + err.Error()}
	}
	if _, _, err := live.ModelOf(target, rule, o); err != nil { // a variant it does not take, a speed its rule cannot run at
		atOne := o
		atOne.Speed = nil
		if _, _, err1 := live.ModelOf(target, rule, atOne); err1 == nil {
			return usageError{fmt.Sprintf("-speed %s: %v", *speedS, err)}
		}
		return usageError{err.Error()}
	}

	// SIGINT and SIGTERM stop whatever runs from here on, the version
	// probe included: each program started is stopped before the command
	// returns.
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	tf.cancel = ctx.Done()
	if _, err := target.Version(ctx, o); err != nil { // before reading the trace
		return interruptedLive(err, target.Name)
	}
	tr, path, format, name := live.Bursty3Keys(), "the check's trace", "generated: 3 keys in bursts, for "+live.CheckRule, live.CheckTraceName
	if *genSpec != "" || tf.path != "" {
		r, p, f, n, err := tf.openOrGenerate(*genSpec)
		if err != nil {
			return err
		}
		defer r.Close()
		if tr, err = live.Load(r, p, target.Costs); err != nil {
			return err
		}
		path, format, name = p, f, n
	}
	dir := *out
	if dir == "" {
		if o.Clients > 1 {
			name = fmt.Sprintf("%s-%d-clients", name, o.Clients)
		}
		dir = filepath.Join("results", "live", spec, name)
	}
	rd, err := resultsdir.Lock(dir)
	if err != nil {
		return err
	}
	defer rd.Close()

	fmt.Fprintf(stderr, "replaying %d requests (%d keys) through %s\n", len(tr.T), tr.Keys, spec)
	res, err := live.Run(ctx, announceDeciding(target, stderr), rule, tr, o)
	if err != nil {
		return interruptedLive(err, target.Name)
	}
	res.Trace.Path, res.Trace.Format = path, format
	if err := rd.WriteLive(res); err != nil {
		return err
	}
	if err := rd.Commit(resultsdir.OwnsLive); err != nil {
		return err
	}
	if err := report.LiveMarkdown(stdout, res); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\n%s agrees with its model on %d of %d requests (%s)\nwrote %s and %s\n", spec, res.Model.Agree, res.Trace.Requests,
		fmt.Sprintf("%.3f%%", res.Model.Percent()), escape.Visible(filepath.Join(dir, report.LiveFile)), escape.Visible(filepath.Join(dir, resultsdir.LiveMarkdownFile)))
	return nil
}

// interruptedLive says that name's software was stopped when err is the
// signal's (context.Canceled); other errors pass as they are.
func interruptedLive(err error, name string) error {
	if errors.Is(err, context.Canceled) {
		return fmt.Errorf("interrupted: %s stopped, nothing written", name)
	}
	return err
}

func quoted(vs []string) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		if v == "" {
			v = "(default)"
		}
		out[i] = v
	}
	return out
}
