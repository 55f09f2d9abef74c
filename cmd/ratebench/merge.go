package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"ratebench/compare"
	"ratebench/report"
)

const mergeSynopsis = "-o DIR [-report=true] SHARD_DIR..."

// runMerge is 'ratebench merge': it combines the summary.json of every
// shard of a replay (compare -shard i/n) into the summary.json of the
// whole, exactly as one replay of every key would have written it, and
// writes the report beside it. Flags may come before or after the shard
// folders.
func runMerge(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("merge", stderr, mergeSynopsis)
	out := fs.String("o", "", "output `dir` of the merged summary (required)")
	withReport := fs.Bool("report", true, "write report.md, report.html and plots/ beside summary.json")
	png := fs.Bool("png", true, "with -report, write a PNG of every plot beside its SVG")
	var dirs []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return err
			}
			return usageError{err.Error()}
		}
		if fs.NArg() == 0 {
			break
		}
		dirs = append(dirs, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if *out == "" || len(dirs) == 0 {
		fs.Usage()
		return usageError{"merge: want -o DIR and the folders of every shard's summary.json"}
	}
	var parts []*compare.Summary
	for _, d := range dirs {
		if fi, err := os.Stat(d); err == nil && !fi.IsDir() {
			d = filepath.Dir(d) // DIR/summary.json itself
		}
		s, err := compare.ReadSummaryFile(filepath.Join(d, "summary.json"))
		if err != nil {
			return err
		}
		parts = append(parts, s)
	}
	sum, err := compare.Merge(parts)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	if err := sum.WriteFile(filepath.Join(*out, "summary.json")); err != nil {
		return err
	}
	printTable(stdout, sum)
	fmt.Fprintf(stdout, "\nmerged %d summaries: %d requests, %d keys -> %s\n", len(parts), sum.Trace.Requests, sum.Trace.Keys,
		filepath.Join(*out, "summary.json"))
	if *withReport {
		return writeReport(stdout, *out, sum, report.Options{NoPNG: !*png})
	}
	return nil
}
