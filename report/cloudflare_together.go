package report

import (
	"fmt"
	"math"
	"strings"

	"ratebench/internal/numfmt"
	"ratebench/summary"
)

// cfFigure is one of the four figures Cloudflare published.
type cfFigure int

const (
	figDisagree    cfFigure = iota // 0.003% of requests decided differently
	figNoFalsePos                  // no false positive
	figSourcesOver                 // 3 sources let through
	figMeanGap                     // a 6% mean gap
	cfFigures
)

// name is how a sentence names the published figure f.
func (f cfFigure) name() string {
	return [cfFigures]string{"0.003% decided differently", "no false positives", "3 sources let through", "the 6% mean gap"}[f]
}

// label is how a table names the published figure f.
func (f cfFigure) label() string {
	return [cfFigures]string{"requests decided differently", "refused, the log admitted (false positives)", "sources let through",
		"mean gap, approximate vs real rate"}[f]
}

// cfHolds says which published figures p holds with its counts taken ×
// scale to the full scale (in expectation, for a scale above 1): the rate
// decided differently and the sources let through within a factor of two
// of the published ones, no request refused wrongly, the mean gap within
// a percentage point. known is false for the sources let through where
// scale is too coarse to read 3: no whole number of p's sources comes, ×
// scale, within a factor of two of it (at 1/10 of the sources one reads
// 10).
func cfHolds(p *summary.SearchPoint, scale float64) (holds, known [cfFigures]bool) {
	within2 := func(x, published float64) bool { return x >= published/2 && x <= 2*published }
	holds[figDisagree] = within2(p.DisagreeRate, cfDisagreeRate)
	holds[figNoFalsePos] = p.Under == 0
	holds[figSourcesOver] = within2(float64(p.KeysOver)*scale, cfSourcesOver)
	holds[figMeanGap] = math.Abs(p.MeanGap-cfMeanGap) <= 0.01
	known = [cfFigures]bool{true, true, true, true}
	known[figSourcesOver] = math.Ceil(cfSourcesOver/2/scale)*scale <= 2*cfSourcesOver
	return holds, known
}

// togetherPoint is a point read for which figures it meets together: its
// figures, the scale its counts are taken by, and how a sentence names it.
type togetherPoint struct {
	p     *summary.SearchPoint
	scale float64
	label string
}

// together is which published figures the points meet, alone and in
// pairs: a figure or pair counts only the points that can read it
// (cfHolds' known).
type together struct {
	alone [cfFigures]bool
	pair  [cfFigures][cfFigures]bool
}

func togetherOf(pts []togetherPoint) together {
	var t together
	for _, tp := range pts {
		holds, known := cfHolds(tp.p, tp.scale)
		for i := range cfFigures {
			t.alone[i] = t.alone[i] || known[i] && holds[i]
			for j := range cfFigures {
				t.pair[i][j] = t.pair[i][j] || known[i] && known[j] && holds[i] && holds[j]
			}
		}
	}
	return t
}

// unmet returns the figures no point meets on its own.
func (t together) unmet() []cfFigure {
	var out []cfFigure
	for i := range cfFigures {
		if !t.alone[i] {
			out = append(out, i)
		}
	}
	return out
}

// apart returns the pairs of figures that some point meets each of but
// no point meets both of.
func (t together) apart() [][2]cfFigure {
	var out [][2]cfFigure
	for i := range cfFigures {
		for j := i + 1; j < cfFigures; j++ {
			if t.alone[i] && t.alone[j] && !t.pair[i][j] {
				out = append(out, [2]cfFigure{i, j})
			}
		}
	}
	return out
}

// mostPerSource returns, of pts, the most requests a point lets each of
// its sources through on average, and that point's index (-1 if none let
// a source through).
func mostPerSource(pts []togetherPoint) (float64, int) {
	most, at := 0.0, -1
	for i, tp := range pts {
		if tp.p.KeysOver > 0 {
			if per := float64(tp.p.Over) / float64(tp.p.KeysOver); per > most {
				most, at = per, i
			}
		}
	}
	return most, at
}

// apartWhy is why no point meets both figures of pair: the mechanism that
// sets them apart, as a stated model with the points' figures. pts are the
// search's points (their shares, by timeout, do not depend on the scale),
// all every point read.
func apartWhy(pair [2]cfFigure, pts []summary.SearchPoint, all []togetherPoint) string {
	a, b := pair[0], pair[1]
	switch {
	case a == figMeanGap || b == figMeanGap:
		other := a
		if a == figMeanGap {
			other = b
		}
		return fmt.Sprintf("the mean gap is set by the traffic per window of the bulk of the sources, %s by the few that come near the "+
			"threshold (What sets each figure, below): the searched populations that give one do not give the other", other.name())
	case a == figDisagree && b == figSourcesOver:
		why, _ := perSourceBound(all)
		return why
	case a == figDisagree && b == figNoFalsePos:
		published := cfDisagreeRate * summary.CloudflareRequests
		var parts []string
		for _, t := range blockTallies(pts) {
			if t.Over == 0 {
				continue
			}
			per := float64(t.ReqOver) / float64(t.Over)
			n := math.Max(1, math.Round(published/per))
			parts = append(parts, fmt.Sprintf("timeout %s, q = %.2f and %s requests let through a source: 0.003%% takes about %.0f sources "+
				"let through, none of them refused wrongly with a probability of about (1−q)^%.0f = %s%%",
				blockName(t.Block), t.Q(), numfmt.Count(int64(math.Round(per))), n, n, probability(t.noneRefusedOf(n))))
		}
		if len(parts) == 0 {
			return "the search's points let no source through"
		}
		return "both are set by the sources that come near the threshold, and the timeout trades one for the other (the search's points " +
			"by timeout, q the sources refused wrongly per source let through): " + strings.Join(parts, "; ")
	case a == figNoFalsePos && b == figSourcesOver:
		var parts []string
		for _, t := range blockTallies(pts) {
			if t.Over > 0 {
				parts = append(parts, fmt.Sprintf("timeout %s, q = %.2f: %s%%", blockName(t.Block), t.Q(), probability(t.NoneRefused())))
			}
		}
		if len(parts) == 0 {
			return "the search's points let no source through"
		}
		return "a source near the threshold is let through or refused wrongly by the same error: 3 let through with none refused " +
			"wrongly has a probability of about (1−q)³ (the search's points by timeout, q the sources refused wrongly per source let through): " +
			strings.Join(parts, "; ")
	}
	return ""
}

// perSourceBound is the model that sets the rate decided differently
// against the sources let through, with the points' figures: with no false
// positive the requests decided differently are the sources let through
// times the requests each is let through, and no point lets its sources
// through for more than its most on average. binds is whether 3 sources
// at that most come under half the published rate.
func perSourceBound(all []togetherPoint) (why string, binds bool) {
	most, at := mostPerSource(all)
	if at < 0 {
		return "no point lets a source through", false
	}
	published := cfDisagreeRate * summary.CloudflareRequests
	upTo := cfSourcesOver * most / summary.CloudflareRequests
	why = fmt.Sprintf("with no false positive the requests decided differently are the requests let through, the sources let through "+
		"times the requests each is let through (for as long as the counter lags behind the log): 0.003%% of %s over 3 sources is %s "+
		"requests each, and no point lets its sources through for more than %s requests each on average (%s): 3 sources at that come to %s",
		numfmt.Count(summary.CloudflareRequests), numfmt.Count(int64(published/cfSourcesOver)), numfmt.Count(int64(math.Round(most))),
		all[at].label, numfmt.Percent(upTo))
	binds = upTo < cfDisagreeRate/2
	if binds {
		why += fmt.Sprintf(", under half the published rate, and 0.003%% at %s requests a source takes about %.0f sources let through",
			numfmt.Count(int64(math.Round(most))), published/most)
	}
	return why, binds
}

// probability writes a chance in percent with two significant digits
// ("0" for none, "under 0.01" below that).
func probability(pc float64) string {
	switch {
	case pc == 0:
		return "0"
	case pc < 0.01:
		return "under 0.01"
	case pc >= 10:
		return fmt.Sprintf("%.0f", pc)
	}
	return fmt.Sprintf("%.2g", pc)
}

// pointName names a point by its population and timeout.
func pointName(p *summary.SearchPoint) string {
	var parts []string
	if p.Algorithm != "counter" {
		parts = append(parts, p.Algorithm)
	}
	parts = append(parts, "rule "+p.Rule, fmt.Sprintf("rate %g/s", p.Rate), fmt.Sprintf("alpha %g", p.Alpha), fmt.Sprintf("max %g", p.Max),
		"timeout "+blockName(p.Block))
	return strings.Join(parts, ", ")
}
