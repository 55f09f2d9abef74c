package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"ratebench/compare/resultsdir"
	"ratebench/internal/escape"
	"ratebench/report"
	"ratebench/summary"
)

const reportSynopsis = "[-max-over 0.01%] [-max-under 0.1%] [-max-over-of-refused 10%] [-max-under-of-admitted 1%] [-png=true] DIR\n\n" +
	"DIR (or -o DIR) is the results folder (or DIR/summary.json): its summary.json is read, its report rewritten."

// runReport is 'ratebench report': it reads DIR/summary.json and writes
// DIR/report.md, DIR/report.html and DIR/plots/, from the summary alone
// (the trace is not needed), and prints the path of report.html. A budget given here overrides the summary's.
func runReport(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("report", stderr, reportSynopsis)
	var budget budgetFlags
	budget.register(fs, "overrides the summary's")
	png := fs.Bool("png", true, "write a PNG of every plot beside its SVG")
	dir := fs.String("o", "", "the results folder `DIR`")
	if err := parseCommand(fs, args, operand{"DIR", "the results folder", "o", dir}); err != nil {
		return err
	}
	if *dir == "" {
		fs.Usage()
		return usageError{"report: want DIR (or -o DIR), the folder of summary.json"}
	}
	opt := report.Options{NoPNG: !*png}
	var err error
	if opt.Budget, err = budget.budget(); err != nil {
		return usageError{"report: " + err.Error()}
	}
	folder, err := resultsFolder("report", *dir)
	if err != nil {
		return err
	}
	return rewriteReport(stdout, folder, opt)
}

// rewriteReport writes the report of DIR/summary.json into dir, all its
// files or none, and prints the verdict it opens with (under the budget
// of opt, if any) and the path of its report.html.
func rewriteReport(stdout io.Writer, dir string, opt report.Options) error {
	if _, err := os.Stat(filepath.Join(dir, summaryFile)); err != nil {
		return err // and make no folder
	}
	rd, err := resultsdir.Lock(dir)
	if err != nil {
		return err
	}
	defer rd.Close()
	s, err := summary.ReadSummaryFile(filepath.Join(dir, summaryFile))
	if err != nil {
		return err
	}
	if err := rd.WriteReport(s, opt); err != nil {
		return err
	}
	if err := rd.Commit(report.Owns); err != nil {
		return err
	}
	if _, err := fmt.Fprint(stdout, report.Verdict(s, opt)); err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "\nwrote %s\n", escape.Visible(filepath.Join(dir, report.HTMLFile)))
	return err
}
