package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"ratebench/algorithms"
	"ratebench/compare"
	"ratebench/report"
	"ratebench/summary"
	"ratebench/traces"
)

const compareSynopsis = "(FILE | -gen SCENARIO) [-rule L/W ...] [-alg LIST] [-mode LIST] [-count LIST] [-o DIR]\n\n" +
	"FILE (or -trace FILE) is the trace to replay; -gen replays a generated one instead."

func runCompare(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("compare", stderr, compareSynopsis)
	var tf traceFlags
	tf.register(fs)
	genSpec := fs.String("gen", "", "replay a generated `scenario` instead of a trace, e.g. 'population:requests=1e6,sources=270000' (see ratebench gen -list)")
	var rules listFlag
	fs.Var(&rules, "rule", "rate limit `L/W`, e.g. 100/1m, or layered limits L/W+L/W, e.g. 5/1s+100/1m; repeat or comma-separate for several (default 5/30s)")
	algs := fs.String("alg", strings.Join(algorithms.DefaultSpecs, ","), "comma-separated `algorithms` to compare with the log: "+specList())
	modes := fs.String("mode", "independent,shadow", "comparison `modes`: independent, shadow, or both")
	counts := fs.String("count", "accepted", "counting `policy`: accepted, all, or both (accepted,all)")
	out := fs.String("o", "", "the results folder `DIR` (default "+runsDir+"/<trace name>)")
	top := fs.Int("top", 10, "keys listed per run by disagreement")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the replay to `file`")
	memProfile := fs.String("memprofile", "", "write a heap profile at the end of the replay to `file`")
	sweep := fs.String("sweep", "", "a grid of rules, e.g. 'L=5,10,50,100,1000;W=1s,1m' (added to -rule; an axis left out takes the first -rule's)")
	maxOver := fs.String("max-over", "", "budget: the largest over-admission `rate` you accept, a percentage such as 0.01% or a fraction below 1 such as 0.0001; the verdict and the report choose within it")
	maxUnder := fs.String("max-under", "", "budget: the largest under-admission `rate` you accept, a percentage such as 0.1% or a fraction below 1 such as 0.001")
	withReport := fs.Bool("report", true, "write report.md, report.html and plots/ beside summary.json (false removes those of earlier results)")
	force := fs.Bool("force", false, "overwrite the results of another trace in the output dir (a trace file is known by its content; standard input never counts as the same trace)")
	png := fs.Bool("png", true, "with -report, write a PNG of every plot beside its SVG")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "goroutines replaying keys in parallel (the results are the same for any number)")
	var clientFlags listFlag
	fs.Var(&clientFlags, "clients", "closed-loop clients that re-send what they are refused: `retry:POLICY`, POLICY immediate, backoff or honor (with parameters: retry:backoff:base=100ms,max=8), or retry:all; repeat for several")
	clientSeed := fs.Uint64("client-seed", 1, "seed of the closed-loop clients' backoff jitter")
	nodes := fs.String("nodes", "", "simulate distributed deployments on these `counts` of nodes, e.g. 1,2,4,8 (window algorithms, against the exact global log)")
	route := fs.String("route", "random", "with -nodes, how the load balancer spreads a client's requests: random, hash or roundrobin")
	syncs := fs.String("sync", "0", "with -nodes, `intervals` at which nodes exchange their counts with the shared store, e.g. 0,100ms,1s,10s (0: a central store)")
	skews := fs.String("skew", "0", "with -nodes, clock `skews` spread over the nodes, e.g. 0,10ms,100ms,1s")
	skewRandom := fs.Bool("skew-random", false, "with -nodes, draw each node's clock offset in [-skew, skew] instead of spreading them evenly")
	shard := fs.String("shard", "", "replay only shard `i/n` of the keys (by hash); combine the shards with ratebench merge")
	if err := parseCommand(fs, args, tf.operand()); err != nil {
		return err
	}
	cfg := compare.Config{TopKeys: *top, Algorithms: strings.Split(*algs, ","), Workers: *workers}
	for _, v := range clientFlags {
		pols, err := parseClients(v)
		if err != nil {
			return usageError{err.Error()}
		}
		cfg.Clients = append(cfg.Clients, pols...)
	}
	cfg.ClientSeed = *clientSeed
	if *nodes != "" {
		dp, err := deploymentFlags(*nodes, *route, *syncs, *skews, *skewRandom)
		if err != nil {
			return usageError{err.Error()}
		}
		cfg.Deployment = dp
	}
	if *shard != "" {
		sh, err := parseShard(*shard)
		if err != nil {
			return usageError{err.Error()}
		}
		cfg.Shard = sh
	}
	for _, list := range rules {
		for _, s := range strings.Split(list, ",") {
			if strings.Contains(s, "+") { // layered: 5/1s+100/1m
				set, err := algorithms.ParseRules(s)
				if err != nil {
					return usageError{err.Error()}
				}
				cfg.Layered = append(cfg.Layered, set)
				continue
			}
			r, err := algorithms.ParseRule(s)
			if err != nil {
				return usageError{err.Error()}
			}
			cfg.Rules = append(cfg.Rules, r)
		}
	}
	if *sweep != "" {
		base := compare.DefaultConfig().Rules[0]
		if len(cfg.Rules) > 0 {
			base = cfg.Rules[0]
		}
		sw, rs, err := parseSweep(*sweep, base)
		if err != nil {
			return usageError{err.Error()}
		}
		cfg.Sweep = sw
		for _, r := range rs {
			if !slices.Contains(cfg.Rules, r) {
				cfg.Rules = append(cfg.Rules, r)
			}
		}
	}
	budget, err := parseBudget(*maxOver, *maxUnder)
	if err != nil {
		return usageError{err.Error()}
	}
	cfg.Budget = budget
	cfg.Modes, cfg.Counts = parseModes(*modes), parseCounts(*counts)
	eng, err := compare.New(cfg)
	if err != nil {
		return usageError{err.Error()}
	}
	// SIGINT and SIGTERM stop the reading of the trace too, even while it
	// waits for input or skips bad records: the replay then ends as
	// interrupted. Once the replay is over they end the process again.
	sig, stopSignals := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stopSignals()
	tf.cancel = sig.Done()
	r, path, format, name, err := tf.openOrGenerate(*genSpec)
	if err != nil {
		return err
	}
	defer r.Close()
	dir := *out
	if dir == "" {
		dir = filepath.Join(runsDir, name)
	}
	info := summary.TraceInfo{Path: path, Format: format}
	if *genSpec == "" {
		info.Fingerprint = fingerprint(path)
	}
	job := replayJob{stdout: stdout, stderr: stderr, eng: eng, r: r, info: info,
		dir: dir, cpuProfile: *cpuProfile, memProfile: *memProfile, force: *force,
		report: *withReport, reportOpt: report.Options{NoPNG: !*png}, ctx: sig, stopSignals: stopSignals}
	return job.run()
}

// replayJob is one replay of a trace into a results folder.
type replayJob struct {
	stdout, stderr io.Writer
	eng            *compare.Engine
	r              traces.Reader
	info           summary.TraceInfo // path, format and fingerprint of the trace
	dir            string
	cpuProfile     string
	memProfile     string
	force          bool // overwrite another trace's results in dir
	report         bool // write the report beside the summary
	reportOpt      report.Options
	// readme, if not nil, gives the README.md of the results, written
	// beside the summary of a whole replay (that of a partial one has none).
	readme func(*summary.Summary, summary.Perf) ([]byte, error)
	// writeFile writes each file of the results (nil:
	// summary.WriteFileAtomic); tests fail it part way.
	writeFile func(path string, data []byte) error
	// ctx is cancelled by a signal caught before the replay began; nil for
	// none.
	ctx context.Context
	// stopSignals, if not nil, is called once the replay is over, so that
	// a signal then ends the process again.
	stopSignals func()
}

// run replays the trace and writes the results folder as one set:
// summary.json, perf.json and the report (or none: a report of earlier
// results is removed), printing the table and where it wrote. The folder
// is locked for the run, and everything that can be checked before the
// replay is: the folder can be written, holds no other trace's results,
// and the profiles can be created. If anything fails, the folder is left
// as it was.
func (j replayJob) run() error {
	rd, err := lockResults(j.dir)
	if err != nil {
		return err
	}
	defer rd.close()
	rd.writeFile = j.writeFile
	if err := checkResultsDir(j.dir, j.info, j.force); err != nil {
		return err
	}
	sum, perf, replayErr := j.replay()
	if j.stopSignals != nil {
		j.stopSignals()
	}
	if sum == nil {
		return replayErr
	}
	if err := rd.writeSummary(sum, &perf); err != nil {
		return err
	}
	owns := ownsAll
	readme := j.readme != nil && replayErr == nil // not of a partial replay
	if j.readme != nil {
		owns = func(rel string) bool { return rel == readmeFile || ownsAll(rel) }
	}
	if readme {
		data, err := j.readme(sum, perf)
		if err == nil {
			err = rd.write(readmeFile, data)
		}
		if err != nil {
			return err
		}
	}
	if j.report {
		if err := rd.writeReport(sum, j.reportOpt); err != nil {
			return err
		}
	}
	if err := rd.commit(owns); err != nil {
		return err
	}
	fmt.Fprintf(j.stdout, "wrote %s\n", filepath.Join(j.dir, summaryFile))
	if readme {
		fmt.Fprintf(j.stdout, "wrote %s\n", filepath.Join(j.dir, readmeFile))
	}
	if j.report {
		fmt.Fprintf(j.stdout, "wrote %s\n", filepath.Join(j.dir, report.HTMLFile))
	}
	return replayErr
}

// replay runs the engine over the trace, under the profiles, and prints
// the table. It returns the summary (nil if the replay failed), and an
// error also when it was interrupted: the summary is then partial.
func (j replayJob) replay() (*summary.Summary, summary.Perf, error) {
	stdout, eng, r, info, dir := j.stdout, j.eng, j.r, j.info, j.dir
	writeMemProfile, err := createMemProfile(j.memProfile)
	if err != nil {
		return nil, summary.Perf{}, err
	}
	stop, err := startCPUProfile(j.cpuProfile)
	if err != nil {
		writeMemProfile()
		return nil, summary.Perf{}, err
	}
	// SIGINT or SIGTERM stop the replay between two requests; what was
	// replayed is still written, marked partial.
	parent := j.ctx
	if parent == nil {
		parent = context.Background()
	}
	ctx, cancel := signal.NotifyContext(parent, os.Interrupt, syscall.SIGTERM)
	fmt.Fprintf(j.stderr, "replaying %s into %s (interrupt to stop with a partial summary)\n", info.Path, dir)
	var total int64
	if sized, ok := r.(interface{ NumRows() int64 }); ok {
		total = sized.NumRows()
	}
	bar := startProgress(j.stderr, total, eng.Progress)
	began := time.Now()
	err = eng.Replay(ctx, r)
	elapsed := time.Since(began)
	bar.Stop()
	cancel()
	stop()
	if perr := writeMemProfile(); perr != nil && err == nil {
		err = perr
	}
	interrupted := errors.Is(err, compare.ErrInterrupted)
	if err != nil && !interrupted {
		return nil, summary.Perf{}, err
	}
	info.Skipped, info.SkippedExamples = skipped(r)
	info.TSUnit, info.TSUnitFrom = timeUnit(r)
	sum := eng.Summary(info)
	perf := measurePerf(eng, sum, elapsed)
	printTable(stdout, sum)
	fmt.Fprintf(stdout, "\n%d requests, %d keys in %.2fs (%.2fM requests/s)\n", sum.Trace.Requests, sum.Trace.Keys,
		elapsed.Seconds(), perf.RequestsPerSecond/1e6)
	if sum.Trace.Skipped > 0 {
		fmt.Fprintf(stdout, "skipped %d bad records (the first are listed in summary.json)\n", sum.Trace.Skipped)
	}
	printTraceNotes(j.stderr, sum.Trace, sum.Config.Rules)
	if interrupted {
		return sum, perf, fmt.Errorf("interrupted after %d requests: %s is partial", sum.Trace.Requests, filepath.Join(dir, summaryFile))
	}
	return sum, perf, nil
}

// skipCounter is a reader that skips bad records (under -skip-bad) and
// counts them.
type skipCounter interface {
	Skipped() (int64, []*traces.ParseError)
}

// skipped returns the count and the first examples of what r skipped.
func skipped(r traces.Reader) (int64, []summary.SkipExample) {
	sc, ok := r.(skipCounter)
	if !ok {
		return 0, nil
	}
	n, first := sc.Skipped()
	var ex []summary.SkipExample
	for _, e := range first {
		ex = append(ex, summary.SkipExample{Line: e.Pos.Line, Row: e.Pos.Row, Reason: e.Msg})
	}
	return n, ex
}

// checkResultsDir refuses to overwrite the results of another trace in dir
// unless force is set. A trace is the same if it is the same generator
// spec, or a file of the same content (by fingerprint), whatever the path
// it was given by; standard input, or a pipe, is never known to be the
// same. A summary written before fingerprints is taken by its path.
func checkResultsDir(dir string, trace summary.TraceInfo, force bool) error {
	old, err := summary.ReadSummaryFile(filepath.Join(dir, summaryFile))
	if err != nil || force {
		return nil // nothing there (or unreadable: it is replaced)
	}
	const fix = "use -force to overwrite them, or -o to write elsewhere"
	was := old.Trace
	switch {
	case was.Path == "-":
		return fmt.Errorf("%s holds the results of a trace read from standard input, which cannot be told the same; %s", dir, fix)
	case trace.Path == "-":
		return fmt.Errorf("%s holds the results of another trace (%q), and standard input cannot be told the same; %s", dir, was.Path, fix)
	case trace.Fingerprint == "" && !strings.HasPrefix(trace.Path, genPrefix):
		return fmt.Errorf("%s holds the results of another trace (%q), and %s is not a regular file that can be told the same; %s", dir, was.Path, trace.Path, fix)
	case was.Fingerprint == "":
		if was.Path == trace.Path {
			return nil
		}
	case was.Fingerprint == trace.Fingerprint:
		return nil
	case was.Path == trace.Path:
		return fmt.Errorf("%s holds the results of %q as it was before: its content has changed since; %s", dir, was.Path, fix)
	}
	return fmt.Errorf("%s holds the results of another trace (%q); %s", dir, was.Path, fix)
}

// fingerprint returns the fingerprint of the trace file at path (see
// summary.TraceInfo.Fingerprint), or "" if it is not a regular file (a
// pipe, a device, standard input) or cannot be read.
func fingerprint(path string) string {
	if path == "-" {
		return ""
	}
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	const part = 64 << 10
	size := fi.Size()
	h := sha256.New()
	fmt.Fprintf(h, "%d\n", size)
	if _, err := io.Copy(h, io.NewSectionReader(f, 0, min(size, part))); err != nil {
		return ""
	}
	if size > part {
		tail := max(part, size-part)
		if _, err := io.Copy(h, io.NewSectionReader(f, tail, size-tail)); err != nil {
			return ""
		}
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// traceName is the trace file's base name without extension, for the
// default results folder.
func traceName(path string) string {
	if path == "-" {
		return "stdin"
	}
	base := filepath.Base(path)
	for ext := filepath.Ext(base); ext != ""; ext = filepath.Ext(base) {
		base = strings.TrimSuffix(base, ext)
	}
	if base == "" || base == "." || base == string(filepath.Separator) {
		return "trace"
	}
	return base
}

func specList() string {
	var s []string
	for _, c := range algorithms.Catalogue {
		s = append(s, c.Spec)
	}
	return strings.Join(s, ", ")
}

// deploymentFlags reads the -nodes, -route, -sync and -skew flags.
func deploymentFlags(nodes, route, syncs, skews string, random bool) (*summary.Deployment, error) {
	dp := &summary.Deployment{Route: route, SkewRandom: random, Seed: 1}
	for _, f := range strings.Split(nodes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("-nodes %q: want positive integers, e.g. 1,2,4,8", nodes)
		}
		dp.Nodes = append(dp.Nodes, n)
	}
	durations := func(flag, list string) ([]int64, error) {
		var out []int64
		for _, f := range strings.Split(list, ",") {
			d, err := time.ParseDuration(strings.TrimSpace(f))
			if err != nil || d < 0 {
				return nil, fmt.Errorf("-%s %q: want durations, e.g. 0,100ms,1s", flag, list)
			}
			out = append(out, int64(d))
		}
		return out, nil
	}
	var err error
	if dp.Sync, err = durations("sync", syncs); err != nil {
		return nil, err
	}
	if dp.Skew, err = durations("skew", skews); err != nil {
		return nil, err
	}
	return dp, nil
}
