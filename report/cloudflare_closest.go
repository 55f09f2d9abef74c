package report

import (
	"math"
	"slices"

	"ratebench/summary"
)

// CloudflareFullPoints is how many of a search's closest points are
// replayed at the full scale of Cloudflare's experiment (ratebench
// cloudflare -full), for the page to say which of them, if any, gives all
// four published figures.
const CloudflareFullPoints = 3

// cfFit says how far a point's figures are from the published four, scaled
// to the full experiment's 270,000 sources by s.Scale: the decades between
// the disagreement rates, the relative gap between the mean gaps, the
// false positives (any is a miss), and the sources let through against 3.
type cfFit struct {
	decades, gapRel float64
	under, over     float64 // at full scale
	score           float64
}

func fitOf(p *summary.SearchPoint, scale float64) cfFit {
	f := cfFit{under: float64(p.Under) * scale, over: float64(p.KeysOver) * scale}
	d := math.Max(p.DisagreeRate, cfDisagreeRate/1000) // zero disagreements: three decades off
	f.decades = math.Abs(math.Log10(d / cfDisagreeRate))
	f.gapRel = math.Abs(p.MeanGap-cfMeanGap) / cfMeanGap
	f.score = f.decades + f.gapRel + math.Log10(1+f.under) + math.Abs(math.Log10((1+f.over)/(1+cfSourcesOver)))
	return f
}

// CloudflareClosest returns the indices of the k points of s nearest to
// all four published figures, nearest first (by cfFit's score; of equals,
// the first in the search), fewer if s has fewer points.
func CloudflareClosest(s *summary.CloudflareSearch, k int) []int {
	order := make([]int, len(s.Points))
	score := make([]float64, len(s.Points))
	for i := range s.Points {
		order[i], score[i] = i, fitOf(&s.Points[i], s.Scale).score
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case score[a] < score[b]:
			return -1
		case score[a] > score[b]:
			return 1
		}
		return 0
	})
	return order[:min(max(k, 0), len(order))]
}

// closest returns the index of the point nearest to all four published
// figures (CloudflareClosest's first), -1 if there is none.
func closest(s *summary.CloudflareSearch) int {
	if c := CloudflareClosest(s, 1); len(c) == 1 {
		return c[0]
	}
	return -1
}
