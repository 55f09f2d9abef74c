package cloudflare

import (
	"bytes"
	"fmt"
	"path/filepath"
	"time"

	"ratebench/algorithms"
	"ratebench/compare"
	"ratebench/compare/resultsdir"
	"ratebench/generators"
	"ratebench/report"
	"ratebench/summary"
)

// Experiment is Cloudflare's comparison on a generated population:
// Requests requests from Sources Poisson sources whose mean rates, Rate
// per second on average, follow a Pareto law of tail index Alpha (each
// capped at Max times Rate), replayed under Rule through the exact log and
// the counter, under both counting policies and both modes.
type Experiment struct {
	Requests    int64
	Sources     int
	Rate, Alpha float64
	Max         *float64 // nil: the population's own cap
	Rule        algorithms.Rule
	Seed        uint64
}

// Published returns the experiment at the scale Cloudflare published (the
// rule, the rates and the seed, which it did not publish, are ours): the
// defaults of ratebench cloudflare.
func Published() Experiment {
	return Experiment{Requests: summary.CloudflareRequests, Sources: summary.CloudflareSources, Rate: 0.2, Alpha: 1.5,
		Rule: algorithms.Rule{L: 100, W: int64(time.Minute)}, Seed: 1}
}

// spec is the generator spec of e's population.
func (e Experiment) spec() string {
	if e.Max != nil {
		return fmt.Sprintf("population:requests=%d,sources=%d,rate=%g,alpha=%g,max=%g,seed=%d", e.Requests, e.Sources, e.Rate, e.Alpha, *e.Max, e.Seed)
	}
	return fmt.Sprintf("population:requests=%d,sources=%d,rate=%g,alpha=%g,seed=%d", e.Requests, e.Sources, e.Rate, e.Alpha, e.Seed)
}

// Replay is an experiment made ready to replay into its results folder.
type Replay struct {
	Engine     *compare.Engine
	Population *generators.Generator
	Trace      summary.TraceInfo // what the summary records of the population
	// Page is the folder's README.md for the summary and timing of a
	// whole replay, with the answer of the search in the folder's
	// SearchDir if there is one.
	Page func(*summary.Summary, summary.Perf) ([]byte, error)
}

// Prepare makes e ready to replay into dir, its keys shared by workers
// goroutines; flags are those given that change the figures (the page's
// command). It fails if the population cannot be generated.
func (e Experiment) Prepare(dir string, workers int, flags []Flag) (*Replay, error) {
	spec := e.spec()
	gen, err := generators.New(spec, generators.Params{})
	if err != nil {
		return nil, err
	}
	eng, err := compare.New(compare.Config{
		Rules:      []algorithms.Rule{e.Rule},
		Algorithms: []string{"log", "counter"},
		Modes:      []compare.Mode{compare.Independent, compare.Shadow},
		Counts:     []compare.Count{compare.CountAccepted, compare.CountAll},
		Workers:    workers,
	})
	if err != nil {
		return nil, err
	}
	page := func(sum *summary.Summary, perf summary.Perf) ([]byte, error) {
		search, err := ReadSearch(filepath.Join(dir, SearchDir))
		if err != nil {
			return nil, err
		}
		var buf bytes.Buffer
		err = report.CloudflareREADME(&buf, sum, report.CloudflareTiming(perf), runCommand(flags), search)
		return buf.Bytes(), err
	}
	return &Replay{Engine: eng, Population: gen, Trace: summary.TraceInfo{Path: resultsdir.GenPrefix + spec, Format: "generated"}, Page: page}, nil
}
