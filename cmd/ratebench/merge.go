package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"ratebench/compare/resultsdir"
	"ratebench/report"
	"ratebench/summary"
)

const mergeSynopsis = "-o DIR [-report=true] [-force] SHARD_DIR...\n\n" +
	"The arguments are the results folders of the shards (or their summary files); -o DIR is the merged folder,\n" +
	"which may be none of them, nor, without -force, hold the results of another trace."

// runMerge is 'ratebench merge': it combines the summary.json of every
// shard of a replay (compare -shard i/n) into the summary.json of the
// whole, exactly as one replay of every key would have written it, and
// writes the report beside it.
func runMerge(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("merge", stderr, mergeSynopsis)
	out := fs.String("o", "", "output `dir` of the merged summary (required)")
	force := fs.Bool("force", false, "replace the results of another trace in the merged folder")
	withReport := fs.Bool("report", true, "write report.md, report.html and plots/ beside summary.json (false removes those of earlier results)")
	png := fs.Bool("png", true, "with -report, write a PNG of every plot beside its SVG")
	p, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if v := p.given["o"]; len(v) > 1 {
		return usageError{fmt.Sprintf("merge: the merged folder is given twice, as -o %q and as -o %q; give it once", v[0], v[1])}
	}
	dirs := p.args
	if *out == "" || len(dirs) == 0 {
		fs.Usage()
		return usageError{"merge: want -o DIR and the folders of every shard's summary.json"}
	}
	rd, err := resultsdir.Lock(*out)
	if err != nil {
		return err
	}
	defer rd.Close()
	var parts []*summary.Summary
	var seen []os.FileInfo
	var paths []string
	for _, d := range dirs {
		path, err := summaryPath(d)
		if err != nil {
			return err
		}
		fi, err := os.Stat(path)
		if err != nil {
			return err
		}
		for i, prev := range seen {
			if !os.SameFile(fi, prev) {
				continue
			}
			if paths[i] == path {
				return fmt.Errorf("merge: the summary %s is given twice: every count in it would be taken twice", path)
			}
			return fmt.Errorf("merge: %s and %s are the same summary, given twice: every count in it would be taken twice", paths[i], path)
		}
		seen, paths = append(seen, fi), append(paths, path)
		s, err := summary.ReadSummaryFile(path)
		if err != nil {
			return err
		}
		parts = append(parts, s)
	}
	if err := outsideInputs(*out, seen, paths); err != nil {
		return err
	}
	sum, err := summary.Merge(parts)
	if err != nil {
		if len(paths) > 1 {
			err = fmt.Errorf("%w (the parts in order: %s)", err, numbered(paths))
		}
		return err
	}
	if err := resultsdir.CheckTrace(*out, sum.Trace, *force); err != nil {
		return err
	}
	if err := rd.WriteSummary(sum, nil); err != nil {
		return err
	}
	opt := report.Options{NoPNG: !*png}
	if *withReport {
		if err := rd.WriteReport(sum, opt); err != nil {
			return err
		}
	}
	if err := rd.Commit(resultsdir.OwnsCompare); err != nil {
		return err
	}
	printTable(stdout, sum, *out)
	fmt.Fprintf(stdout, "\nmerged %d summaries: %d requests, %d keys -> %s\n", len(parts), sum.Trace.Requests, sum.Trace.Keys,
		filepath.Join(*out, summaryFile))
	if *withReport {
		fmt.Fprintf(stdout, "wrote %s\n", filepath.Join(*out, report.HTMLFile))
	}
	return nil
}

// numbered lists paths as "0 A, 1 B, ...".
func numbered(paths []string) string {
	var b strings.Builder
	for i, p := range paths {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%d %s", i, p)
	}
	return b.String()
}

// outsideInputs refuses a merged folder whose summary.json is one of the
// inputs (by any path: a symbolic link, ./DIR, DIR/): the merge would
// replace a part of itself, and could never be run again.
func outsideInputs(out string, inputs []os.FileInfo, paths []string) error {
	fi, err := os.Stat(filepath.Join(out, summaryFile))
	if err != nil {
		return nil // no summary there to replace
	}
	for i, in := range inputs {
		if os.SameFile(fi, in) {
			return usageError{fmt.Sprintf("merge: -o %s would replace the summary %s, one of the inputs; write the merge into another folder", out, paths[i])}
		}
	}
	return nil
}
