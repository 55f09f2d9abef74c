package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"ratebench/internal/escape"
	"ratebench/report"
	"ratebench/summary"
)

// breachStatus is the exit status of check (and of compare -check) when a
// budget breaks: distinct from a usage error's (2) and from an input
// error's (1), so that a CI job tells a worse limiter from a broken run.
const breachStatus = 3

const checkSynopsis = "-alg ALG [-max-over 0.01%] [-max-under 0.1%] [-max-over-of-refused 10%] [-max-under-of-admitted 1%] DIR\n\n" +
	"DIR (or -o DIR) is the results folder, whose summary.json is read, or a summary file itself. One ✓/✗ line per rule, count, mode and figure\n" +
	"of ALG's runs, then the verdict's choice per rule; with no budget flag, the summary's budget, or else the default policy's tolerances (within 0.1%\n" +
	"of the log's decisions, at most 10% of its refusals let through, at most 1% of its admissions refused).\n" +
	"Exit status: 0 when every bound holds, 3 when one breaks, 1 on an input error, 2 on a usage error."

// budgetBreach is check's error when a bound breaks (exit status
// breachStatus); its lines are already printed.
type budgetBreach struct{ broken, total int }

func (e budgetBreach) Error() string {
	return fmt.Sprintf("%d of %d checks break the budget", e.broken, e.total)
}

// runCheck is 'ratebench check': a CI gate on a results folder.
func runCheck(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("check", stderr, checkSynopsis)
	var budget budgetFlags
	budget.register(fs, "check holds ALG's runs to it")
	alg := fs.String("alg", "", "the `algorithm` whose runs are checked, e.g. gcra")
	dir := fs.String("o", "", "the results folder `DIR`")
	if err := parseCommand(fs, args, operand{"DIR", "the results folder", "o", dir}); err != nil {
		return err
	}
	if *dir == "" || *alg == "" {
		fs.Usage()
		return usageError{"check: want -alg ALG and DIR (or -o DIR), a results folder or a summary file"}
	}
	b, err := budget.budget()
	if err != nil {
		return usageError{"check: " + err.Error()}
	}
	path, err := summaryPath(*dir)
	if err != nil {
		return err
	}
	s, err := summary.ReadSummaryFile(path)
	if err != nil {
		return err
	}
	return checkBudget(stdout, s, *alg, b)
}

// checkBudget prints one line per check of alg's runs in s against b (the
// summary's budget when b is nil, else the default policy's tolerances)
// and returns a budgetBreach when one breaks.
func checkBudget(stdout io.Writer, s *summary.Summary, alg string, b *summary.Budget) error {
	if b == nil {
		b = s.Config.Budget
	}
	checks, err := report.Checks(s, alg, b)
	if err != nil {
		return fmt.Errorf("check: %w", err)
	}
	if pl := s.Trace.Placements; pl != nil {
		if _, err := fmt.Fprintf(stdout, "placed: the trace's clock is too coarse for a rule, so the figures are over %d placements of the requests inside their %s; each check holds the run's worst placement\n",
			pl.Count, s.Trace.Resolution()); err != nil {
			return err
		}
	}
	broken := 0
	for _, c := range checks {
		if !c.Holds {
			broken++
		}
		if _, err := fmt.Fprintln(stdout, escape.Visible(c.String())); err != nil {
			return err
		}
	}
	for _, line := range report.Choices(s, b) {
		if _, err := fmt.Fprintln(stdout, escape.Visible(line)); err != nil {
			return err
		}
	}
	if broken > 0 {
		return budgetBreach{broken, len(checks)}
	}
	return nil
}

// exitStatus is the process's status for run's error.
func exitStatus(err error) int {
	var ue usageError
	var bb budgetBreach
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ue):
		return 2
	case errors.As(err, &bb):
		return breachStatus
	}
	return 1
}
