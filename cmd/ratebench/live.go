package main

import (
	"bytes"
	"context"
	"encoding/json"
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
	"ratebench/livenginx"
	"ratebench/report"
	"ratebench/summary"
	"ratebench/summary/resultsdir"
)

const liveSynopsis = "(FILE | -gen SCENARIO) [-rule L/W] [-speed S] [-clients C] [-burst N] [-nodelay | -delay N] [-addr 127.0.0.1:PORT] [-o DIR]\n\n" +
	"Replays the trace through a real nginx that it starts (and stops) on a loopback port, at the trace's pace times S\n" +
	"with the rule's rate times S, and sets nginx's decisions beside its model fed the clock nginx decided on,\n" +
	"beside its model on the trace's times and beside the exact log. FILE (or -trace FILE) is the trace; -gen\n" +
	"replays a generated one instead."

// liveTargets are the real programs ratebench live replays through.
var liveTargets = map[string]func(stdout, stderr io.Writer, args []string) error{
	"nginx": runLiveNginx,
}

// runLive dispatches ratebench live TARGET: nginx, or a product of
// package live.
func runLive(stdout, stderr io.Writer, args []string) error {
	if len(args) > 0 {
		if f, ok := liveTargets[args[0]]; ok {
			return f(stdout, stderr, args[1:])
		}
		if t, ok := live.Lookup(args[0]); ok {
			return runLiveProduct(stdout, stderr, t, "", args[1:])
		}
		// PRODUCT:VARIANT, as the product's spec writes it
		// (flask-limiter:strategy=moving, varnish:ban=2s).
		if name, variant, ok := strings.Cut(args[0], ":"); ok {
			if t, ok := live.Lookup(name); ok {
				return runLiveProduct(stdout, stderr, t, variant, args[1:])
			}
		}
	}
	names := liveNames()
	fmt.Fprintf(stderr, "usage: ratebench live nginx %s\n       ratebench live PRODUCT[:VARIANT] %s\n\nPRODUCT is one of:\n", liveSynopsis, liveProductSynopsis)
	for _, n := range names[1:] {
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

// liveNames lists what ratebench live replays through, nginx first.
func liveNames() []string { return append([]string{"nginx"}, live.Names()...) }

func runLiveNginx(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("live nginx", stderr, liveSynopsis)
	var tf traceFlags
	tf.register(fs)
	genSpec := fs.String("gen", "", "replay a generated `scenario` instead of a trace, e.g. 'mix:poisson=0.7,boundary=0.3,requests=2000,keys=20,rate=1' (see ratebench gen -list)")
	ruleS := fs.String("rule", "5/1s", "rate limit `L/W`: nginx's rate is L/W times the speed, its burst L-1 (unless -burst)")
	speedS := fs.String("speed", "1", "replay `S` times as fast as the trace (a whole number, a decimal or a fraction such as 1/7); nginx's rate is scaled by S")
	clients := fs.Int("clients", 1, "concurrent keep-alive `connections`; 1 replays serially, in the trace's order")
	burst := fs.Int64("burst", -1, "limit_req's `burst` (default L-1: a bucket of L requests)")
	noDelay := fs.Bool("nodelay", true, "limit_req's nodelay: requests within the burst are served at once (-nodelay=false delays them: nginx then logs a delayed request at the end of its delay, not at its decision, and the model's clock is off)")
	delay := fs.Int64("delay", 0, "limit_req's delay=`N` (with -nodelay=false)")
	addr := fs.String("addr", "", "loopback `host:port` for nginx to listen on (default a free port on 127.0.0.1)")
	binary := fs.String("nginx", "", "nginx `program` to start (default nginx from $PATH)")
	out := fs.String("o", "", "output `dir` (default results/live/<trace name>)")
	if err := parseCommand(fs, args, tf.operand()); err != nil {
		return err
	}
	rule, err := algorithms.ParseRule(*ruleS)
	if err != nil {
		return usageError{err.Error()}
	}
	speed, ok := new(big.Rat).SetString(*speedS)
	if !ok || speed.Sign() <= 0 || !speed.Num().IsInt64() || !speed.Denom().IsInt64() {
		return usageError{fmt.Sprintf("-speed %q: want a positive number, e.g. 20, 2.5 or 1/7", *speedS)}
	}
	if *clients < 1 || *clients > 1024 {
		return usageError{fmt.Sprintf("-clients %d: want 1 to 1024 connections", *clients)}
	}
	if *burst < -1 || *delay < 0 || (*delay > 0 && *noDelay) {
		return usageError{"-burst and -delay must not be negative; -delay needs -nodelay=false"}
	}
	cfg := livenginx.Config{Rule: rule, SpeedNum: speed.Num().Int64(), SpeedDen: speed.Denom().Int64(), Clients: *clients,
		Burst: *burst, NoDelay: *noDelay, Delay: *delay, Listen: *addr, Binary: *binary,
		Log: func(f string, a ...any) { fmt.Fprintf(stderr, f+"\n", a...) }}
	if _, err := cfg.Scaled(); err != nil {
		return usageError{"-speed " + *speedS + ": " + err.Error()}
	}
	if err := cfg.Validate(); err != nil { // before nginx starts, not after the replay
		return usageError{"live nginx: " + err.Error()}
	}

	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	tf.cancel = ctx.Done()
	r, path, format, name, err := tf.openOrGenerate(*genSpec)
	if err != nil {
		return err
	}
	defer r.Close()
	tr, err := live.Load(r, path)
	if err != nil {
		return err
	}
	dir := *out
	if dir == "" {
		dir = filepath.Join("results", "live", name)
	}
	rd, err := resultsdir.Lock(dir)
	if err != nil {
		return err
	}
	defer rd.Close()

	fmt.Fprintf(stderr, "replaying %d requests (%d keys) at speed %s with %d connection(s)\n", len(tr.T), tr.Keys, cfg.SpeedString(), cfg.Clients)
	raw, err := livenginx.Replay(ctx, cfg, tr)
	if err != nil {
		return interruptedLive(err, "nginx")
	}
	res, err := livenginx.Analyze(cfg, raw, livenginx.TraceInfo{Path: path, Format: format})
	if err != nil {
		return err
	}
	if err := writeLive(rd.Stage(), res); err != nil {
		return err
	}
	if err := rd.Commit(ownsLive); err != nil {
		return err
	}
	if err := report.LiveMarkdown(stdout, res); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nnginx agrees with its model on %d of %d requests (%s)\nwrote %s and %s\n", res.Model.Agree, res.Trace.Requests,
		fmt.Sprintf("%.3f%%", res.Model.Percent()), escape.Visible(filepath.Join(dir, "live.json")), escape.Visible(filepath.Join(dir, "live.md")))
	return nil
}

// ownsLive tells the files a live run owns in its results folder.
func ownsLive(rel string) bool { return rel == "live.json" || rel == "live.md" }

// writeLive writes dir/live.json and dir/live.md.
func writeLive(dir string, res *summary.LiveNginx) error {
	return writeLiveFiles(dir, res, func(w io.Writer) error { return report.LiveMarkdown(w, res) })
}

// writeLiveFiles writes a live replay's result res as dir/live.json, and
// its Markdown, written by md, as dir/live.md.
func writeLiveFiles(dir string, res any, md func(io.Writer) error) error {
	data, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	if err := summary.WriteFileAtomic(filepath.Join(dir, report.LiveFile), append(data, '\n')); err != nil {
		return err
	}
	var b bytes.Buffer
	if err := md(&b); err != nil {
		return err
	}
	return summary.WriteFileAtomic(filepath.Join(dir, "live.md"), b.Bytes())
}
