package explain

import (
	"fmt"
	"io"
	"math"
	"text/tabwriter"
	"time"

	"ratebench/internal/escape"
)

// Print writes the explanation on w: the key (as a shell word: pasted
// back as -key, it is the key), its totals per algorithm, the
// disagreements listed, and the span plotted (lo..hi, shown of its
// requests).
func (e *Explanation) Print(w io.Writer, rule, count, mode string, lo, hi int64, shown int) {
	fmt.Fprintf(w, "key %s: %d requests, rule %s, count %s, mode %s\n", escape.ShellWord(e.opt.Key), e.requests, escape.Visible(rule), count, mode)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for i, a := range e.opt.Algorithms {
		fmt.Fprintf(tw, "  %s\t%d disagreements:\t%d over,\t%d under\n", a, e.over[i]+e.under[i], e.over[i], e.under[i])
	}
	tw.Flush()
	total := int64(len(e.listed)) + e.more
	if total == 0 {
		fmt.Fprintln(w, "no disagreement: every algorithm decided as the log on every request of the key")
	} else {
		if e.more > 0 {
			fmt.Fprintf(w, "\nthe first %d of %d disagreements:\n", len(e.listed), total)
		} else {
			fmt.Fprintf(w, "\n%d disagreements:\n", total)
		}
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  time\tafter first\talgorithm\tlog decided\talgorithm decided\tkind\tlog's count in (t-W, t]\talgorithm's estimate")
		for _, x := range e.listed {
			kind := "over"
			if x.d.Log {
				kind = "under"
			}
			estimate := "-"
			if v := x.d.Estimate[x.alg]; v == v { // not NaN
				estimate = fmt.Sprintf("%.4g", v)
			}
			fmt.Fprintf(tw, "  %s\t+%s\t%s\t%s\t%s\t%s\t%d\t%s\n", fmtTime(x.d.T),
				time.Duration(x.d.T-e.origin), e.opt.Algorithms[x.alg], decided(x.d.Log), decided(x.d.Admit[x.alg]), kind, x.d.Exact, estimate)
		}
		tw.Flush()
	}
	fmt.Fprintf(w, "\nplotted: %d requests from %s to %s (+%s to +%s after the key's first request)\n", shown,
		fmtTime(lo), fmtTime(hi), time.Duration(subSat(lo, e.origin)), time.Duration(subSat(hi, e.origin)))
}

func decided(admit bool) string {
	if admit {
		return "admitted"
	}
	return "refused"
}

// subSat is a-b, saturated at the ends of int64.
func subSat(a, b int64) int64 {
	d := a - b
	switch {
	case b > 0 && d > a:
		return math.MinInt64
	case b < 0 && d < a:
		return math.MaxInt64
	}
	return d
}
