package cloudflare

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"ratebench/compare/resultsdir"
	"ratebench/internal/escape"
	"ratebench/report"
	"ratebench/summary"
)

// RewriteReadme rewrites dir's README.md from its summary.json, its
// perf.json if there is one, and the search in dir's SearchDir (whose plot
// and page it rewrites too), each folder locked and its files committed
// as one set, replaying nothing; it says on stdout what it wrote. It
// refuses a folder whose summaries are not those of the experiment (a
// replay of Experiment and its search).
func RewriteReadme(stdout io.Writer, dir string) error {
	path := filepath.Join(dir, resultsdir.SummaryFile)
	sum, err := summary.ReadSummaryFile(path)
	if err != nil {
		return err
	}
	if err := checkExperiment(sum); err != nil {
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
	searchDir := filepath.Join(dir, SearchDir)
	var search *summary.CloudflareSearch
	if kind, _ := resultsdir.KindOf(searchDir); kind != resultsdir.KindNone {
		srd, err := resultsdir.Lock(searchDir)
		if err != nil {
			return err
		}
		defer srd.Close()
		if search, err = ReadSearch(searchDir); err != nil {
			return err
		}
		if err := stageSearchPages(srd, search); err != nil {
			return err
		}
		if err := srd.Commit(func(rel string) bool {
			return rel != resultsdir.SummaryFile && rel != PartialFile && ownsSearch(rel)
		}); err != nil {
			return err
		}
	}
	var buf bytes.Buffer
	if err := report.CloudflareREADME(&buf, sum, timing, commandOf(sum), search); err != nil {
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

// checkExperiment says why sum is not the summary of a replay of
// Experiment (nil if it is): a whole replay of a generated population
// under one rule, through the log and the counter, under both counting
// policies and both modes.
func checkExperiment(sum *summary.Summary) error {
	c := sum.Config
	switch {
	case sum.Trace.Format != "generated" || !strings.HasPrefix(sum.Trace.Path, resultsdir.GenPrefix+"population:"):
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

// keptTiming returns the timing sentence of a page report.CloudflareREADME
// wrote (the end of its "Trace: " line from " Wall time "), "" if it has
// none.
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
