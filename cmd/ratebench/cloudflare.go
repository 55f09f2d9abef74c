package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"ratebench/algorithms"
	"ratebench/compare"
	"ratebench/generators"
	"ratebench/report"
	"ratebench/summary"
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
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "goroutines replaying keys in parallel (the results are the same for any number)")
	maxRate := fs.Float64("max", 1000, "cap on a source's rate, as a multiple of the mean rate (a small cap keeps every rate near the mean)")
	block := fs.String("block", "", "the mitigation timeout `D`: a source refused once is refused for D (or window: till the window's end), by the log and the counter alike")
	search := fs.String("search", "", "search a `GRID` of rules, populations and timeouts (see above) instead of the full experiment")
	readmeOnly := fs.Bool("readme", false, "rewrite DIR/README.md from the summaries in DIR, replaying nothing")
	if err := parseCommand(fs, args, operand{"DIR", "the results folder", "o", out}); err != nil {
		return err
	}
	rule, err := algorithms.ParseRule(*ruleS)
	if err != nil {
		return usageError{err.Error()}
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if *readmeOnly {
		return cloudflareReadme(stdout, *out)
	}
	if *search != "" || set["block"] {
		b, err := parseBlock(*block)
		if err != nil {
			return usageError{err.Error()}
		}
		base := searchGrid{rules: []algorithms.Rule{rule}, rates: []float64{*rate}, alphas: []float64{*alpha}, maxes: []float64{*maxRate}, blocks: []string{b}, algs: []string{"counter"}}
		g, err := parseSearch(*search, base)
		if err != nil {
			return usageError{err.Error()}
		}
		n, k := int64(searchRequests), searchSources
		if set["requests"] {
			n = *requests
		}
		if set["sources"] {
			k = *sources
		}
		dir := *out
		if dir == cloudflareRunsDir { // beside a run's summary, not over it
			dir = filepath.Join(cloudflareRunsDir, "search")
		}
		pts, err := runSearch(g, n, k, *seed, *workers)
		if err != nil {
			return err
		}
		command := "ratebench cloudflare"
		fs.Visit(func(f *flag.Flag) {
			if f.Name != "o" && f.Name != "cpuprofile" && f.Name != "workers" {
				command += fmt.Sprintf(" -%s '%s'", f.Name, f.Value)
			}
		})
		s := &summary.CloudflareSearch{Command: command, Requests: n, Sources: k, Scale: float64(cfFullSources) / float64(k), Count: string(compare.CountAll), Points: pts}
		return writeSearch(stdout, dir, s)
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
		if f.Name != "o" && f.Name != "cpuprofile" && f.Name != "workers" {
			command += fmt.Sprintf(" -%s %s", f.Name, f.Value)
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
		dir: *out, cpuProfile: *cpuProfile, force: true, report: true, readme: readme}
	return job.run()
}

// cloudflareReadme rewrites dir's README.md from its summary.json, its
// perf.json if there is one, and the search in dir/search (whose plot and
// page it rewrites too).
func cloudflareReadme(stdout io.Writer, dir string) error {
	sum, err := summary.ReadSummaryFile(filepath.Join(dir, summaryFile))
	if err != nil {
		return err
	}
	var timing string
	if data, err := os.ReadFile(filepath.Join(dir, perfFile)); err == nil {
		var perf summary.Perf
		if err := json.Unmarshal(data, &perf); err != nil {
			return fmt.Errorf("%s: %v", filepath.Join(dir, perfFile), err)
		}
		timing = report.CloudflareTiming(perf)
	} else if old, err := os.ReadFile(filepath.Join(dir, readmeFile)); err == nil {
		timing = keptTiming(string(old)) // perf.json is not committed: keep the full run's timing as its page gave it
	}
	search, err := readSearch(filepath.Join(dir, "search"))
	if err != nil {
		return err
	}
	if search != nil {
		if err := writeSearchPages(filepath.Join(dir, "search"), search); err != nil {
			return err
		}
	}
	var buf bytes.Buffer
	if err := report.CloudflareREADME(&buf, sum, timing, cloudflareCommand(sum), search); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, readmeFile), buf.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s\n", filepath.Join(dir, readmeFile))
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
			command += fmt.Sprintf(" -%s %s", k, v)
		}
	}
	if len(sum.Config.Rules) == 1 && sum.Config.Rules[0] != "100/1m" {
		command += " -rule " + sum.Config.Rules[0]
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
