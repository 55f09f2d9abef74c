package plotkit

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// ZeroLog is a logarithmic scale for values of which some may be 0: the
// positive values at log10 between Lo and Hi, and 0, which a log scale
// has not, on a line of its own below them, across a dashed break. One
// value far above the others (guava's 38% beside 25 products under 1%)
// then leaves the others their decades instead of one flat line.
type ZeroLog struct{ Lo, Hi float64 }

// NewZeroLog is the scale of the values vs, their positive range padded
// by factor (LogRange); false when none is positive.
func NewZeroLog(vs []float64, factor float64) (ZeroLog, bool) {
	lo, hi, ok := LogRange(vs, factor)
	return ZeroLog{lo, hi}, ok
}

func (z ZeroLog) span() float64 { return math.Log10(z.Hi) - math.Log10(z.Lo) }

// zero is where 0 is drawn, breakAt the break between it and Lo.
func (z ZeroLog) zero() float64    { return math.Log10(z.Lo) - 0.12*z.span() }
func (z ZeroLog) breakAt() float64 { return math.Log10(z.Lo) - 0.06*z.span() }

// At is where v is drawn on the axis: log10 of v, or the zero line for a
// value of 0 or below (or not a number).
func (z ZeroLog) At(v float64) float64 {
	if !(v > 0) || math.IsInf(v, 0) {
		return z.zero()
	}
	return math.Log10(math.Min(math.Max(v, z.Lo), z.Hi))
}

// SetY makes p's vertical axis the scale: its range, the log's ticks and
// "0" on the zero line, and the break, a dashed line across the panel.
func (z ZeroLog) SetY(p *plot.Plot) {
	p.Y.Min, p.Y.Max = z.zero()-0.05*z.span(), math.Log10(z.Hi)
	p.Y.Tick.Marker = zeroLogTicks{z}
	p.Add(&RefLine{Y: z.breakAt(), Style: draw.LineStyle{Color: color.Gray{Y: 150}, Width: vg.Points(0.8), Dashes: []vg.Length{vg.Points(6), vg.Points(3)}}})
}

// zeroLogTicks are a ZeroLog axis's ticks: LogTicks over its positive
// range, and 0.
type zeroLogTicks struct{ z ZeroLog }

func (t zeroLogTicks) Ticks(min, max float64) []plot.Tick {
	ts := LogTicks{}.Ticks(t.z.Lo, t.z.Hi)
	for i := range ts {
		ts[i].Value = math.Log10(ts[i].Value)
	}
	return append(ts, plot.Tick{Value: t.z.zero(), Label: "0"})
}
