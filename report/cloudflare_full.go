package report

import (
	"fmt"
	"math"
	"strings"

	"ratebench/internal/escape"
	"ratebench/internal/numfmt"
	"ratebench/report/markup"
	"ratebench/summary"
)

// fullRun is one of a search's closest points replayed at full scale: its
// rank among the closest (1 the closest), the search's point, and the
// replay's summary and point.
type fullRun struct {
	rank        int
	point, full *summary.SearchPoint
	run         *summary.CloudflareSearch
}

// fullRuns returns the replays in s.Full of the search's
// CloudflareFullPoints closest points, nearest first, and how many other
// replays s.Full holds (of no point among them, or of several points).
func fullRuns(s *summary.CloudflareSearch) ([]fullRun, int) {
	var runs []fullRun
	others := 0
	closestPts := CloudflareClosest(s, CloudflareFullPoints)
	for _, f := range s.Full {
		found := false
		for rank, i := range closestPts {
			if len(f.Points) == 1 && f.Points[0].SameSetting(&s.Points[i]) {
				runs, found = append(runs, fullRun{rank + 1, &s.Points[i], &f.Points[0], f}), true
				break
			}
		}
		if !found {
			others++
		}
	}
	for i := 1; i < len(runs); i++ { // by rank: a handful
		for j := i; j > 0 && runs[j].rank < runs[j-1].rank; j-- {
			runs[j], runs[j-1] = runs[j-1], runs[j]
		}
	}
	return runs, others
}

// fullScale is the section on the search's closest points replayed at the
// full scale of Cloudflare's experiment: each one's figures beside the
// published ones and which of them hold (cfHolds), which point gives all
// four, and, if none, which figures no point meets together and why (over
// the full-scale points and the search's). "" when none was replayed.
func fullScale(s *summary.CloudflareSearch, h string) string {
	runs, others := fullRuns(s)
	if len(runs) == 0 {
		return "" // none of the closest points' (others are not shown)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s## At full scale\n\n", h)
	atFull := true
	for _, r := range runs {
		atFull = atFull && r.run.Scale == 1
	}
	scaleText := "at the full scale of Cloudflare's experiment"
	if !atFull {
		scaleText = "with the requests and sources of its command (not all at the full scale of Cloudflare's experiment: their counts are taken × their scale to hold them against the published ones)"
	} else {
		scaleText += fmt.Sprintf(", %s requests from %s sources", numfmt.Count(runs[0].run.Requests), numfmt.Count(int64(runs[0].run.Sources)))
	}
	fmt.Fprintf(&b, "The search's %d closest points (by the fit that picks the closest point above), each replayed %s, with the same "+
		"population, rule and timeout (`make cloudflare-full`):\n\n", CloudflareFullPoints, scaleText)
	for _, r := range runs {
		cmd := append(pointCommand(r.point), "-requests", fmt.Sprint(r.run.Requests), "-sources", fmt.Sprint(r.run.Sources))
		fmt.Fprintf(&b, "%d. %s (%s)\n", r.rank, escape.Markdown(pointName(r.point)), markup.MarkdownCode(escape.ShellCommand(cmd...), false))
	}
	b.WriteString("\n")
	var missing []string
	for rank := 1; rank <= min(CloudflareFullPoints, len(s.Points)); rank++ {
		if !hasRank(runs, rank) {
			missing = append(missing, fmt.Sprint(rank))
		}
	}
	if len(missing) > 0 {
		which := "point " + missing[0]
		if len(missing) > 1 {
			which = "points " + strings.Join(missing, ", ")
		}
		fmt.Fprintf(&b, "Replayed at full scale: %d of the %d closest points; %s not yet (`make cloudflare-full` replays all %d).\n\n",
			len(runs), CloudflareFullPoints, which, CloudflareFullPoints)
	}
	if others > 0 {
		fmt.Fprintf(&b, "Not shown: %s at full scale of points not among the %d closest.\n\n", plural(int64(others), "replay", "replays"), CloudflareFullPoints)
	}
	b.WriteString(fullTable(runs))
	b.WriteString("\nA figure holds when it is within a factor of two of the published one (the false positives: none, as published; " +
		"the mean gap: within a percentage point).")
	for _, r := range runs {
		b.WriteString(" " + holdsSentence(r))
	}
	b.WriteString("\n\n")
	b.WriteString(fullVerdict(s, runs))
	b.WriteString(fullReads(runs, s.Scale))
	return b.String()
}

// fullTable is the table of the published figures, each full-scale
// point's and whether it holds.
func fullTable(runs []fullRun) string {
	var b strings.Builder
	b.WriteString("| figure | Cloudflare |")
	for _, r := range runs {
		fmt.Fprintf(&b, " %d | holds |", r.rank)
	}
	b.WriteString("\n|---|---|" + strings.Repeat("---|---|", len(runs)) + "\n")
	rows := []struct {
		fig       cfFigure
		published string
		value     func(p *summary.SearchPoint) string
	}{
		{figDisagree, numfmt.Percent(cfDisagreeRate), func(p *summary.SearchPoint) string { return numfmt.Percent(p.DisagreeRate) }},
		{figNoFalsePos, "none", func(p *summary.SearchPoint) string {
			if p.Under == 0 {
				return "none"
			}
			return plural(p.Under, "request", "requests") + ", " + plural(p.KeysUnder, "source", "sources")
		}},
		{figSourcesOver, fmt.Sprintf("%d, slightly above", cfSourcesOver), func(p *summary.SearchPoint) string {
			return fmt.Sprintf("%s (worst burst %.3g× L)", numfmt.Count(p.KeysOver), p.BurstRatio)
		}},
		{figMeanGap, numfmt.Percent(cfMeanGap), func(p *summary.SearchPoint) string { return numfmt.Percent(p.MeanGap) }},
	}
	for _, row := range rows {
		fmt.Fprintf(&b, "| %s | %s |", row.fig.label(), row.published)
		for _, r := range runs {
			holds, _ := cfHolds(r.full, r.run.Scale)
			fmt.Fprintf(&b, " %s | %s |", row.value(r.full), yesNo(holds[row.fig]))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// fullVerdict says which full-scale point gives all four published
// figures; if none, which figures no point meets (alone, or together with
// which other), over the full-scale points and the search's, and why.
func fullVerdict(s *summary.CloudflareSearch, runs []fullRun) string {
	var all []togetherPoint
	var full []*summary.SearchPoint
	var every []string
	for _, r := range runs {
		all = append(all, togetherPoint{r.full, r.run.Scale, fmt.Sprintf("point %d at full scale", r.rank)})
		full = append(full, r.full)
		if holds, _ := cfHolds(r.full, r.run.Scale); holds == [cfFigures]bool{true, true, true, true} {
			every = append(every, fmt.Sprintf("point %d (%s)", r.rank, pointName(r.point)))
		}
	}
	if len(every) > 0 {
		return fmt.Sprintf("**At full scale all four published figures hold at %s.**\n\n", strings.Join(every, " and "))
	}
	for i := range s.Points {
		p := &s.Points[i]
		all = append(all, togetherPoint{p, s.Scale, "the search's point at " + pointName(p)})
	}
	var b strings.Builder
	b.WriteString("**No point replayed at full scale gives all four published figures.** ")
	_, known := cfHolds(&summary.SearchPoint{}, s.Scale)
	fmt.Fprintf(&b, "Over the full-scale points and the search's %d (at 1/%g of the sources, their counts ×%g in expectation", len(s.Points), s.Scale, s.Scale)
	if !known[figSourcesOver] {
		fmt.Fprintf(&b, "; one source let through there reads %g at full scale, too coarse to read 3, which only the full-scale points read", s.Scale)
	}
	b.WriteString("):\n\n")
	t := togetherOf(all)
	for _, f := range t.unmet() {
		fmt.Fprintf(&b, "- no point meets %s at all: %s.\n", f.name(), fullRange(f, full, s))
	}
	for _, pair := range t.apart() {
		fmt.Fprintf(&b, "- no point meets %s together with %s, though some point meets each: %s.\n", pair[0].name(), pair[1].name(), apartWhy(pair, s.Points, all))
	}
	if !t.pair[figDisagree][figSourcesOver] && !(t.alone[figDisagree] && t.alone[figSourcesOver]) {
		if why, binds := perSourceBound(all); binds { // the two cannot be met together, whatever the population
			fmt.Fprintf(&b, "- %s cannot be met together with %s: %s.\n", figDisagree.name(), figSourcesOver.name(), why)
		}
	}
	var met []string
	for i := range cfFigures {
		for j := i + 1; j < cfFigures; j++ {
			if t.pair[i][j] {
				met = append(met, i.name()+" with "+j.name())
			}
		}
	}
	if len(met) == 0 {
		b.WriteString("- no pair of figures is met together by any point.\n")
	} else {
		fmt.Fprintf(&b, "- met together by some point: %s (%d of the %d pairs).\n", strings.Join(met, "; "), len(met), cfFigures*(cfFigures-1)/2)
	}
	b.WriteString("\n")
	return b.String()
}

// fullRange is what the full-scale points measured of a figure no point
// meets, and the search's nearest to it.
func fullRange(f cfFigure, full []*summary.SearchPoint, s *summary.CloudflareSearch) string {
	lo := func(v func(p *summary.SearchPoint) float64) (l, h float64) {
		l, h = math.Inf(1), math.Inf(-1)
		for _, p := range full {
			l, h = math.Min(l, v(p)), math.Max(h, v(p))
		}
		return l, h
	}
	// nearest returns the search's point whose v is the least distance d
	// from the published figure.
	nearest := func(d func(p *summary.SearchPoint) float64) *summary.SearchPoint {
		var best *summary.SearchPoint
		for i := range s.Points {
			if p := &s.Points[i]; best == nil || d(p) < d(best) {
				best = p
			}
		}
		return best
	}
	span := func(a, b string) string {
		if a == b {
			return a
		}
		return a + " to " + b
	}
	sources := func(l, h float64) string {
		if l == h {
			return plural(int64(l), "source", "sources")
		}
		return span(numfmt.Count(int64(l)), numfmt.Count(int64(h))) + " sources"
	}
	switch f {
	case figDisagree:
		l, h := lo(func(p *summary.SearchPoint) float64 { return p.DisagreeRate })
		out := "the full-scale points decide " + span(numfmt.Percent(l), numfmt.Percent(h)) + " of their requests differently"
		if n := nearest(func(p *summary.SearchPoint) float64 {
			return math.Abs(math.Log(math.Max(p.DisagreeRate, cfDisagreeRate/1000) / cfDisagreeRate))
		}); n != nil {
			out += fmt.Sprintf(", the search's nearest %s (%s)", numfmt.Percent(n.DisagreeRate), pointName(n))
		}
		return out
	case figNoFalsePos:
		l, h := lo(func(p *summary.SearchPoint) float64 { return float64(p.KeysUnder) })
		out := "the full-scale points refuse " + sources(l, h) + " wrongly"
		if n := nearest(func(p *summary.SearchPoint) float64 { return float64(p.KeysUnder) }); n != nil {
			out += fmt.Sprintf(", the search's points at least %s", plural(n.KeysUnder, "source", "sources"))
		}
		return out
	case figSourcesOver:
		l, h := lo(func(p *summary.SearchPoint) float64 { return float64(p.KeysOver) })
		return "the full-scale points let " + sources(l, h) + " through"
	}
	l, h := lo(func(p *summary.SearchPoint) float64 { return p.MeanGap })
	out := "the full-scale points' mean gaps are " + span(numfmt.Percent(l), numfmt.Percent(h))
	if n := nearest(func(p *summary.SearchPoint) float64 { return math.Abs(p.MeanGap - cfMeanGap) }); n != nil {
		out += ", the search's nearest " + numfmt.Percent(n.MeanGap)
	}
	return out
}

// fullReads sets what the search read of each point, from its fraction of
// the sources, beside what the point gave at full scale.
func fullReads(runs []fullRun, scale float64) string {
	var parts []string
	for _, r := range runs {
		how := "read about what the whole population holds"
		switch {
		case r.full.DisagreeRate > 2*r.point.DisagreeRate:
			how = "under-read what the whole population holds"
		case 2*r.full.DisagreeRate < r.point.DisagreeRate:
			how = "over-read what the whole population holds"
		}
		parts = append(parts, fmt.Sprintf("The search's point %d, from 1/%g of the sources, decided %s of its requests differently, with %s "+
			"from %s, against %s and %s from %s at full scale: the few of its sources near the threshold %s.", r.rank, scale,
			numfmt.Percent(r.point.DisagreeRate), plural(r.point.Under, "false positive", "false positives"), plural(r.point.KeysUnder, "source", "sources"),
			numfmt.Percent(r.full.DisagreeRate), numfmt.Count(r.full.Under), plural(r.full.KeysUnder, "source", "sources"), how))
	}
	return strings.Join(parts, " ") + "\n\n"
}

// holdsSentence says which published figures hold at the full-scale
// point of r.
func holdsSentence(r fullRun) string {
	holds, _ := cfHolds(r.full, r.run.Scale)
	var hold, fail []string
	for f := range cfFigures {
		if holds[f] {
			hold = append(hold, f.label())
		} else {
			fail = append(fail, f.label())
		}
	}
	switch {
	case len(fail) == 0:
		return fmt.Sprintf("At point %d every published figure holds.", r.rank)
	case len(hold) == 0:
		return fmt.Sprintf("At point %d none of the published figures holds.", r.rank)
	}
	return fmt.Sprintf("At point %d these hold: %s; these do not: %s.", r.rank, strings.Join(hold, "; "), strings.Join(fail, "; "))
}

func hasRank(runs []fullRun, rank int) bool {
	for _, r := range runs {
		if r.rank == rank {
			return true
		}
	}
	return false
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
