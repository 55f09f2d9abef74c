package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"ratebench/algorithms"
	"ratebench/compare"
	"ratebench/experiments/cloudflare"
	"ratebench/generators"
	"ratebench/internal/escape"
	"ratebench/report"
	"ratebench/summary"
	"ratebench/summary/resultsdir"
)

// cloudflareRunsDir is the default results folder of cloudflare, beside
// the other runs: make cloudflare names results/cloudflare/ with -o.
const cloudflareRunsDir = runsDir + "/cloudflare"

const cloudflareSynopsis = "[-requests N] [-sources K] [-rate R] [-alpha A] [-max M] [-rule L/W] [-block D] [-search GRID] [-seed S] [DIR]\n\n" +
	"DIR (or -o DIR) is the results folder, by default " + cloudflareRunsDir + "; the committed figures in results/cloudflare/ are written only by make cloudflare and make cloudflare-search.\n\n" +
	"Without -block or -search, the log and the counter are replayed under both counting policies and both modes. " +
	"With -block (Cloudflare's mitigation timeout: a source refused once is refused for D) or -search (a grid of the rule, the population " +
	"and the timeout, e.g. 'L=20,100;W=10s,1m;rate=0.05,0.2;alpha=1.5,3;max=5,1000;block=0,1m;alg=counter,counter-floor'), the log and the counter are both put " +
	"behind the same timeout and compared under count all, every point on " + "4,000,000 requests from 2,700 sources unless -requests and -sources say otherwise " +
	"(the full-scale traffic per source, from a hundredth of the sources); -readme rewrites DIR/README.md (and the search's plot and page) from DIR/summary.json and DIR/search/summary.json."

// runCloudflare reproduces Cloudflare's published accuracy experiment for
// the sliding-window counter on a synthetic population and writes the
// figures beside the published ones.
func runCloudflare(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("cloudflare", stderr, cloudflareSynopsis)
	requests := fs.Int64("requests", 400_000_000, "requests to replay (Cloudflare: 400 million)")
	sources := fs.Int("sources", 270_000, "number of sources (Cloudflare: 270,000)")
	rate := fs.Float64("rate", 0.2, "mean requests per second per source")
	alpha := fs.Float64("alpha", 1.5, "Pareto tail index of the per-source rates (smaller is heavier)")
	ruleS := fs.String("rule", "100/1m", "the rate limit (Cloudflare did not publish theirs)")
	seed := fs.Uint64("seed", 1, "random seed")
	out := fs.String("o", cloudflareRunsDir, "the results folder `DIR`")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the replay to `file`")
	workers := fs.Int("workers", defaultWorkers(), "goroutines replaying keys in parallel (the results are the same for any number)")
	maxRate := fs.Float64("max", 1000, "cap on a source's rate, as a multiple of the mean rate (a small cap keeps every rate near the mean)")
	block := fs.String("block", "", "the mitigation timeout `D`: a source refused once is refused for D (or window: till the window's end), by the log and the counter alike")
	search := fs.String("search", "", "search a `GRID` of rules, populations and timeouts (see above) instead of the full experiment")
	readmeOnly := fs.Bool("readme", false, "rewrite DIR/README.md from the summaries in DIR, replaying nothing")
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
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if *readmeOnly {
		return cloudflareReadme(stdout, *out)
	}
	if *search != "" || set["block"] {
		b := "" // none
		if set["block"] {
			if b, err = parseBlock(*block); err != nil {
				return usageError{"-block: " + err.Error()}
			}
		}
		base := cloudflare.Grid{Rules: []algorithms.Rule{rule}, Rates: []float64{*rate}, Alphas: []float64{*alpha}, Maxes: []float64{*maxRate}, Blocks: []string{b}, Algs: []string{"counter"}}
		g, err := parseSearch(*search, base)
		if err != nil {
			return usageError{err.Error()}
		}
		pop := cloudflare.Population{Requests: searchRequests, Sources: searchSources, Seed: *seed}
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
			dir = filepath.Join(cloudflareRunsDir, "search")
		}
		command := "ratebench cloudflare"
		fs.Visit(func(f *flag.Flag) {
			if !slices.Contains([]string{"o", "cpuprofile", "workers", "force"}, f.Name) {
				command += " -" + f.Name + " " + quotedWord(f.Value.String())
			}
		})
		job := searchJob{stdout: stdout, stderr: stderr, dir: dir, grid: g, pop: pop, workers: *workers, command: command, force: *force}
		return job.run()
	}
	spec := fmt.Sprintf("population:requests=%d,sources=%d,rate=%g,alpha=%g,seed=%d", *requests, *sources, *rate, *alpha, *seed)
	if set["max"] {
		spec = fmt.Sprintf("population:requests=%d,sources=%d,rate=%g,alpha=%g,max=%g,seed=%d", *requests, *sources, *rate, *alpha, *maxRate, *seed)
	}
	g, err := generators.New(spec, generators.Params{})
	if err != nil {
		return usageError{err.Error()}
	}
	eng, err := compare.New(compare.Config{
		Rules:      []algorithms.Rule{rule},
		Algorithms: []string{"log", "counter"},
		Modes:      []compare.Mode{compare.Independent, compare.Shadow},
		Counts:     []compare.Count{compare.CountAccepted, compare.CountAll},
		Workers:    *workers,
	})
	if err != nil {
		return err
	}
	command := "ratebench cloudflare"
	fs.Visit(func(f *flag.Flag) { // the flags that change the figures
		if !slices.Contains([]string{"o", "cpuprofile", "workers", "force"}, f.Name) {
			command += " -" + f.Name + " " + escape.ShellWord(f.Value.String())
		}
	})
	readme := func(sum *summary.Summary, perf summary.Perf) ([]byte, error) {
		var buf bytes.Buffer
		search, err := readSearch(filepath.Join(*out, "search"))
		if err != nil {
			return nil, err
		}
		err = report.CloudflareREADME(&buf, sum, report.CloudflareTiming(perf), strings.TrimSpace(command), search)
		return buf.Bytes(), err
	}
	job := replayJob{stdout: stdout, stderr: stderr, eng: eng, r: g, info: summary.TraceInfo{Path: genPrefix + spec, Format: "generated"},
		dir: *out, cpuProfile: *cpuProfile, force: *force, report: true, readme: readme}
	return job.run()
}

// cloudflareReadme rewrites dir's README.md from its summary.json, its
// perf.json if there is one, and the search in dir/search (whose plot and
// page it rewrites too), each folder locked and its files committed as
// one set. It refuses a folder whose summaries are not those of the
// Cloudflare experiment (ratebench cloudflare and its search).
func cloudflareReadme(stdout io.Writer, dir string) error {
	path := filepath.Join(dir, summaryFile)
	sum, err := summary.ReadSummaryFile(path)
	if err != nil {
		return err
	}
	if err := cloudflareExperiment(sum); err != nil {
		return fmt.Errorf("%s is not the summary of ratebench cloudflare (%v): cloudflare -readme describes only its results folder", escape.Visible(path), err)
	}
	rd, err := resultsdir.Lock(dir)
	if err != nil {
		return err
	}
	defer rd.Close()
	var timing string
	if data, err := os.ReadFile(filepath.Join(dir, resultsdir.PerfFile)); err == nil {
		var perf summary.Perf
		if err := json.Unmarshal(data, &perf); err != nil {
			return fmt.Errorf("%s: %v", filepath.Join(dir, resultsdir.PerfFile), err)
		}
		timing = report.CloudflareTiming(perf)
	} else if old, err := os.ReadFile(filepath.Join(dir, resultsdir.ReadmeFile)); err == nil {
		timing = keptTiming(string(old)) // perf.json is not committed: keep the full run's timing as its page gave it
	}
	searchDir := filepath.Join(dir, "search")
	var search *summary.CloudflareSearch
	if kind, _ := resultsdir.KindOf(searchDir); kind != resultsdir.KindNone {
		srd, err := resultsdir.Lock(searchDir)
		if err != nil {
			return err
		}
		defer srd.Close()
		if search, err = readSearch(searchDir); err != nil {
			return err
		}
		if err := stageSearchPages(srd, search); err != nil {
			return err
		}
		if err := srd.Commit(func(rel string) bool { return rel != summaryFile && rel != searchPartialFile && ownsSearch(rel) }); err != nil {
			return err
		}
	}
	var buf bytes.Buffer
	if err := report.CloudflareREADME(&buf, sum, timing, cloudflareCommand(sum), search); err != nil {
		return err
	}
	if err := rd.Write(resultsdir.ReadmeFile, buf.Bytes()); err != nil {
		return err
	}
	if err := rd.Commit(func(rel string) bool { return rel == resultsdir.ReadmeFile }); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s\n", escape.Visible(filepath.Join(dir, resultsdir.ReadmeFile)))
	return nil
}

// cloudflareExperiment says why sum is not the summary ratebench
// cloudflare writes (nil if it is): a whole replay of a generated
// population under one rule, through the log and the counter, under both
// counting policies and both modes.
func cloudflareExperiment(sum *summary.Summary) error {
	c := sum.Config
	switch {
	case sum.Trace.Format != "generated" || !strings.HasPrefix(sum.Trace.Path, genPrefix+"population:"):
		return fmt.Errorf("its trace is %s, not a generated population", escape.Visible(sum.Trace.Path))
	case sum.Partial || sum.Shard != nil:
		return errors.New("it is partial")
	case len(c.Rules) != 1 || c.Sweep != nil || len(c.Clients) > 0 || c.Deployment != nil:
		return errors.New("its replay is not of one rule alone")
	case !slices.Equal(c.Algorithms, []string{"log", "counter"}):
		return fmt.Errorf("its algorithms are %s, not the log and the counter", escape.Visible(strings.Join(c.Algorithms, ",")))
	case !slices.Equal(c.Counts, []string{"accepted", "all"}) || !slices.Equal(c.Modes, []string{"independent", "shadow"}):
		return errors.New("it is not of both counting policies and both modes")
	}
	return nil
}

// cloudflareCommand returns the command that replays the experiment of
// sum: the flags whose values differ from the defaults, read back from the
// generated trace's parameters and the rule.
func cloudflareCommand(sum *summary.Summary) string {
	command := "ratebench cloudflare"
	defaults := map[string]string{"requests": "400000000", "sources": "270000", "rate": "0.2", "alpha": "1.5", "seed": "1"}
	_, params, _ := strings.Cut(strings.TrimPrefix(sum.Trace.Path, genPrefix), ":")
	for _, kv := range strings.Split(params, ",") {
		k, v, _ := strings.Cut(kv, "=")
		if d, ok := defaults[k]; !ok || d != v {
			command += " -" + k + " " + escape.ShellWord(v)
		}
	}
	if len(sum.Config.Rules) == 1 && sum.Config.Rules[0] != "100/1m" {
		command += " -rule " + escape.ShellWord(sum.Config.Rules[0])
	}
	return command
}

// keptTiming returns the timing sentence of a page CloudflareREADME wrote
// (the end of its "Trace: " line from " Wall time "), "" if it has none.
func keptTiming(page string) string {
	for _, line := range strings.Split(page, "\n") {
		if strings.HasPrefix(line, "Trace: ") {
			if i := strings.Index(line, " Wall time "); i >= 0 {
				return line[i:]
			}
		}
	}
	return ""
}
