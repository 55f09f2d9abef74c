// Command ratebench tells, with numbers from your own traffic, what you give
// up when you replace the exact sliding-window log with a cheaper rate
// limiter.
//
// Usage:
//
//	ratebench compare FILE [-rule 5/30s ...] [-alg log,counter,...] [-mode independent,shadow] [-count accepted|all] [-o DIR]
//	ratebench inspect FILE
//	ratebench check -alg ALG [-max-over 0.01%] [-max-over-of-refused 10%] ... DIR
//	ratebench report [-max-over 0.01%] [-max-under 0.1%] [-max-over-of-refused 10%] [-max-under-of-admitted 1%] DIR
//	ratebench convert IN OUT
//	ratebench compare -shard i/n ... ; ratebench merge -o DIR SHARD_DIR...
//	ratebench diff [-o DIR] A B
//	ratebench explain -key K [-rule R] [-alg counter,fixed,token] FILE
//	ratebench gen -scenario NAME[:param=value,...] -requests N -keys K -seed S FILE
//	ratebench cloudflare [-requests 400000000] [-sources 270000] [-rule 100/1m] [DIR]
//	ratebench live TARGET[:VARIANT] [FILE | -gen SCENARIO] [-rule L/W] [-speed S] [-clients N] [-o DIR]
//
// Every subcommand reads one grammar (args.go): its main file (the trace
// FILE, IN and OUT, the results folder DIR) is an argument or the flag
// that names it (-trace FILE, -o OUT, -o DIR), once; flags may come
// before or after the arguments, and -- ends them.
//
// compare replays the trace through the exact sliding log (the reference)
// and each candidate algorithm, for every rule, counting policy and mode,
// and writes DIR/summary.json (default DIR: results/runs/<trace name>) and the
// report (report.md, report.html, plots/), which report rewrites from
// summary.json alone; -workers splits the keys across cores, -clients adds
// clients that retry, -nodes simulated distributed deployments. merge
// combines the shards of a replay split across machines. diff sets two
// summaries side by side, run by run; explain replays one key and draws
// its decisions. inspect describes
// a trace. gen writes a synthetic one (gen -list describes the scenarios).
// cloudflare replays a population the size of Cloudflare's published
// experiment and sets the figures beside theirs. live replays a trace
// through a product's real software (nginx, HAProxy, varnish, a Redis
// script, a library in its own runtime), beside its model fed the times
// the software decided at. Run a subcommand with -h for its flags.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"

	"ratebench/internal/escape"
	"ratebench/internal/gcpace"
)

func main() {
	// A reader that stops early (compare ... | head) must not cost the
	// run its files: with SIGPIPE taken here, a write to a closed pipe
	// fails with EPIPE instead of ending the process before the summary
	// and report are written.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	gcpace.Start() // a replay's large heap is long-lived state: its collections' slack is kept small
	program = programName(os.Args[0])
	if err := run(os.Stdout, os.Stderr, os.Args[1:]); err != nil {
		if !errors.Is(err, flag.ErrHelp) && !errors.Is(err, errReported) {
			fmt.Fprintln(os.Stderr, "ratebench:", visibleError(err.Error()))
		}
		os.Exit(exitStatus(err))
	}
}

// command is one subcommand: it parses its own flags from args.
type command struct {
	summary string
	run     func(stdout, stderr io.Writer, args []string) error
}

var commands = map[string]command{
	"compare":    {"replay a trace through the log and the candidates; write summary.json", runCompare},
	"inspect":    {"describe a trace: requests, keys, time span, rates, order", runInspect},
	"explain":    {"replay one key through the log and the algorithms: its disagreements, listed and drawn", runExplain},
	"gen":        {"generate a synthetic trace", runGen},
	"cloudflare": {"reproduce Cloudflare's accuracy experiment for the sliding-window counter", runCloudflare},
	"report":     {"write report.md, report.html and plots from DIR/summary.json", runReport},
	"convert":    {"convert a trace to " + writtenKinds(), runConvert},
	"live":       {"replay a trace through a product's real software (nginx, HAProxy, a Redis script, ...) and set its decisions beside its model", runLive},
	"diff":       {"set two summaries side by side: each headline figure of the same runs, and its change", runDiff},
	"check":      {"a CI gate: hold an algorithm's runs in DIR/summary.json to a budget; exit status 3 when one breaks", runCheck},
	"merge":      {"combine the summaries of the shards of a replay (compare -shard i/n) into one", runMerge},
}

// usageError is a mistake in the command line (exit status 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// errReported is returned once the error has already been printed (by the
// flag package).
var errReported = errors.New("reported")

// run is the whole command, testable as a function: it never exits.
func run(stdout, stderr io.Writer, args []string) error {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" || args[0] == "-help" {
		usage(stderr)
		if len(args) == 0 {
			return usageError{"no subcommand"}
		}
		return nil
	}
	cmd, ok := commands[args[0]]
	if !ok {
		usage(stderr)
		return usageError{fmt.Sprintf("unknown subcommand %q", args[0])}
	}
	return cmd.run(stdout, stderr, args[1:])
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: ratebench <subcommand> [flags]\n\nsubcommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'ratebench <subcommand> -h' for its flags.")
	writeFormats(w)
	fmt.Fprintln(w, "\nDocumentation (in the repository, beside README.md):")
	for _, p := range docPages {
		fmt.Fprintf(w, "  %-24s %s\n", p.path, p.subject)
	}
}

// docPages are the reference pages in docs/, one a subject, as ratebench
// help lists them; the README links each.
var docPages = []struct{ path, subject string }{
	{"docs/formats.md", "input formats and their flags (-format, -pattern, -sep, -ts-format, -spread, -reorder, -skip-bad); generated workloads"},
	{"docs/algorithms.md", "the algorithms compared, rules, modes and counting policies"},
	{"docs/products.md", "the deployed products, modelled from their source, against their textbook twins"},
	{"docs/metrics.md", "what a run writes: summary.json, the report and its verdict, plots, diff, explain"},
	{"docs/definitions.md", "the exact definition of every algorithm, mode and figure"},
	{"docs/summary-schema.md", "every field of summary.json"},
	{"docs/scale.md", "workers, key shards and their merge, Kubernetes"},
	{"docs/live.md", "the client's side, simulated deployments, replays through real software (nginx, Redis, ...)"},
	{"docs/cloudflare.md", "Cloudflare's accuracy figure for the sliding-window counter, reproduced"},
	{"docs/ci.md", "ratebench in CI: a GitHub Actions workflow and a shell script that fail the build when a budget breaks"},
	{"docs/development.md", "the code's layout, make targets, tests, scripts/deps"},
}

// newFlagSet returns a flag set that reports errors instead of exiting.
func newFlagSet(name string, stderr io.Writer, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: ratebench %s %s\n\n%s\n\nflags:\n", name, synopsis, grammarNote)
		fs.PrintDefaults()
	}
	return fs
}

// listFlag is a flag that may be repeated; each value may hold several
// comma-separated items.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error {
	*l = append(*l, v)
	return nil
}

// visibleError makes an error message printable on one line (what it
// quotes stays as it was quoted, see escape.VisibleQuoted), so that no name
// in it (a file's, a key's) can break the line, move the cursor, recolour
// or clear the terminal.
func visibleError(msg string) string { return escape.VisibleQuoted(msg) }
