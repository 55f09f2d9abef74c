package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"ratebench/algorithms"
	"ratebench/compare"
)

const compareSynopsis = "-trace FILE [-rule L/W ...] [-alg LIST] [-mode LIST] [-count LIST] [-o DIR]"

func runCompare(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("compare", stderr, compareSynopsis)
	var tf traceFlags
	tf.register(fs)
	var rules listFlag
	fs.Var(&rules, "rule", "rate limit `L/W`, e.g. 100/1m; repeat or comma-separate for several (default 5/30s)")
	algs := fs.String("alg", strings.Join(algorithms.DefaultSpecs, ","), "comma-separated `algorithms` to compare with the log: "+specList())
	modes := fs.String("mode", "independent,shadow", "comparison `modes`: independent, shadow, or both")
	counts := fs.String("count", "accepted", "counting `policy`: accepted, all, or both (accepted,all)")
	out := fs.String("o", "", "output `dir` (default results/<trace name>)")
	top := fs.Int("top", 10, "keys listed per run by disagreement")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	cfg := compare.Config{TopKeys: *top, Algorithms: strings.Split(*algs, ",")}
	for _, list := range rules {
		for _, s := range strings.Split(list, ",") {
			r, err := algorithms.ParseRule(s)
			if err != nil {
				return usageError{err.Error()}
			}
			cfg.Rules = append(cfg.Rules, r)
		}
	}
	var err error
	if cfg.Modes, err = compare.ParseModes(*modes); err != nil {
		return usageError{err.Error()}
	}
	if cfg.Counts, err = compare.ParseCounts(*counts); err != nil {
		return usageError{err.Error()}
	}
	eng, err := compare.New(cfg)
	if err != nil {
		return usageError{err.Error()}
	}
	dir := *out
	if dir == "" {
		dir = filepath.Join("results", traceName(tf.path))
	}
	r, format, err := tf.open()
	if err != nil {
		return err
	}
	defer r.Close()

	began := time.Now()
	if err := eng.Replay(r); err != nil {
		return err
	}
	elapsed := time.Since(began)
	sum := eng.Summary(compare.TraceInfo{Path: tf.path, Format: format})
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := sum.WriteFile(filepath.Join(dir, "summary.json")); err != nil {
		return err
	}
	if err := writePerf(filepath.Join(dir, "perf.json"), sum, elapsed); err != nil {
		return err
	}
	printTable(stdout, sum)
	fmt.Fprintf(stdout, "\n%d requests, %d keys in %.2fs (%.2fM requests/s)\nwrote %s\n",
		sum.Trace.Requests, sum.Trace.Keys, elapsed.Seconds(), float64(sum.Trace.Requests)/elapsed.Seconds()/1e6,
		filepath.Join(dir, "summary.json"))
	return nil
}

// traceName is the trace file's base name without extension, for the
// default results folder.
func traceName(path string) string {
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

// perf is what a run measured of itself: not reproducible, so kept out of
// summary.json, in perf.json beside it.
type perf struct {
	Requests          int64   `json:"requests"`
	Runs              int     `json:"runs"`
	Seconds           float64 `json:"seconds"`
	RequestsPerSecond float64 `json:"requests_per_second"`
	NsPerRequest      float64 `json:"ns_per_request"`
	HeapBytes         uint64  `json:"heap_bytes"`
	HeapBytesPerKey   float64 `json:"heap_bytes_per_key"`
}

func writePerf(path string, s *compare.Summary, d time.Duration) error {
	p := perf{Requests: s.Trace.Requests, Runs: len(s.Runs), Seconds: d.Seconds()}
	if d > 0 {
		p.RequestsPerSecond = float64(s.Trace.Requests) / d.Seconds()
	}
	if s.Trace.Requests > 0 {
		p.NsPerRequest = float64(d.Nanoseconds()) / float64(s.Trace.Requests)
	}
	p.HeapBytes = heapInUse()
	if s.Trace.Keys > 0 {
		p.HeapBytesPerKey = float64(p.HeapBytes) / float64(s.Trace.Keys)
	}
	data, err := json.MarshalIndent(p, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}
