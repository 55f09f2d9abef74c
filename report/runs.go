package report

import (
	"bytes"
	"encoding/csv"
	"strconv"

	"ratebench/internal/numfmt"
	"ratebench/summary"
)

// RunsFile is the table of the summary's runs, one row per run, written
// beside summary.json with the report.
const RunsFile = "runs.csv"

// runsHead is the header of runs.csv. Rates are percentages of the run's
// requests; bytes are per key, by the analytic state model; burst is the
// worst admitted cost in a window span, and its ratio to L (empty where
// the run does not measure it); error is the rate error's bias and p99 of
// |error| as fractions of L (empty where it is not measured); then the
// errors in the log's own terms: the requests the log refuses and admits
// beside the run, and over ÷ log_refused and under ÷ log_admitted as
// fractions (empty where the log refuses, or admits, nothing, or the
// summary does not hold them). Where the requests were placed inside a
// coarse clock's unit (trace.placements), the columns above are the first
// placement's, and the last give the count of placements and, for
// disagree, over, under and log_refused, the median, least and largest
// over them (empty otherwise).
var runsHead = []string{
	"rule", "count", "mode", "algorithm",
	"requests", "admitted", "rejected",
	"disagree", "disagree_pct", "over", "over_pct", "under", "under_pct",
	"keys", "keys_disagree", "keys_over", "keys_under",
	"burst_max", "burst_ratio",
	"bytes_per_key_peak", "bytes_per_key_mean", "bytes_total_peak",
	"error_bias", "error_p99_frac_l",
	"log_refused", "log_admitted", "over_of_refused_frac", "under_of_admitted_frac",
	"placements",
	"disagree_median", "disagree_min", "disagree_max", "over_median", "over_min", "over_max",
	"under_median", "under_min", "under_max", "log_refused_median", "log_refused_min", "log_refused_max",
}

// RunsCSV returns runs.csv for s: a header, then one row per run in the
// summary's order. The same summary gives the same bytes.
func RunsCSV(s *summary.Summary) []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Write(runsHead)
	for i := range s.Runs {
		r := &s.Runs[i]
		row := []string{
			r.Rule, r.Count, r.Mode, r.Algorithm,
			itoa(r.Requests), itoa(r.Admitted), itoa(r.Rejected),
			itoa(r.Disagree), numfmt.ExactPercent(r.Disagree, r.Requests, r.DisagreeRate),
			itoa(r.Over), numfmt.ExactPercent(r.Over, r.Requests, r.OverRate),
			itoa(r.Under), numfmt.ExactPercent(r.Under, r.Requests, r.UnderRate),
			itoa(r.Keys), itoa(r.KeysDisagree), itoa(r.KeysOver), itoa(r.KeysUnder),
			"", "",
			itoa(r.Memory.PeakPerKey), numfmt.Float(r.Memory.MeanPerKey), peakTotal(r.Memory),
			"", "",
			"", "", "", "",
			"", "", "", "", "", "", "", "", "", "", "", "", "",
		}
		if p := r.Placed; p != nil {
			row[28] = strconv.Itoa(len(p.Over))
			for i, vs := range [][]int64{p.Disagree(), p.Over, p.Under, p.LogRefused} {
				if len(vs) == 0 {
					continue
				}
				g := summary.SpreadOf(vs)
				row[29+3*i], row[30+3*i], row[31+3*i] = itoa(g.Median), itoa(g.Min), itoa(g.Max)
			}
		}
		if r.LogRefused != nil && r.LogAdmitted != nil {
			row[24], row[25] = itoa(*r.LogRefused), itoa(*r.LogAdmitted)
			row[26], row[27] = fracText(r.OverOfRefused), fracText(r.UnderOfAdmitted)
		}
		if b := r.Burst; b != nil {
			row[17], row[18] = itoa(b.Max), numfmt.Float(b.Ratio)
		}
		if e := r.RateError; e != nil {
			row[22], row[23] = numfmt.Float(e.Mean), numfmt.Float(e.P99Frac)
		}
		w.Write(row)
	}
	w.Flush()
	return b.Bytes()
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// peakTotal is the run's peak total in bytes, empty when not measured.
func peakTotal(m summary.Memory) string {
	if m.TotalNotMeasured {
		return ""
	}
	return itoa(m.PeakTotal)
}

// fracText is a fraction as runs.csv writes it, empty when absent.
func fracText(p *float64) string {
	if p == nil {
		return ""
	}
	return numfmt.Float(*p)
}
