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
// table per rule × count × mode. The commands the verdict suggests call
// ratebench as it was invoked (program) and name their folders after
// dir, the run's results folder.
func printTable(w io.Writer, s *summary.Summary, dir string) {
	fmt.Fprint(w, report.Verdict(s, report.Options{Program: program, Folder: dir}))
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
			fmt.Fprintln(tw, "algorithm\tadmitted\tdisagree\tover\tunder\tlog refused\tover/refused\tunder/admitted\tkeys over\tkeys under\tburst/L\tbytes/key (peak)\tbytes/key (mean)\t")
		}
		burst := r.RangeOf(summary.BurstRatio).Text(func(x float64) string { return fmt.Sprintf("%.2f", x) }, "-")
		count := func(n func(v *summary.Run) (float64, bool)) string {
			return r.RangeOf(n).Text(func(x float64) string { return fmt.Sprint(int64(x)) }, "-")
		}
		rate := func(n func(v *summary.Run) (float64, bool)) string { return r.RangeOf(n).Text(pct, "-") }
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%.0f\t\n", r.Algorithm,
			count(func(v *summary.Run) (float64, bool) { return float64(v.Admitted), true }),
			rate(func(v *summary.Run) (float64, bool) { return v.DisagreeRate, true }),
			rate(func(v *summary.Run) (float64, bool) { return v.OverRate, true }),
			rate(func(v *summary.Run) (float64, bool) { return v.UnderRate, true }),
			count(func(v *summary.Run) (float64, bool) { return deref(v.LogRefused) }),
			rate(func(v *summary.Run) (float64, bool) { return derefF(v.OverOfRefused) }),
			rate(func(v *summary.Run) (float64, bool) { return derefF(v.UnderOfAdmitted) }),
			count(func(v *summary.Run) (float64, bool) { return float64(v.KeysOver), true }),
			count(func(v *summary.Run) (float64, bool) { return float64(v.KeysUnder), true }),
			burst, r.Memory.PeakPerKey, r.Memory.MeanPerKey)
	}
	if tw != nil {
		tw.Flush()
		fmt.Fprintln(w, "\nover/refused: the share of the log's refusals let through; under/admitted: the share of its admissions refused (- where the log refuses or admits nothing).")
		fmt.Fprintln(w, "bytes/key: the most one key held (peak), which the verdict ranks by, and the mean over keys of the most each key held.")
		if pl := s.Trace.Placements; pl != nil {
			fmt.Fprintf(w, "placed: each figure but bytes is the median over %d placements of the requests inside their %s, the range in brackets where they differ; bytes are the first placement's.\n", pl.Count, s.Trace.Resolution())
		}
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

// deref is a count that may be absent, as a float.
func deref(p *int64) (float64, bool) {
	if p == nil {
		return 0, false
	}
	return float64(*p), true
}

// derefF is a share that may be absent.
func derefF(p *float64) (float64, bool) {
	if p == nil {
		return 0, false
	}
	return *p, true
}

// sharePct renders a share of the log's refusals or admissions, "-" where
// the log refuses (or admits) nothing.
func sharePct(p *float64) string {
	if p == nil {
		return "-"
	}
	return pct(*p)
}
