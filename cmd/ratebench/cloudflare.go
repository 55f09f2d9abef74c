package main

import (
	"context"
	"flag"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"syscall"

	"ratebench/algorithms"
	"ratebench/experiments/cloudflare"
)

// cloudflareRunsDir is the default results folder of cloudflare, beside
// the other runs: make cloudflare names results/cloudflare/ with -o.
const cloudflareRunsDir = runsDir + "/cloudflare"

const cloudflareSynopsis = "[-requests N] [-sources K] [-rate R] [-alpha A] [-max M] [-rule L/W] [-block D] [-search GRID | -full] [-seed S] [DIR]\n\n" +
	"DIR (or -o DIR) is the results folder, by default " + cloudflareRunsDir + "; the committed figures in results/cloudflare/ are written only by make cloudflare, make cloudflare-search and make cloudflare-full.\n\n" +
	"Without -block or -search, the log and the counter are replayed under both counting policies and both modes. " +
	"With -block (Cloudflare's mitigation timeout: a source refused once is refused for D) or -search (a grid of the rule, the population " +
	"and the timeout, e.g. 'L=20,100;W=10s,1m;rate=0.05,0.2;alpha=1.5,3;max=5,1000;block=0,1m;alg=counter,counter-floor'), the log and the counter are both put " +
	"behind the same timeout and compared under count all, every point on " + "4,000,000 requests from 2,700 sources unless -requests and -sources say otherwise " +
	"(the full-scale traffic per source, from a hundredth of the sources). -full replays the 3 points of DIR/search/summary.json closest to the published figures " +
	"(the page's order, the closest first) at the full scale, 400,000,000 requests from 270,000 sources unless -requests and -sources say otherwise, " +
	"each into DIR/search/full/1, 2 and 3. -readme rewrites DIR/README.md (and the search's plot and page) from DIR/summary.json and DIR/search/ (its summary.json and full/)."

// runCloudflare reproduces Cloudflare's published accuracy experiment for
// the sliding-window counter on a synthetic population and writes the
// figures beside the published ones (package experiments/cloudflare).
func runCloudflare(stdout, stderr io.Writer, args []string) error {
	def := cloudflare.Published()
	fs := newFlagSet("cloudflare", stderr, cloudflareSynopsis)
	requests := fs.Int64("requests", def.Requests, "requests to replay (Cloudflare: 400 million)")
	sources := fs.Int("sources", def.Sources, "number of sources (Cloudflare: 270,000)")
	rate := fs.Float64("rate", def.Rate, "mean requests per second per source")
	alpha := fs.Float64("alpha", def.Alpha, "Pareto tail index of the per-source rates (smaller is heavier)")
	ruleS := fs.String("rule", def.Rule.String(), "the rate limit (Cloudflare did not publish theirs)")
	seed := fs.Uint64("seed", def.Seed, "random seed")
	out := fs.String("o", cloudflareRunsDir, "the results folder `DIR`")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the replay to `file`")
	workers := fs.Int("workers", defaultWorkers(), "goroutines replaying keys in parallel (the results are the same for any number)")
	maxRate := fs.Float64("max", 1000, "cap on a source's rate, as a multiple of the mean rate (a small cap keeps every rate near the mean)")
	block := fs.String("block", "", "the mitigation timeout `D`: a source refused once is refused for D (or window: till the window's end), by the log and the counter alike")
	search := fs.String("search", "", "search a `GRID` of rules, populations and timeouts (see above) instead of the full experiment")
	readmeOnly := fs.Bool("readme", false, "rewrite DIR/README.md from the summaries in DIR, replaying nothing")
	full := fs.Bool("full", false, "replay the 3 points of the search in DIR/search closest to the published figures at full scale, into DIR/search/full/")
	force := fs.Bool("force", false, "write into a folder that holds the results of another run (another trace's, or another kind of run's)")
	if err := parseCommand(fs, args, operand{"DIR", "the results folder", "o", out}); err != nil {
		return err
	}
	rule, err := algorithms.ParseRule(*ruleS)
	if err != nil {
		return usageError{err.Error()}
	}
	if err := checkWorkers(*workers); err != nil {
		return err
	}
	set := map[string]bool{}
	var flags []cloudflare.Flag // those that change the figures, for the command the pages record
	fs.Visit(func(f *flag.Flag) {
		set[f.Name] = true
		if !slices.Contains([]string{"o", "cpuprofile", "workers", "force"}, f.Name) {
			flags = append(flags, cloudflare.Flag{Name: f.Name, Value: f.Value.String()})
		}
	})
	if *readmeOnly {
		return cloudflare.RewriteReadme(stdout, *out)
	}
	if *full {
		for _, name := range []string{"rate", "alpha", "max", "rule", "block", "search"} {
			if set[name] {
				return usageError{"-full replays the search's own points: -" + name + " does not apply"}
			}
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		return cloudflare.Full{Dir: *out, Pop: cloudflare.Population{Requests: *requests, Sources: *sources, Seed: *seed},
			Workers: *workers, Force: *force, Stdout: stdout, Stderr: stderr}.Run(ctx)
	}
	if *search != "" || set["block"] {
		b := "" // none
		if set["block"] {
			if b, err = cloudflare.ParseBlock(*block); err != nil {
				return usageError{"-block: " + err.Error()}
			}
		}
		base := cloudflare.Grid{Rules: []algorithms.Rule{rule}, Rates: []float64{*rate}, Alphas: []float64{*alpha}, Maxes: []float64{*maxRate}, Blocks: []string{b}, Algs: []string{"counter"}}
		g, err := cloudflare.ParseGrid(*search, base)
		if err != nil {
			return usageError{err.Error()}
		}
		pop := cloudflare.Population{Requests: cloudflare.SearchRequests, Sources: cloudflare.SearchSources, Seed: *seed}
		if set["requests"] {
			pop.Requests = *requests
		}
		if set["sources"] {
			pop.Sources = *sources
		}
		if err := g.Check(pop); err != nil {
			return usageError{"-search: " + err.Error()}
		}
		dir := *out
		if dir == cloudflareRunsDir { // beside a run's summary, not over it
			dir = filepath.Join(cloudflareRunsDir, cloudflare.SearchDir)
		}
		// SIGINT or SIGTERM stop the search, keeping the points done; once
		// they are replayed, a signal ends the process again.
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		s := cloudflare.Search{Dir: dir, Grid: g, Pop: pop, Workers: *workers, Flags: flags, Force: *force, Stdout: stdout, Stderr: stderr, Replayed: stop}
		return s.Run(ctx)
	}
	exp := cloudflare.Experiment{Requests: *requests, Sources: *sources, Rate: *rate, Alpha: *alpha, Rule: rule, Seed: *seed}
	if set["max"] {
		exp.Max = maxRate
	}
	r, err := exp.Prepare(*out, *workers, flags)
	if err != nil {
		return usageError{err.Error()}
	}
	job := replayJob{stdout: stdout, stderr: stderr, eng: r.Engine, r: r.Population, info: r.Trace,
		dir: *out, cpuProfile: *cpuProfile, force: *force, report: true, readme: r.Page}
	return job.run()
}
