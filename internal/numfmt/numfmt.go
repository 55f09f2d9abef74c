// Package numfmt writes the numbers ratebench shows a person: shares as
// percentages, counts with thousands separators, sizes in IEC units and
// durations rounded to what their size makes readable. Every report and
// terminal line formats its figures here, so that one figure reads the
// same everywhere it is shown.
package numfmt

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
)

// ---- shares ----

// Percent writes a share v (0.05 for 5%) as a percentage with enough
// digits for small shares: four decimals under 0.01%, three under 1%, two
// above; "0%" for none.
func Percent(v float64) string {
	switch {
	case v == 0:
		return "0%"
	case v > 0 && v < 0.000001: // two significant digits, never a share that reads 0.0000%
		return fmt.Sprintf("%.*f%%", 1-int(math.Floor(math.Log10(100*v))), 100*v)
	case v < 0.0001:
		return fmt.Sprintf("%.4f%%", 100*v)
	case v < 0.01:
		return fmt.Sprintf("%.3f%%", 100*v)
	}
	return fmt.Sprintf("%.2f%%", 100*v)
}

// Rate is Percent, "—" for a share that is not a number (a figure that
// was not measured).
func Rate(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "—"
	}
	return Percent(v)
}

// SignedRate is Rate with a sign: "+" above zero, "−" below.
func SignedRate(v float64) string {
	if v > 0 {
		return "+" + Rate(v)
	}
	if v < 0 {
		return "−" + Rate(-v)
	}
	return Rate(v)
}

// SignedPercent is Percent with "−" (not "-") below zero.
func SignedPercent(v float64) string {
	if v < 0 {
		return "−" + strings.TrimPrefix(Percent(-v), "-")
	}
	return Percent(v)
}

// PercentOf is n of total as a Percent, "—" when total is not positive.
func PercentOf(n, total int64) string {
	if total <= 0 {
		return "—"
	}
	return Percent(float64(n) / float64(total))
}

// ShortPercent is Percent without trailing zeros, as a bound is written:
// "0.1%", "10%", "420%".
func ShortPercent(v float64) string {
	return TrimZeros(strings.TrimSuffix(Percent(v), "%")) + "%"
}

// FlagRate writes a share v (0.0001) as a percentage a rate flag takes
// (-max-over 0.01%) that reads back as v exactly: v's shortest decimal,
// its point moved two places.
func FlagRate(v float64) string {
	d := strconv.FormatFloat(v, 'f', -1, 64)
	places := 0
	if i := strings.IndexByte(d, '.'); i >= 0 {
		places = len(d) - i - 1
	}
	r, _ := new(big.Rat).SetString(d)
	return r.Mul(r, big.NewRat(100, 1)).FloatString(max(places-2, 0)) + "%"
}

// Agreement writes the percent of decisions that agreed, with three
// decimals: "100%" only when exact, and never rounded up to 100% when not.
func Agreement(exact bool, percent float64) string {
	if exact {
		return "100%"
	}
	return fmt.Sprintf("%.3f%%", min(percent, 99.999))
}

// TerminalPercent is the terminal's share: "0" for none, four decimals
// under 0.01%, three above.
func TerminalPercent(v float64) string {
	switch {
	case v == 0:
		return "0"
	case v < 0.0001:
		return fmt.Sprintf("%.4f%%", 100*v)
	}
	return fmt.Sprintf("%.3f%%", 100*v)
}

// ExactPercent is n of total in percent for a machine to read (no "%"),
// rounded to 6 decimals from the exact integers, without trailing zeros;
// where there is no total, the share v in percent ("" when v is not a
// number).
func ExactPercent(n, total int64, v float64) string {
	if total <= 0 {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return ""
		}
		return Float(100 * v)
	}
	return TrimZeros(strconv.FormatFloat(100*float64(n)/float64(total), 'f', 6, 64))
}

// ---- numbers ----

// Count writes an integer with thousands separators: 1,234,567.
func Count(n int64) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var out []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	if neg {
		return "-" + string(out)
	}
	return string(out)
}

// BytesIEC writes a size in GiB (two decimals), MiB or KiB.
func BytesIEC(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d KiB", n>>10)
}

// Float writes v in the fewest digits that read back as v.
func Float(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// TrimZeros drops the trailing zeros of a decimal number, and its point
// when nothing is left after it.
func TrimZeros(v string) string {
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

// ---- durations ----

// Duration writes a span of time: to the millisecond from a minute on or
// when a whole number of seconds, else in full; "0 s" for none.
func Duration(ns int64) string {
	if ns <= 0 {
		return "0 s"
	}
	if ns%int64(time.Second) == 0 || ns >= int64(time.Minute) {
		return time.Duration(ns).Round(time.Millisecond).String()
	}
	return time.Duration(ns).String()
}

// FlagDuration writes a duration as a flag takes it, without the zero
// minutes and seconds time.Duration writes, and in ASCII: "1m", "1h",
// "2m10s", "1.5s", "7us".
func FlagDuration(ns int64) string {
	s := strings.Replace(time.Duration(ns).String(), "µs", "us", 1)
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// ShortDuration writes a duration to about three significant digits; "0"
// for none.
func ShortDuration(ns int64) string {
	d := time.Duration(ns)
	switch {
	case ns <= 0:
		return "0"
	case d >= time.Second:
		return d.Round(10 * time.Millisecond).String()
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond).String()
	case d >= time.Microsecond:
		return d.Round(10 * time.Nanosecond).String()
	}
	return d.String()
}

// Latency writes a measured latency: to the millisecond from a second
// on, to 10 µs from a millisecond, else to the microsecond.
func Latency(ns int64) string {
	d := time.Duration(ns)
	switch {
	case d >= time.Second:
		return d.Round(time.Millisecond).String()
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond).String()
	}
	return d.Round(time.Microsecond).String()
}
