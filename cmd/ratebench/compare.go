package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"ratebench/algorithms"
	"ratebench/compare"
	"ratebench/compare/resultsdir"
	"ratebench/report"
	"ratebench/summary"
	"ratebench/traces"
)

const compareSynopsis = "(FILE | -gen SCENARIO) [-rule L/W ...] [-alg LIST] [-mode LIST] [-count LIST] [-o DIR] [-check ALG]\n\n" +
	"FILE (or -trace FILE) is the trace to replay; -gen replays a generated one instead."

// runCompare is 'ratebench compare': its flags, read into an engine's
// configuration, then the replay of the trace into the results folder.
func runCompare(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("compare", stderr, compareSynopsis)
	f := registerCompareFlags(fs)
	if err := parseCommand(fs, args, f.trace.operand()); err != nil {
		return err
	}
	f.set = flagsSet(fs)
	if err := f.placements.check(f.set, f.spread.on); err != nil {
		return err
	}
	cfg, err := f.config()
	if err != nil {
		return err
	}
	eng, err := compare.New(cfg)
	if err != nil {
		return usageError{err.Error()}
	}
	f.cfg = cfg
	for _, s := range eng.Skipped() {
		fmt.Fprintln(stderr, s)
	}
	if err := f.checkHasRuns(eng); err != nil {
		return err
	}
	return f.replay(stdout, stderr, eng)
}

// checkHasRuns refuses a -check ALG of which eng makes no run, before the
// replay rather than after it.
func (f *compareFlags) checkHasRuns(eng *compare.Engine) error {
	algs := eng.Algorithms()
	if *f.check == "" || slices.Contains(algs, *f.check) {
		return nil
	}
	return usageError{fmt.Sprintf("-check %q: this compare makes no run of that algorithm; its runs are of %s", *f.check, strings.Join(algs, ", "))}
}

// compareFlags are compare's flags, once registered.
type compareFlags struct {
	trace                             traceFlags
	genSpec                           *string
	rules, clients                    listFlag
	algs, modes, counts, out          *string
	top, workers                      *int
	cpuProfile, memProfile            *string
	sweep                             *string
	ref                               *string
	budget                            budgetFlags
	check                             *string
	withReport, force, png            *bool
	deviations                        *bool
	clientSeed                        *uint64
	nodes, route, syncs, skews, shard *string
	skewRandom                        *bool
	spread                            spreadFlags
	placements                        placementFlags
	set                               map[string]bool // the flags given, once parsed
	cfg                               compare.Config  // the engine's configuration, once read
}

func registerCompareFlags(fs *flag.FlagSet) *compareFlags {
	f := &compareFlags{}
	f.trace.register(fs)
	f.genSpec = fs.String("gen", "", "replay a generated `scenario` instead of a trace, e.g. 'population:requests=1e6,sources=270000' (see ratebench gen -list)")
	fs.Var(&f.rules, "rule", "rate limit `L/W`, e.g. 100/1m, or layered limits L/W+L/W, e.g. 5/1s+100/1m; repeat or comma-separate for several (default 5/30s)")
	f.algs = fs.String("alg", strings.Join(algorithms.DefaultSpecs, ","), "comma-separated `algorithms` to compare with the log: "+specList())
	f.ref = fs.String("ref", "log", "the `reference` the algorithms are measured against: log, the exact sliding log, or the log behind a refusal cache, log:block (a key it refuses is refused till the window's end) or log:block=D (for D, as Cloudflare's mitigation timeout); give the candidates the same cache (counter:block=D) to measure the mechanism")
	f.modes = fs.String("mode", strings.Join(summary.DefaultModes, ","), "comparison `modes`: independent, shadow, or both")
	f.counts = fs.String("count", "accepted", "counting `policy`: accepted, all, or both (accepted,all)")
	f.out = fs.String("o", "", "the results folder `DIR` (default "+runsDir+"/<trace name>)")
	f.top = fs.Int("top", 10, "keys listed per run by disagreement")
	f.cpuProfile = fs.String("cpuprofile", "", "write a CPU profile of the replay to `file`")
	f.memProfile = fs.String("memprofile", "", "write a heap profile at the end of the replay to `file`")
	f.sweep = fs.String("sweep", "", "a grid of rules, e.g. 'L=5,10,50,100,1000;W=1s,1m' (added to -rule; an axis left out takes the first -rule's)")
	f.budget.register(fs, "the verdict and the report choose within it")
	f.check = fs.String("check", "", "at the end, hold `ALG`'s runs to the budget (or the default policy's tolerances) as ratebench check does: exit status 3 when one breaks")
	f.withReport = fs.Bool("report", true, "write report.md, report.html and plots/ beside summary.json (false removes those of earlier results)")
	f.force = fs.Bool("force", false, "overwrite the results of another trace in the output dir (a trace file is known by its content; standard input never counts as the same trace)")
	f.png = fs.Bool("png", true, "with -report, write a PNG of every plot beside its SVG")
	f.workers = fs.Int("workers", defaultWorkers(), "goroutines replaying keys in parallel (the results are the same for any number)")
	fs.Var(&f.clients, "clients", "closed-loop clients that re-send what they are refused: `retry:POLICY`, POLICY immediate, backoff or honor (with parameters: retry:backoff:base=100ms,max=8), or retry:all; repeat for several")
	f.clientSeed = fs.Uint64("client-seed", 1, "seed of the closed-loop clients' backoff jitter")
	f.nodes = fs.String("nodes", "", "simulate distributed deployments on these `counts` of nodes, e.g. 1,2,4,8 (window algorithms, against the exact global log)")
	f.route = fs.String("route", "random", "with -nodes, how the load balancer spreads a client's requests: random, hash or roundrobin")
	f.syncs = fs.String("sync", "0", "with -nodes, `intervals` at which nodes exchange their counts with the shared store, e.g. 0,100ms,1s,10s (0: a central store)")
	f.skews = fs.String("skew", "0", "with -nodes, clock `skews` spread over the nodes, e.g. 0,10ms,100ms,1s")
	f.skewRandom = fs.Bool("skew-random", false, "with -nodes, draw each node's clock offset in [-skew, skew] instead of spreading them evenly")
	f.shard = fs.String("shard", "", "replay only shard `i/n` of the keys (by hash); combine the shards with ratebench merge")
	f.deviations = fs.Bool("deviations", false, "weigh each product's deviations: replay every product once more per deviation, turned off alone, to give each one's share of the product's disagreement with its textbook twin")
	f.spread.register(fs)
	f.placements.register(fs)
	return f
}

// config is the engine's configuration the flags give, within the bounds
// of checkCompareSize.
func (f *compareFlags) config() (compare.Config, error) {
	cfg := compare.Config{TopKeys: *f.top, Algorithms: strings.Split(*f.algs, ","), Workers: *f.workers, ClientSeed: *f.clientSeed, Reference: *f.ref, Deviations: *f.deviations}
	for _, v := range f.clients {
		pols, err := parseClients(v)
		if err != nil {
			return cfg, usageError{err.Error()}
		}
		cfg.Clients = append(cfg.Clients, pols...)
	}
	if *f.nodes != "" {
		dp, err := deploymentFlags(*f.nodes, *f.route, *f.syncs, *f.skews, *f.skewRandom)
		if err != nil {
			return cfg, usageError{err.Error()}
		}
		cfg.Deployment = dp
	}
	if *f.shard != "" {
		sh, err := parseShard(*f.shard)
		if err != nil {
			return cfg, usageError{err.Error()}
		}
		cfg.Shard = sh
	}
	if err := f.addRules(&cfg); err != nil {
		return cfg, err
	}
	budget, err := f.budget.budget()
	if err != nil {
		return cfg, usageError{err.Error()}
	}
	cfg.Budget = budget
	cfg.Modes, cfg.Counts = parseModes(*f.modes), parseCounts(*f.counts)
	return cfg, checkCompareSize(cfg)
}

// addRules sets the rules of -rule (plain and layered) and of -sweep.
func (f *compareFlags) addRules(cfg *compare.Config) error {
	for _, list := range f.rules {
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
	if *f.sweep == "" {
		return nil
	}
	base := compare.DefaultConfig().Rules[0]
	if len(cfg.Rules) > 0 {
		base = cfg.Rules[0]
	}
	sw, rs, err := summary.ParseSweep(*f.sweep, base)
	if err != nil {
		return usageError{err.Error()}
	}
	cfg.Sweep = sw
	for _, r := range rs {
		if !slices.Contains(cfg.Rules, r) {
			cfg.Rules = append(cfg.Rules, r)
		}
	}
	return nil
}

// replay opens the trace (or the generator) and replays it through eng
// into the results folder. SIGINT and SIGTERM stop the reading of the
// trace too, even while it waits for input or skips bad records: the
// replay then ends as interrupted. Once the replay is over they end the
// process again.
func (f *compareFlags) replay(stdout, stderr io.Writer, eng *compare.Engine) error {
	sig, stopSignals := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stopSignals()
	f.trace.cancel = sig.Done()
	if sh := f.shardOf(); sh != nil {
		f.trace.shardIndex, f.trace.shardCount = sh.Index, sh.Count
	}
	spreading, err := f.spread.prepare(&f.trace, *f.genSpec != "", f.set, f.shardOf())
	if err != nil {
		return err
	}
	r, path, format, name, err := f.trace.openOrGenerate(*f.genSpec)
	if err != nil {
		return err
	}
	defer r.Close()
	if d := traces.DatasetOf(r); d != nil && f.trace.shardCount > 1 && len(d.Parts()) == d.Manifest().Partitions {
		fmt.Fprintf(stderr, "shard %s reads every part of the dataset: %d does not divide its %d partitions (a shard count that does reads only its own)\n",
			*f.shard, f.trace.shardCount, d.Manifest().Partitions)
	}
	dir := *f.out
	if dir == "" {
		dir = filepath.Join(runsDir, name)
	}
	info := summary.TraceInfo{Path: path, Format: format}
	if *f.genSpec == "" {
		info.Fingerprint = resultsdir.Fingerprint(path)
		info.Input = f.trace.inputArgs()
	}
	job := replayJob{stdout: stdout, stderr: stderr, eng: eng, r: r, info: info,
		dir: dir, cpuProfile: *f.cpuProfile, memProfile: *f.memProfile, force: *f.force,
		report: *f.withReport, reportOpt: report.Options{NoPNG: !*f.png}, ctx: sig, stopSignals: stopSignals, spread: spreading}
	if f.placements.count > 0 && spreading == nil {
		job.place = &compare.Placements{Count: f.placements.count, Seed: f.placements.seed, Counts: shardKeys(f.shardOf()), Progress: stderr,
			NewEngine: func() (*compare.Engine, error) { return compare.New(f.cfg) },
			Reopen: func() (traces.Reader, error) {
				r, _, _, _, err := f.trace.openOrGenerate(*f.genSpec)
				return r, err
			},
		}
		if err := f.trace.rereadable("placing them reads the trace again"); *f.genSpec == "" && err != nil {
			job.place.Cannot = err.Error()
		}
	}
	if err := f.trace.adviseReorder(job.run(), format, "compare", rerunArgs(f.trace.flags, "compare")...); err != nil || *f.check == "" {
		return err
	}
	// -check: the gate of ratebench check, on the summary just written.
	s, err := summary.ReadSummaryFile(filepath.Join(dir, summaryFile))
	if err != nil {
		return err
	}
	return checkBudget(stdout, s, *f.check, nil)
}

// specList lists, for -alg's help, the catalogue's specs and the sets that
// name several kinds at once.
func specList() string {
	var s, sets []string
	for _, c := range algorithms.Catalogue() {
		s = append(s, c.Spec)
	}
	for _, set := range algorithms.Sets() {
		sets = append(sets, set.Name+" ("+set.About+")")
	}
	return strings.Join(s, ", ") + "; or a set of them, " + strings.Join(sets, ", ") +
		", in the catalogue's order, a kind the rule cannot express left out with a note (log,products: the log beside every product)"
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
