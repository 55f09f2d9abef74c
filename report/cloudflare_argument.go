package report

import (
	_ "embed"
	"math"
	"strings"
	"text/template"
	"time"

	"ratebench/internal/numfmt"
	"ratebench/summary"
)

// argumentText is the section that reads the search, what sets each
// published figure, as a template over an argument: the prose is in the
// Markdown file, the figures the points show are computed here.
//
//go:embed cloudflare_argument.md
var argumentText string

var argumentPage = template.Must(template.New("argument").Funcs(template.FuncMap{
	"percent":   numfmt.Percent,
	"count":     numfmt.Count,
	"blockName": blockName,
}).Parse(argumentText))

// argument is what the section says of a search s: the figures its
// points show, each nil (or empty) where the points show nothing of it.
type argument struct {
	H string // the heading's level, less one
	// Gaps are the mean gaps at each mean rate, in the order of the
	// points, for the rates whose points measured one.
	Gaps               []rateGaps
	ZeroPoints, Points int // the points that decided nothing differently, of all
	Near               *nearShares
	// NoTimeout is the points' tally without a timeout, if it let a source
	// through; Timeouts each timeout's that did, in the order of the
	// points; Longest the last timeout's, if it is one and let a source
	// through.
	NoTimeout *blockTally
	Timeouts  []blockTally
	Longest   *blockTally
	Outlasts  *outlast
	Published struct{ Requests, Disagreed, PerSource int64 }
	Closest   *closestRead
	Scale     float64 // the full scale's sources over a point's
}

// rateGaps are the least and the greatest mean gap of the points of one
// mean rate.
type rateGaps struct{ Rate, Lo, Hi float64 }

// nearShares are, of the points without a timeout whose fastest sources
// can reach L, the greatest share of requests from sources averaging L/2
// or more among those at or under the published disagreement rate, and
// the least among those above it.
type nearShares struct{ AtOrUnder, Above float64 }

// blockTally adds up the points behind one timeout: the sources let
// through, refused wrongly, and both, and the requests let through and
// refused wrongly.
type blockTally struct {
	Block                                string
	Over, Under, Both, ReqOver, ReqUnder int64
}

// Q is the share of sources refused wrongly to sources let through.
func (t *blockTally) Q() float64 { return float64(t.Under) / float64(t.Over) }

// NoneRefused is the chance, in percent, that 3 sources let through come
// with none refused wrongly: (1−q)³.
func (t *blockTally) NoneRefused() float64 { return t.noneRefusedOf(3) }

// noneRefusedOf is the chance, in percent, that n sources let through come
// with none refused wrongly: (1−q)ⁿ (none when q is 1 or more).
func (t *blockTally) noneRefusedOf(n float64) float64 { return 100 * math.Pow(math.Max(0, 1-t.Q()), n) }

// blockTallies adds up pts by timeout, in the order of the points.
func blockTallies(pts []summary.SearchPoint) []*blockTally {
	var tallies []*blockTally
	by := map[string]*blockTally{}
	for _, p := range pts {
		t := by[p.Block]
		if t == nil {
			t = &blockTally{Block: p.Block}
			by[p.Block] = t
			tallies = append(tallies, t)
		}
		t.Over += p.KeysOver
		t.Under += p.KeysUnder
		t.Both += p.KeysBoth
		t.ReqOver += p.Over
		t.ReqUnder += p.Under
	}
	return tallies
}

// outlast is the last timeout when it outlasts every point's span (in
// minutes, the longest).
type outlast struct {
	Block   string
	Minutes float64
}

// closestRead is what the published three sources mean at the closest
// point: how long a source at its threshold's rate sends the published
// requests per source (Rule "" when its rule cannot be read), how many
// sources it lets through at full scale and how many requests each.
type closestRead struct {
	Rule              string
	Minutes           float64
	SourcesOver       string
	RequestsPerSource int64
}

// searchArgument is the section that reads the search: what sets each
// published figure, shown by the points (cloudflare_argument.md).
func searchArgument(s *summary.CloudflareSearch, h string) (string, error) {
	a := argument{H: h, Points: len(s.Points), Scale: s.Scale}
	for _, rate := range distinctRates(s) {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, p := range s.Points {
			if p.Rate == rate && p.MeanGap >= 0 {
				lo, hi = math.Min(lo, p.MeanGap), math.Max(hi, p.MeanGap)
			}
		}
		if !math.IsInf(lo, 0) {
			a.Gaps = append(a.Gaps, rateGaps{rate, lo, hi})
		}
	}
	// Disagreements against the share of requests near L.
	maxOK, minOver := -1.0, math.Inf(1)
	for _, p := range s.Points {
		if p.Disagree == 0 {
			a.ZeroPoints++
		}
		if p.Block != "" || reachOf(&p) < 0.9 {
			continue // the timeout's amplification, or sources that cannot reach L
		}
		if p.DisagreeRate <= cfDisagreeRate {
			maxOK = math.Max(maxOK, p.NearShare)
		} else {
			minOver = math.Min(minOver, p.NearShare)
		}
	}
	if maxOK >= 0 && !math.IsInf(minOver, 0) {
		a.Near = &nearShares{maxOK, minOver}
	}
	// False positives against sources let through, by timeout.
	tallies := blockTallies(s.Points)
	by := map[string]*blockTally{}
	for _, t := range tallies {
		by[t.Block] = t
	}
	if t := by[""]; t != nil && t.Over > 0 {
		a.NoTimeout = t
	}
	for _, t := range tallies {
		if t.Over > 0 {
			a.Timeouts = append(a.Timeouts, *t)
		}
	}
	var span float64
	for _, p := range s.Points {
		span = math.Max(span, p.Span)
	}
	if len(tallies) > 0 {
		last := tallies[len(tallies)-1]
		if last.Block != "" && last.Over > 0 {
			a.Longest = last
		}
		if d, err := time.ParseDuration(last.Block); err == nil && span > 0 && d.Seconds() >= span {
			a.Outlasts = &outlast{last.Block, span / 60}
		}
	}
	perSource := cfDisagreeRate * summary.CloudflareRequests / cfSourcesOver
	a.Published.Requests, a.Published.Disagreed, a.Published.PerSource = summary.CloudflareRequests, int64(cfDisagreeRate*summary.CloudflareRequests), int64(perSource)
	if i := closest(s); i >= 0 {
		p := &s.Points[i]
		c := &closestRead{SourcesOver: scaled(p.KeysOver, s.Scale), RequestsPerSource: p.Over / max(1, p.KeysOver)}
		if w, l, ok := ruleParts(p.Rule); ok {
			c.Rule, c.Minutes = p.Rule, perSource/(l/w)/60
		}
		a.Closest = c
	}
	var b strings.Builder
	if err := argumentPage.Execute(&b, a); err != nil {
		return "", err
	}
	return strings.TrimRight(b.String(), "\n") + "\n\n", nil
}
