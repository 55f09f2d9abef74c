package report

import (
	"bytes"
	"encoding/csv"
	"math"
	"strconv"
	"strings"

	"ratebench/summary"
)

// RunsFile is the table of the summary's runs, one row per run, written
// beside summary.json with the report.
const RunsFile = "runs.csv"

// runsHead is the header of runs.csv. Rates are percentages of the run's
// requests; bytes are per key, by the analytic state model; burst is the
// worst admitted cost in a window span, and its ratio to L (empty where
// the run does not measure it); error is the rate error's bias and p99 of
// |error| as fractions of L (empty where it is not measured).
var runsHead = []string{
	"rule", "count", "mode", "algorithm",
	"requests", "admitted", "rejected",
	"disagree", "disagree_pct", "over", "over_pct", "under", "under_pct",
	"keys", "keys_disagree", "keys_over", "keys_under",
	"burst_max", "burst_ratio",
	"bytes_per_key_peak", "bytes_per_key_mean", "bytes_total_peak",
	"error_bias", "error_p99_frac_l",
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
			itoa(r.Disagree), pctOf(r.Disagree, r.Requests, r.DisagreeRate),
			itoa(r.Over), pctOf(r.Over, r.Requests, r.OverRate),
			itoa(r.Under), pctOf(r.Under, r.Requests, r.UnderRate),
			itoa(r.Keys), itoa(r.KeysDisagree), itoa(r.KeysOver), itoa(r.KeysUnder),
			"", "",
			itoa(r.Memory.PeakPerKey), ftoa(r.Memory.MeanPerKey), peakTotal(r.Memory),
			"", "",
		}
		if b := r.Burst; b != nil {
			row[17], row[18] = itoa(b.Max), ftoa(b.Ratio)
		}
		if e := r.RateError; e != nil {
			row[22], row[23] = ftoa(e.Mean), ftoa(e.P99Frac)
		}
		w.Write(row)
	}
	w.Flush()
	return b.Bytes()
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// ftoa formats v in the fewest digits that read back as v.
func ftoa(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// pctOf is n of total as a percentage, rounded to 6 decimals (of a
// percent) from the exact integers; the summary's rate where there are no
// requests.
func pctOf(n, total int64, rate float64) string {
	if total <= 0 {
		if math.IsNaN(rate) || math.IsInf(rate, 0) {
			return ""
		}
		return ftoa(100 * rate)
	}
	v := strconv.FormatFloat(100*float64(n)/float64(total), 'f', 6, 64)
	return trimZeros(v)
}

// trimZeros drops the trailing zeros of a decimal, and its point if
// nothing follows it.
func trimZeros(v string) string {
	if !strings.Contains(v, ".") {
		return v
	}
	for v[len(v)-1] == '0' {
		v = v[:len(v)-1]
	}
	if v[len(v)-1] == '.' {
		v = v[:len(v)-1]
	}
	return v
}

// peakTotal is the run's peak total in bytes, empty when not measured.
func peakTotal(m summary.Memory) string {
	if m.TotalNotMeasured {
		return ""
	}
	return itoa(m.PeakTotal)
}
