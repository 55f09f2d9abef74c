package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"ratebench/report"
	"ratebench/summary"
)

const reportSynopsis = "[-max-over 0.01%] [-max-under 0.1%] [-png=true] DIR"

// runReport is 'ratebench report': it reads DIR/summary.json and writes
// DIR/report.md, DIR/report.html and DIR/plots/, from the summary alone
// (the trace is not needed), and prints the path of report.html. Flags may
// come before or after DIR. A budget given here overrides the summary's.
func runReport(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("report", stderr, reportSynopsis)
	maxOver := fs.String("max-over", "", "budget: the largest over-admission `rate` you accept, e.g. 0.01% (overrides the summary's)")
	maxUnder := fs.String("max-under", "", "budget: the largest under-admission `rate` you accept, e.g. 0.1% (overrides the summary's)")
	png := fs.Bool("png", true, "write a PNG of every plot beside its SVG")
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
	if len(dirs) != 1 {
		fs.Usage()
		return usageError{fmt.Sprintf("report: want one DIR, the folder of summary.json (got %d arguments)", len(dirs))}
	}
	dir := dirs[0]
	// DIR/summary.json itself is accepted too.
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() && filepath.Ext(dir) == ".json" {
		dir = filepath.Dir(dir)
	}

	opt := report.Options{NoPNG: !*png}
	if *maxOver != "" || *maxUnder != "" {
		opt.Budget = &summary.Budget{}
		if *maxOver != "" {
			r, err := parseRate(*maxOver)
			if err != nil {
				return usageError{"report: -max-over: " + err.Error()}
			}
			opt.Budget.MaxOver = &r
		}
		if *maxUnder != "" {
			r, err := parseRate(*maxUnder)
			if err != nil {
				return usageError{"report: -max-under: " + err.Error()}
			}
			opt.Budget.MaxUnder = &r
		}
	}

	return rewriteReport(stdout, dir, opt)
}

// parseRate reads a rate as a percentage ("0.01%") or a fraction
// ("0.0001"), for budgets (-max-over and -max-under, of report and of
// compare).
func parseRate(s string) (float64, error) {
	s = strings.TrimSpace(s)
	pct := strings.HasSuffix(s, "%")
	v, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	if err != nil || math.IsNaN(v) || v < 0 {
		return 0, fmt.Errorf("rate %q: want a percentage such as 0.01%% or a fraction such as 0.0001", s)
	}
	if pct {
		v /= 100
	}
	if v > 1 {
		return 0, fmt.Errorf("rate %q is above 100%%", s)
	}
	if v == 0 {
		v = 0 // not -0
	}
	return v, nil
}

// rewriteReport writes the report of DIR/summary.json into dir, all its
// files or none, and prints the path of its report.html.
func rewriteReport(stdout io.Writer, dir string, opt report.Options) error {
	if _, err := os.Stat(filepath.Join(dir, summaryFile)); err != nil {
		return err // and make no folder
	}
	rd, err := lockResults(dir)
	if err != nil {
		return err
	}
	defer rd.close()
	s, err := summary.ReadSummaryFile(filepath.Join(dir, summaryFile))
	if err != nil {
		return err
	}
	if err := rd.writeReport(s, opt); err != nil {
		return err
	}
	if err := rd.commit(report.Owns); err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "wrote %s\n", filepath.Join(dir, report.HTMLFile))
	return err
}
