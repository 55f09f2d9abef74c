package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"ratebench/generators"
	"ratebench/internal/escape"
	"ratebench/traces"
)

var genSynopsis = "-scenario NAME[:param=value,...] [-requests N] [-keys K] [-rate R] [-duration D] [-window W] [-seed S] FILE | -list\n\n" +
	"FILE (or -o FILE) is the trace written; its extension says the format (" + writtenExts() + ")."

func runGen(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("gen", stderr, genSynopsis)
	d := generators.Params{}.Defaults()
	scenario := fs.String("scenario", "poisson", "scenario `spec`: a name, or name:param=value,... (see -list); mix:poisson=0.7,boundary=0.3 mixes scenarios by share of keys")
	list := fs.Bool("list", false, "describe the scenarios and exit")
	p := generators.Params{}
	fs.Int64Var(&p.Requests, "requests", d.Requests, "number of requests")
	fs.IntVar(&p.Keys, "keys", d.Keys, "number of keys (sources)")
	fs.Float64Var(&p.Rate, "rate", d.Rate, "mean requests per second per key")
	fs.DurationVar(&p.Window, "window", d.Window, "window that edge-aware scenarios aim at")
	fs.DurationVar(&p.Duration, "duration", 0, "stop at this much trace time (0: only -requests stops)")
	fs.Uint64Var(&p.Seed, "seed", d.Seed, "random seed")
	out := fs.String("o", "", "output `file`; the format comes from the extension ("+writtenExts()+")")
	format := fs.String("format", "auto", "output format: "+writtenNames()+" or auto")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the generation to `file`")
	memProfile := fs.String("memprofile", "", "write a heap profile at the end of the generation to `file`")
	if err := parseCommand(fs, args, operand{"FILE", "the output file", "o", out}); err != nil {
		return err
	}
	if *list {
		listScenarios(stdout, d)
		return nil
	}
	if *out == "" {
		return usageError{"gen: want FILE (or -o FILE), the trace to write"}
	}
	if err := generators.CheckFlags(p); err != nil { // a zero given is no default
		return usageError{err.Error()}
	}
	f, err := traces.ParseFormat(*format)
	if err != nil {
		return usageError{err.Error()}
	}
	g, err := generators.New(*scenario, p)
	if err != nil {
		return usageError{err.Error()}
	}
	writeMemProfile, err := createMemProfile(*memProfile)
	if err != nil {
		return err
	}
	w, err := createTraceOutput(*out, f)
	if err != nil {
		writeMemProfile()
		return err
	}
	stop, err := startCPUProfile(*cpuProfile)
	if err != nil {
		w.abort()
		writeMemProfile()
		return err
	}
	// A signal stops the generator and leaves OUT as it was; a second
	// one ends the process.
	ctx, stopSignals := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stopSignals()
	context.AfterFunc(ctx, stopSignals)
	began := time.Now()
	n, err := g.WriteTo(announceWriting(w.stopOn(ctx.Done()), stderr))
	stop()
	if perr := writeMemProfile(); perr != nil && err == nil {
		err = perr
	}
	if errors.Is(err, errStopped) {
		w.abort()
		return fmt.Errorf("interrupted after %d requests: %s is left as it was", n, escape.Visible(*out))
	}
	if err != nil {
		w.abort()
		return fmt.Errorf("%s: %w", *out, err)
	}
	if err := w.commit(); err != nil {
		return fmt.Errorf("%s: %w", *out, err)
	}
	el := time.Since(began)
	fmt.Fprintf(stderr, "wrote %d requests to %s in %.2fs (%.2fM requests/s)\n", n, escape.Visible(*out), el.Seconds(), float64(n)/el.Seconds()/1e6)
	return nil
}

// listScenarios describes every scenario and its parameters.
func listScenarios(w io.Writer, d generators.Params) {
	fmt.Fprintf(w, "Every scenario takes the common parameters -requests (default %d), -keys (%d), -rate (mean requests\n"+
		"per second per key, %g), -duration (none), -window (%v) and -seed (%d); in a spec they are written\n"+
		"name:requests=1e6,keys=1000,... (sources is another name for keys). Each must be above 0 (-duration: 0\n"+
		"is no limit); -keys at most %d, -rate at most %g. No source may average more than one request per ns\n"+
		"at any time, at most %d keys can send (the smaller of keys and requests), and the bursts and pending\n"+
		"retries held at once are at most %d timestamps in all. Scenario parameters:\n",
		d.Requests, d.Keys, d.Rate, d.Window, d.Seed, generators.MaxKeys, generators.MaxRate, generators.MaxSendingKeys, generators.MaxPending)
	for _, s := range generators.Scenarios() {
		fmt.Fprintf(w, "\n%s\n    %s\n", s.Name, s.About)
		for _, p := range s.Params {
			fmt.Fprintf(w, "    %-10s %-8g %s; %s\n", p.Name, p.Default, p.About, p.Range())
		}
	}
	fmt.Fprintf(w, "\nmix:NAME=WEIGHT,...\n    a weighted composition: keys are shared among the named scenarios in proportion to the\n"+
		"    weights, each scenario with its default parameters but those set as NAME.PARAM=VALUE,\n"+
		"    e.g. mix:poisson=0.7,boundary=0.3,boundary.burst=5\n")
}
