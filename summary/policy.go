package summary

import (
	"math/big"
	"strconv"
)

// A policy is the set of bounds an algorithm must meet to be chosen: the
// user's budget when one is given, else the default tolerances. Each bound
// caps one of a run's figures, a fraction, and is checked exactly: the
// figure's two counts against the bound as the decimal it was written in,
// so that no rounding of a quotient can flip a choice.

// The figures a bound may cap, named as the run's fields in summary.json.
const (
	FigureDisagreeRate    = "disagree_rate"     // disagree ÷ requests
	FigureOverRate        = "over_rate"         // over ÷ requests
	FigureUnderRate       = "under_rate"        // under ÷ requests
	FigureOverOfRefused   = "over_of_refused"   // over ÷ the log's refusals
	FigureUnderOfAdmitted = "under_of_admitted" // under ÷ the log's admissions
)

// PolicyBound caps one figure of a run at Max, a fraction.
type PolicyBound struct {
	Figure string  `json:"figure"`
	Max    float64 `json:"max"`
}

// DefaultBounds are the default tolerances: an algorithm decides within
// 0.1% of the requests as the exact log does, lets through at most 10% of
// the requests the log refuses and refuses at most 1% of those it admits.
func DefaultBounds() []PolicyBound {
	return []PolicyBound{
		closeBound,
		{FigureOverOfRefused, 0.1},
		{FigureUnderOfAdmitted, 0.01},
	}
}

// Bounds are the bounds the budget sets, in the order of its flags; none
// for a nil budget.
func (b *Budget) Bounds() []PolicyBound {
	if b == nil {
		return nil
	}
	var out []PolicyBound
	for _, f := range []struct {
		figure string
		max    *float64
	}{
		{FigureOverRate, b.MaxOver}, {FigureUnderRate, b.MaxUnder},
		{FigureOverOfRefused, b.MaxOverOfRefused}, {FigureUnderOfAdmitted, b.MaxUnderOfAdmitted},
	} {
		if f.max != nil {
			out = append(out, PolicyBound{f.figure, *f.max})
		}
	}
	return out
}

// counts returns the two counts whose quotient is the bounded figure of r,
// and false when r does not hold them: a figure in the log's own terms of
// a run without the log's counts beside it.
func (p PolicyBound) counts(r *Run) (n, of int64, ok bool) {
	switch p.Figure {
	case FigureDisagreeRate:
		return r.Disagree, r.Requests, true
	case FigureOverRate:
		return r.Over, r.Requests, true
	case FigureUnderRate:
		return r.Under, r.Requests, true
	case FigureOverOfRefused:
		if r.LogRefused == nil {
			return 0, 0, false
		}
		return r.Over, *r.LogRefused, true
	case FigureUnderOfAdmitted:
		if r.LogAdmitted == nil {
			return 0, 0, false
		}
		return r.Under, *r.LogAdmitted, true
	}
	return 0, 0, false
}

// Holds tells whether r's figure is within the bound, exactly: n ÷ of ≤
// Max, with Max read as the shortest decimal that gives it (the 0.001 of
// "0.1%", not the binary fraction nearest to it). A figure over nothing (no
// request, no refusal of the log's) holds; one the run does not hold, or
// an unknown figure, does not. A run placed inside a coarse clock's unit
// holds a bound only in every placement.
func (p PolicyBound) Holds(r *Run) bool {
	for _, v := range r.Views() {
		if !p.holds(v) {
			return false
		}
	}
	return true
}

// holds is Holds on one replay's counts.
func (p PolicyBound) holds(r *Run) bool {
	n, of, ok := p.counts(r)
	switch {
	case !ok:
		return false
	case of <= 0:
		return true
	}
	max, ok := new(big.Rat).SetString(strconv.FormatFloat(p.Max, 'g', -1, 64))
	if !ok { // NaN or an infinity
		return p.Max > 0
	}
	lhs := new(big.Int).Mul(big.NewInt(n), max.Denom())
	rhs := new(big.Int).Mul(big.NewInt(of), max.Num())
	return lhs.Cmp(rhs) <= 0
}

// Value is r's figure as a fraction, and false when r does not hold it or
// it is over nothing.
func (p PolicyBound) Value(r *Run) (float64, bool) {
	n, of, ok := p.counts(r)
	if !ok || of <= 0 {
		return 0, false
	}
	return float64(n) / float64(of), true
}

// Breaks returns the figures of r that break a bound of bounds, in their
// order; nil when r meets them all.
func Breaks(r *Run, bounds []PolicyBound) []string {
	var out []string
	for _, b := range bounds {
		if !b.Holds(r) {
			out = append(out, b.Figure)
		}
	}
	return out
}
