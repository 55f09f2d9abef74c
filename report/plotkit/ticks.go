package plotkit

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
)

// LogTicks labels 1, 2 and 5 times the powers of ten in a narrow range,
// the powers of ten only in a wide one, with unlabelled minor ticks
// between. Unlike plot.LogTicks it labels at least two ticks however
// narrow the range.
type LogTicks struct{}

func (t LogTicks) Ticks(min, max float64) []plot.Tick {
	if !(min > 0) || !(max > min) || math.IsInf(max, 0) {
		return nil
	}
	lo, hi := math.Floor(math.Log10(min)), math.Ceil(math.Log10(max))
	decades := math.Log10(max / min)
	var ticks []plot.Tick
	labelled := 0
	for e := lo; e <= hi; e++ {
		base := math.Pow(10, e)
		for m := 1; m < 10; m++ {
			v := base * float64(m)
			if v < min*(1-1e-9) || v > max*(1+1e-9) {
				continue
			}
			major := m == 1 || (decades <= 2.5 && (m == 2 || m == 5))
			tk := plot.Tick{Value: v}
			if major {
				tk.Label = FormatTick(v)
				labelled++
			}
			ticks = append(ticks, tk)
		}
	}
	if labelled < 2 {
		for i := range ticks {
			ticks[i].Label = FormatTick(ticks[i].Value)
		}
		if len(ticks) < 2 {
			ticks = append(ticks[:0], plot.Tick{Value: min, Label: FormatTick(min)}, plot.Tick{Value: max, Label: FormatTick(max)})
		}
	}
	return ticks
}

// FormatTick writes a tick value with at most three significant digits and
// never in exponent notation: 0.5, 0.01, 250, 1,000, 10k, 1.5M, 2G.
func FormatTick(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	if math.Abs(v) < 1e-12 {
		return "0"
	}
	sign := ""
	if v < 0 {
		sign, v = "-", -v
	}
	// Round to three significant digits first, so that 9995 is 10k.
	v, _ = strconv.ParseFloat(strconv.FormatFloat(v, 'g', 3, 64), 64)
	switch {
	case v >= 1e9:
		return sign + trimmed(v/1e9) + "G"
	case v >= 1e6:
		return sign + trimmed(v/1e6) + "M"
	case v >= 1e4:
		return sign + trimmed(v/1e3) + "k"
	case v >= 1e3:
		n := int64(math.Round(v))
		return fmt.Sprintf("%s%d,%03d", sign, n/1000, n%1000)
	}
	return sign + trimmed(v)
}

// trimmed writes v (above 1e-12) with three significant digits at most, in
// fixed notation, without trailing zeros.
func trimmed(v float64) string {
	decimals := max(0, 2-int(math.Floor(math.Log10(v))))
	s := strconv.FormatFloat(v, 'f', decimals, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// LogRange returns a range for a log axis that holds the positive values
// in vs, padded by factor on each side; ok is false when there is none.
func LogRange(vs []float64, factor float64) (lo, hi float64, ok bool) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, v := range vs {
		if v > 0 && !math.IsInf(v, 0) {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	if math.IsInf(lo, 1) {
		return 0, 0, false
	}
	if hi/lo < 3 {
		mid := math.Sqrt(lo * hi)
		lo, hi = math.Min(lo, mid/2), math.Max(hi, mid*2)
	}
	return lo / factor, hi * factor, true
}

// SetLog makes an axis show [lo, hi] on a log scale. gonum's LogScale
// misplaces the axis label (it centres it at the linear midpoint of the
// range), so the axis stays linear and holds log10 of the values: whoever
// plots on it passes log10(v), and the ticks are labelled with v.
func SetLog(a *plot.Axis, lo, hi float64) {
	a.Min, a.Max = math.Log10(lo), math.Log10(hi)
	a.Tick.Marker = log10Ticks{}
}

type log10Ticks struct{}

func (log10Ticks) Ticks(min, max float64) []plot.Tick {
	ts := LogTicks{}.Ticks(math.Pow(10, min), math.Pow(10, max))
	for i := range ts {
		ts[i].Value = math.Log10(ts[i].Value)
	}
	return ts
}

// LinearTicks label 3 to 8 ticks (mostly 4 to 7) at a round step (1, 2, 2.5 or 5 times a
// power of ten; gonum's default gives about three), with at most three
// significant digits and no trailing zeros ("25", not "25.00"), and an
// unlabelled tick halfway between two labelled ones.
type LinearTicks struct{}

func (LinearTicks) Ticks(min, max float64) []plot.Tick {
	span := max - min
	if !(span > 0) || math.IsInf(span, 0) || math.IsNaN(span) {
		return plot.DefaultTicks{}.Ticks(min, max)
	}
	mag := math.Pow(10, math.Floor(math.Log10(span/6)))
	step := 10 * mag
	for _, f := range []float64{1, 2, 2.5, 5, 10} {
		if span/(f*mag) <= 7 {
			step = f * mag
			break
		}
	}
	var ts []plot.Tick
	first := math.Ceil(min/step - 1e-9)
	// At most a few dozen ticks, however far from 0 the range (where k+1
	// may round back to k).
	for i, k := 0, first; k*step <= max+step*1e-9 && i < 64; i, k = i+1, k+1 {
		v := k * step
		if math.Abs(v) < step*1e-9 {
			v = 0
		}
		ts = append(ts, plot.Tick{Value: v, Label: FormatTick(v)})
		if h := v + step/2; h <= max {
			ts = append(ts, plot.Tick{Value: h})
		}
	}
	if h := first*step - step/2; h >= min {
		ts = append(ts, plot.Tick{Value: h})
	}
	return distinctLabels(ts, step)
}

// distinctLabels makes the labels of ticks step apart tell them apart:
// where FormatTick's three significant digits write two alike (1,140.2
// and 1,140.4 as "1,140"), every label is written with as many decimals
// as the step needs (TickAtStep), and a label that still repeats one
// (beyond a float's precision) is left out.
func distinctLabels(ts []plot.Tick, step float64) []plot.Tick {
	if !uniqueLabels(ts) {
		for i := range ts {
			if ts[i].Label != "" {
				ts[i].Label = TickAtStep(ts[i].Value, step)
			}
		}
	}
	seen := map[string]bool{}
	for i := range ts {
		if l := ts[i].Label; l != "" {
			if seen[l] {
				ts[i].Label = ""
			}
			seen[l] = true
		}
	}
	return ts
}

// uniqueLabels tells whether no two ticks have the same label.
func uniqueLabels(ts []plot.Tick) bool {
	seen := map[string]bool{}
	for _, t := range ts {
		if t.Label == "" {
			continue
		}
		if seen[t.Label] {
			return false
		}
		seen[t.Label] = true
	}
	return true
}

// TickAtStep writes v, a multiple of step, in full with as many decimals
// as step has (at most 15), thousands separated: 1,140.2 for a step of 0.2.
func TickAtStep(v, step float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	decimals := 0
	for ; decimals < 15; decimals++ {
		scaled := math.Abs(step) * math.Pow(10, float64(decimals))
		if math.Abs(scaled-math.Round(scaled)) <= 1e-6*scaled {
			break
		}
	}
	s := strconv.FormatFloat(math.Abs(v), 'f', decimals, 64)
	whole, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	if v < 0 && strings.Trim(s, "0.") != "" {
		b.WriteByte('-')
	}
	for i, c := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if frac != "" {
		b.WriteString("." + frac)
	}
	return b.String()
}
