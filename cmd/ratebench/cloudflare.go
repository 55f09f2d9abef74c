package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
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

const cloudflareSynopsis = "[-requests N] [-sources K] [-rate R] [-alpha A] [-rule L/W] [-seed S] [DIR]\n\n" +
	"DIR (or -o DIR) is the results folder, by default " + cloudflareRunsDir + "; the committed figures in results/cloudflare/ are written only by make cloudflare."

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
	if err := parseCommand(fs, args, operand{"DIR", "the results folder", "o", out}); err != nil {
		return err
	}
	rule, err := algorithms.ParseRule(*ruleS)
	if err != nil {
		return usageError{err.Error()}
	}
	spec := fmt.Sprintf("population:requests=%d,sources=%d,rate=%g,alpha=%g,seed=%d", *requests, *sources, *rate, *alpha, *seed)
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
		err := report.CloudflareREADME(&buf, sum, perf, strings.TrimSpace(command))
		return buf.Bytes(), err
	}
	job := replayJob{stdout: stdout, stderr: stderr, eng: eng, r: g, info: summary.TraceInfo{Path: genPrefix + spec, Format: "generated"},
		dir: *out, cpuProfile: *cpuProfile, force: true, report: true, readme: readme}
	return job.run()
}
