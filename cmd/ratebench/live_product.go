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
	"ratebench/internal/escape"
	"ratebench/live"
	"ratebench/report"
	"ratebench/summary"
	"ratebench/summary/resultsdir"
)

const liveProductSynopsis = "[FILE | -gen SCENARIO] [-rule L/W] [-speed S] [-variant V] [-o DIR]\n\n" +
	"Replays the trace, one request at a time, through the product's real software, which it starts (and stops):\n" +
	"a server on a loopback port, replayed at the trace's pace times S, or the library in its own runtime, its\n" +
	"clock driven by the trace's times. It sets the software's decisions beside the product's model and beside\n" +
	"the exact log. With no trace it replays the check's trace: 3 keys in bursts over 12 s, for the rule 5/1s."

// runLiveProduct runs ratebench live NAME for a product of package live.
func runLiveProduct(stdout, stderr io.Writer, target live.Target, variantArg string, args []string) error {
	fs := newFlagSet("live "+target.Name, stderr, liveProductSynopsis)
	var tf traceFlags
	tf.register(fs)
	genSpec := fs.String("gen", "", "replay a generated `scenario` instead of a trace, e.g. 'mix:poisson=0.7,boundary=0.3,requests=2000,keys=20,rate=1' (see ratebench gen -list)")
	ruleS := fs.String("rule", live.CheckRule, "rate limit `L/W`, configured in the product's own terms")
	speedS := fs.String("speed", "1", "for software on its own clock: replay `S` times as fast as the trace, with the rule's window divided by S")
	variant := fs.String("variant", variantArg, "the product's `variant` (or PRODUCT:VARIANT), e.g. "+strings.Join(quoted(target.Variants), ", "))
	binary := fs.String("bin", "", "the `program` to start (default from $PATH)")
	out := fs.String("o", "", "output `dir` (default results/live/PRODUCT[:VARIANT]/<trace name>)")
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
	spec := target.Name // the product and its variant, naming the results folder
	if *variant != "" {
		spec += ":" + *variant
	}
	o := live.Options{Speed: speed, Variant: *variant, Binary: *binary, Log: func(f string, a ...any) { fmt.Fprintf(stderr, f+"\n", a...) }}

	// SIGINT and SIGTERM stop whatever runs from here on, the version
	// probe included: each program started is stopped before the command
	// returns.
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	tf.cancel = ctx.Done()
	if _, err := target.Version(ctx, o); err != nil { // before reading the trace
		return interruptedLive(err, target.Name)
	}
	if _, _, err := live.ModelOf(target, rule, o); err != nil { // a variant it does not take, a speed its rule cannot run at
		atOne := o
		atOne.Speed = nil
		if _, _, err1 := live.ModelOf(target, rule, atOne); err1 == nil {
			return usageError{fmt.Sprintf("-speed %s: %v", *speedS, err)}
		}
		return usageError{err.Error()}
	}

	var tr *live.Trace
	path, format, name := "the check's trace", "generated: 3 keys in bursts, for "+live.CheckRule, live.CheckTraceName
	if *genSpec == "" && tf.path == "" {
		tr = live.Bursty3Keys()
	} else {
		r, p, f, n, err := tf.openOrGenerate(*genSpec)
		if err != nil {
			return err
		}
		defer r.Close()
		if tr, err = live.Load(r, p); err != nil {
			return err
		}
		path, format, name = p, f, n
	}
	dir := *out
	if dir == "" {
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
	if err := writeLiveProduct(rd.Stage(), res); err != nil {
		return err
	}
	if err := rd.Commit(ownsLive); err != nil {
		return err
	}
	if err := report.LiveProductMarkdown(stdout, res); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\n%s agrees with its model on %d of %d requests (%s)\nwrote %s and %s\n", spec, res.Model.Agree, res.Trace.Requests,
		fmt.Sprintf("%.3f%%", res.Model.Percent()), escape.Visible(filepath.Join(dir, "live.json")), escape.Visible(filepath.Join(dir, "live.md")))
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

// writeLiveProduct writes dir/live.json and dir/live.md.
func writeLiveProduct(dir string, res *summary.LiveProduct) error {
	return writeLiveFiles(dir, res, func(w io.Writer) error { return report.LiveProductMarkdown(w, res) })
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
