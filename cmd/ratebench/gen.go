package main

import (
	"fmt"
	"io"
	"time"

	"ratebench/generators"
	"ratebench/traces"
)

const genSynopsis = "-scenario NAME [-requests N] [-keys K] [-rate R] [-window W] [-seed S] -o FILE | -list"

func runGen(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("gen", stderr, genSynopsis)
	d := generators.Params{}.Defaults()
	scenario := fs.String("scenario", "poisson", "scenario `name` (see -list)")
	list := fs.Bool("list", false, "describe the scenarios and exit")
	p := generators.Params{}
	fs.Int64Var(&p.Requests, "requests", d.Requests, "number of requests")
	fs.IntVar(&p.Keys, "keys", d.Keys, "number of keys (sources)")
	fs.Float64Var(&p.Rate, "rate", d.Rate, "mean requests per second per key")
	fs.DurationVar(&p.Window, "window", d.Window, "window that edge-aware scenarios aim at")
	fs.Uint64Var(&p.Seed, "seed", d.Seed, "random seed")
	out := fs.String("o", "", "output `file`; the format comes from the extension (.csv, .parquet, .jsonl)")
	format := fs.String("format", "auto", "output format: csv, parquet, jsonl or auto")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *list {
		for _, s := range generators.Scenarios() {
			fmt.Fprintf(stdout, "%-10s %s\n", s.Name, s.About)
		}
		fmt.Fprintf(stdout, "\nparameters: -requests (default %d), -keys (%d), -rate per key per second (%g), -window (%v), -seed (%d)\n",
			d.Requests, d.Keys, d.Rate, d.Window, d.Seed)
		return nil
	}
	if *out == "" {
		return usageError{"-o FILE is required"}
	}
	f, err := traces.ParseFormat(*format)
	if err != nil {
		return usageError{err.Error()}
	}
	g, err := generators.New(*scenario, p)
	if err != nil {
		return usageError{err.Error()}
	}
	w, err := traces.Create(*out, f)
	if err != nil {
		return err
	}
	began := time.Now()
	n := int64(0)
	for g.Scan() {
		if err := w.Write(g.Request()); err != nil {
			w.Close()
			return fmt.Errorf("%s: %w", *out, err)
		}
		n++
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("%s: %w", *out, err)
	}
	el := time.Since(began)
	fmt.Fprintf(stderr, "wrote %d requests to %s in %.2fs (%.2fM requests/s)\n", n, *out, el.Seconds(), float64(n)/el.Seconds()/1e6)
	return nil
}
