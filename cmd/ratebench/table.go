package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"ratebench/internal/numfmt"
	"ratebench/report"
	"ratebench/summary"
)

// printTable writes the verdict (report.Verdict), then the runs as one
// table per rule × count × mode.
func printTable(w io.Writer, s *summary.Summary) {
	fmt.Fprint(w, report.Verdict(s, report.Options{}))
	if len(s.Notes) > 0 {
		fmt.Fprintln(w)
	}
	for _, n := range s.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	var tw *tabwriter.Writer
	group := ""
	for _, r := range s.Runs {
		g := fmt.Sprintf("rule %s, count %s, mode %s", r.Rule, r.Count, r.Mode)
		if g != group {
			if tw != nil {
				tw.Flush()
			}
			group = g
			fmt.Fprintf(w, "\n%s\n", g)
			tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintln(tw, "algorithm\tadmitted\tdisagree\tover\tunder\tlog refused\tover/refused\tunder/admitted\tkeys over\tkeys under\tburst/L\tbytes/key (mean)\t")
		}
		burst := "-"
		if r.Burst != nil {
			burst = fmt.Sprintf("%.2f", r.Burst.Ratio)
		}
		logRefused := "-"
		if r.LogRefused != nil {
			logRefused = fmt.Sprint(*r.LogRefused)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t%s\t%.0f\t\n", r.Algorithm, r.Admitted,
			pct(r.DisagreeRate), pct(r.OverRate), pct(r.UnderRate), logRefused, sharePct(r.OverOfRefused), sharePct(r.UnderOfAdmitted), r.KeysOver, r.KeysUnder, burst, r.Memory.MeanPerKey)
	}
	if tw != nil {
		tw.Flush()
		fmt.Fprintln(w, "\nover/refused: the share of the log's refusals let through; under/admitted: the share of its admissions refused (- where the log refuses or admits nothing).")
		fmt.Fprintln(w, "bytes/key (mean): the mean over keys of the most each key held; the report ranks by the peak, the most one key held.")
	}
	first := true
	for i := range s.Runs {
		if line := report.ProductLine(&s.Runs[i]); line != "" {
			if first {
				fmt.Fprintln(w)
				first = false
			}
			fmt.Fprintf(w, "%s, %s: %s\n", s.Runs[i].Rule, s.Runs[i].Mode, line)
		}
	}
}

func pct(v float64) string { return numfmt.TerminalPercent(v) }

// sharePct renders a share of the log's refusals or admissions, "-" where
// the log refuses (or admits) nothing.
func sharePct(p *float64) string {
	if p == nil {
		return "-"
	}
	return pct(*p)
}
