package main

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"ratebench/report"
	"ratebench/summary"
)

const diffSynopsis = "[-rule-a R] [-rule-b R] [-o DIR] A B\n\n" +
	"A and B (or -a A, -b B) are results folders or their summary.json. The runs of the same experiment\n" +
	"(rule, count policy, mode, algorithm) are matched and each headline figure is set A, B and delta:\n" +
	"rates in percentage points, bytes and requests relative to A. -o DIR writes diff.md and diff.html there.\n" +
	"-rule-a and -rule-b keep one rule of each side, matched with each other: two rules, or two points of a sweep."

// runDiff is 'ratebench diff': it prints two summaries side by side, one
// table per headline figure, and with -o writes the same as a page.
func runDiff(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("diff", stderr, diffSynopsis)
	a := fs.String("a", "", "the first results folder or summary.json, `A`")
	b := fs.String("b", "", "the second results folder or summary.json, `B`")
	out := fs.String("o", "", "write diff.md and diff.html into `DIR`")
	ruleA := fs.String("rule-a", "", "compare only A's runs of the rule `R` (matched with B's of -rule-b, or of the same rule)")
	ruleB := fs.String("rule-b", "", "compare only B's runs of the rule `R`")
	if err := parseCommand(fs, args, operand{"A", "the first summary", "a", a}, operand{"B", "the second summary", "b", b}); err != nil {
		return err
	}
	if *a == "" || *b == "" {
		fs.Usage()
		return usageError{"diff: want A and B, two results folders or summary.json files"}
	}
	sa, err := readDiffSide(*a)
	if err != nil {
		return err
	}
	sb, err := readDiffSide(*b)
	if err != nil {
		return err
	}
	if sa, err = onlyRule(sa, *ruleA, *a, "-rule-a"); err != nil {
		return err
	}
	if sb, err = onlyRule(sb, *ruleB, *b, "-rule-b"); err != nil {
		return err
	}
	d := report.NewDiff(report.DiffSide{Name: *a, S: sa}, report.DiffSide{Name: *b, S: sb})
	if err := d.WriteText(stdout); err != nil {
		return err
	}
	if *out == "" {
		return nil
	}
	if err := d.Write(*out); err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "\nwrote %s\n", filepath.Join(*out, report.DiffHTMLFile))
	return err
}

// readDiffSide reads the summary at path: a results folder's summary.json,
// or the file itself.
func readDiffSide(path string) (*summary.Summary, error) {
	p, err := summaryPath(path)
	if err != nil {
		return nil, fmt.Errorf("diff: %w", err)
	}
	return summary.ReadSummaryFile(p)
}

// onlyRule returns s with only the runs of rule (s itself when rule is
// ""); a rule s has no run of is an error naming the rules it has.
func onlyRule(s *summary.Summary, rule, path, flag string) (*summary.Summary, error) {
	if rule == "" {
		return s, nil
	}
	out := *s
	out.Runs = nil
	var rules []string
	for _, r := range s.Runs {
		if r.Rule == rule {
			out.Runs = append(out.Runs, r)
		}
		if !slices.Contains(rules, r.Rule) {
			rules = append(rules, r.Rule)
		}
	}
	if len(out.Runs) == 0 {
		return nil, usageError{fmt.Sprintf("diff: %s %s: %s has no run of that rule; its rules are %s", flag, rule, path, strings.Join(rules, ", "))}
	}
	if s.Verdict != nil {
		out.Verdict = summary.VerdictOf(&out, out.Config.Budget)
	}
	return &out, nil
}
