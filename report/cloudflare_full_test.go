package report

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"ratebench/summary"
)

// fullPoint is a point of a hand-made search: its population's cap and
// timeout, its requests let through and refused wrongly, their sources,
// its rate decided differently and its mean gap.
func fullPoint(max float64, block string, over, under, keysOver, keysUnder int64, rate, gap float64) summary.SearchPoint {
	return summary.SearchPoint{Rule: "100/1m", Algorithm: "counter", Rate: 0.5, Alpha: 6, Max: max, Block: block,
		PairResult: summary.PairResult{Requests: 40_000_000, Keys: 27_000, Over: over, Under: under, KeysOver: keysOver, KeysUnder: keysUnder,
			Disagree: over + under, DisagreeRate: rate, MeanGap: gap, BurstRatio: 1.05}}
}

// The closest points come nearest first, by the same fit as the closest
// point; k beyond the points gives them all, k of 0 none.
func TestCloudflareClosestOrder(t *testing.T) {
	s := &summary.CloudflareSearch{Scale: 10, Points: []summary.SearchPoint{
		fullPoint(2, "", 0, 0, 0, 0, 0, 0.058),              // three decades off: fourth
		fullPoint(3, "", 900, 900, 2, 2, 0.000045, 0.058),   // false positives: farthest
		fullPoint(3, "1h", 1200, 0, 1, 0, 0.00003, 0.058),   // all but 10 sources for 3
		fullPoint(4, "1h", 30000, 0, 20, 0, 0.00075, 0.058), // 25 times the rate
		fullPoint(4, "10m", 1200, 0, 1, 0, 0.00003, 0.058),  // the same fit as the third: after it
	}}
	if got, want := CloudflareClosest(s, 3), []int{2, 4, 3}; !reflect.DeepEqual(got, want) {
		t.Errorf("3 closest %v, want %v", got, want)
	}
	if got := CloudflareClosest(s, 9); len(got) != 5 || got[4] != 1 {
		t.Errorf("9 closest of 5 points: %v", got)
	}
	if got := CloudflareClosest(s, 0); len(got) != 0 {
		t.Errorf("0 closest: %v", got)
	}
	if got := closest(s); got != 2 {
		t.Errorf("closest %d, want 2", got)
	}
}

// A search's count of sources reads 3 only where a whole number of its
// sources, × its scale, comes within a factor of two of it.
func TestCfHoldsResolution(t *testing.T) {
	p := fullPoint(3, "1h", 1200, 0, 1, 0, 0.00003, 0.058)
	for _, tt := range []struct {
		scale        float64
		known, holds bool
	}{{1, true, false}, {3, true, true}, {10, false, false}} {
		holds, known := cfHolds(&p, tt.scale)
		if known[figSourcesOver] != tt.known || holds[figSourcesOver] != tt.holds {
			t.Errorf("scale %g: sources let through known %v holds %v, want %v %v", tt.scale, known[figSourcesOver], holds[figSourcesOver], tt.known, tt.holds)
		}
		if !holds[figDisagree] || !holds[figNoFalsePos] || !holds[figMeanGap] {
			t.Errorf("scale %g: %v", tt.scale, holds)
		}
	}
}

// The figures no point meets together: a pair each of whose figures some
// point meets, but no one point both; a figure no point meets at all is
// not a pair's.
func TestTogetherApart(t *testing.T) {
	a := fullPoint(3, "", 900, 300, 2, 1, 0.00003, 0.058) // the rate, but false positives
	b := fullPoint(3, "1h", 40, 0, 1, 0, 0.000001, 0.058) // none, but a rate 30 times too low
	c := fullPoint(4, "1h", 40, 0, 1, 0, 0.000001, 0.09)  // the gap 3 points off
	tg := togetherOf([]togetherPoint{{&a, 10, "a"}, {&b, 10, "b"}, {&c, 10, "c"}})
	if got, want := tg.unmet(), []cfFigure{figSourcesOver}; !reflect.DeepEqual(got, want) {
		t.Errorf("unmet %v, want %v", got, want)
	}
	if got, want := tg.apart(), [][2]cfFigure{{figDisagree, figNoFalsePos}}; !reflect.DeepEqual(got, want) {
		t.Errorf("apart %v, want %v", got, want)
	}
	if !tg.pair[figNoFalsePos][figMeanGap] || !tg.pair[figDisagree][figMeanGap] || tg.pair[figDisagree][figNoFalsePos] {
		t.Errorf("pairs %v", tg.pair)
	}
	// At full scale the same point that lets 3 through meets them too.
	d := fullPoint(3, "1h", 2000, 0, 3, 0, 0.000005, 0.058)
	tg = togetherOf([]togetherPoint{{&a, 10, "a"}, {&d, 1, "d"}})
	if len(tg.unmet()) != 0 || !reflect.DeepEqual(tg.apart(), [][2]cfFigure{{figDisagree, figNoFalsePos}, {figDisagree, figSourcesOver}}) {
		t.Errorf("unmet %v, apart %v", tg.unmet(), tg.apart())
	}
}

// testFullSearch is a search at 1/10 of the sources whose three closest
// points are 2, 4 and 3, with full-scale replays of the given ranks' points
// (1 the closest).
func testFullSearch(full map[int]summary.SearchPoint) *summary.CloudflareSearch {
	s := &summary.CloudflareSearch{Command: "ratebench cloudflare -search 'max=2,3,4'", Requests: 40_000_000, Sources: 27_000, Scale: 10, Count: "all",
		Points: []summary.SearchPoint{
			fullPoint(2, "", 0, 0, 0, 0, 0, 0.058),
			fullPoint(3, "", 900, 900, 2, 2, 0.000045, 0.058),
			fullPoint(3, "1h", 1200, 0, 1, 0, 0.00003, 0.058),
			fullPoint(4, "1h", 30000, 0, 20, 0, 0.00075, 0.058),
			fullPoint(4, "10m", 1200, 0, 1, 0, 0.00003, 0.058),
		}}
	order := CloudflareClosest(s, 3)
	for rank := 1; rank <= 3; rank++ {
		f, ok := full[rank]
		if !ok {
			continue
		}
		p := s.Points[order[rank-1]]
		p.PairResult = f.PairResult
		p.Requests, p.Keys = 400_000_000, 270_000
		s.Full = append(s.Full, &summary.CloudflareSearch{Requests: 400_000_000, Sources: 270_000, Scale: 1, Count: "all", Points: []summary.SearchPoint{p}})
	}
	return s
}

func fullPage(t *testing.T, s *summary.CloudflareSearch) string {
	t.Helper()
	var b bytes.Buffer
	if err := CloudflareSearchREADME(&b, s, ""); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// The three closest points at full scale share one table, in the order of
// the search's fit; the page names the one that gives all four figures.
func TestFullScaleAllFour(t *testing.T) {
	s := testFullSearch(map[int]summary.SearchPoint{
		1: fullPoint(0, "", 9000, 200, 30, 2, 0.0000230, 0.0577),
		2: fullPoint(0, "", 12000, 0, 3, 0, 0.0000300, 0.0577),
		3: fullPoint(0, "", 4000, 3000, 8, 6, 0.0000175, 0.0577),
	})
	s.Full[0], s.Full[2] = s.Full[2], s.Full[0] // the folders' order is not the page's
	page := fullPage(t, s)
	for _, want := range []string{
		"The search's 3 closest points (by the fit that picks the closest point above), each replayed at the full scale of Cloudflare's experiment, 400,000,000 requests from 270,000 sources",
		"2. rule 100/1m, rate 0.5/s, alpha 6, max 4, timeout 10m (`ratebench cloudflare -rule 100/1m -rate 0.5 -alpha 6 -max 4 -block 10m -requests 400000000 -sources 270000`)",
		"| figure | Cloudflare | 1 | holds | 2 | holds | 3 | holds |",
		"| requests decided differently | 0.0030% | 0.0023% | yes | 0.0030% | yes | 0.0017% | yes |",
		"| refused, the log admitted (false positives) | none | 200 requests, 2 sources | no | none | yes | 3,000 requests, 6 sources | no |",
		"| sources let through | 3, slightly above | 30 (worst burst 1.05× L) | no | 3 (worst burst 1.05× L) | yes | 8 (worst burst 1.05× L) | no |",
		"**At full scale all four published figures hold at point 2 (rule 100/1m, rate 0.5/s, alpha 6, max 4, timeout 10m).**",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page, "Replayed at full scale:") || strings.Contains(page, "No point replayed") {
		t.Error("the page says a point is missing, or that none gives all four")
	}
}

// Where no full-scale point gives all four, the page says which figures
// no point meets together and why; fewer than three replayed are named.
func TestFullScaleNoneGivesAllFour(t *testing.T) {
	s := testFullSearch(map[int]summary.SearchPoint{
		1: fullPoint(0, "", 9000, 0, 10, 0, 0.0000225, 0.0577), // 900 a source
		3: fullPoint(0, "", 2400, 0, 3, 0, 0.000006, 0.0577),   // 800 a source
	})
	page := fullPage(t, s)
	for _, want := range []string{
		"Replayed at full scale: 2 of the 3 closest points; point 2 not yet (`make cloudflare-full` replays all 3).",
		"| figure | Cloudflare | 1 | holds | 3 | holds |",
		"**No point replayed at full scale gives all four published figures.** Over the full-scale points and the search's 5 (at 1/10 of the sources, their counts ×10 in expectation; one source let through there reads 10 at full scale, too coarse to read 3",
		"- no point meets 0.003% decided differently together with 3 sources let through, though some point meets each: with no false positive",
		"0.003% of 400,000,000 over 3 sources is 4,000 requests each, and no point lets its sources through for more than 1,500 requests each on average (the search's point at rule 100/1m, rate 0.5/s, alpha 6, max 4, timeout 1h): 3 sources at that come to 0.0011%, under half the published rate, and 0.003% at 1,500 requests a source takes about 8 sources let through.",
		"- met together by some point: 0.003% decided differently with no false positives; 0.003% decided differently with the 6% mean gap; no false positives with 3 sources let through; no false positives with the 6% mean gap; 3 sources let through with the 6% mean gap (5 of the 6 pairs).",
		"The search's point 3, from 1/10 of the sources, decided 0.075% of its requests differently, with 0 false positives from 0 sources, against 0.0006% and 0 from 0 sources at full scale: the few of its sources near the threshold over-read",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

// The rate decided differently and no false positive are set apart by the
// sources near the threshold: per timeout, the rate takes so many sources
// let through, and each is refused wrongly with that timeout's share.
func TestApartWhyFalsePositives(t *testing.T) {
	pts := []summary.SearchPoint{
		fullPoint(3, "", 1000, 40, 10, 8, 0.0000026, 0.0577),   // 100 a source; q = 0.8
		fullPoint(3, "1h", 9000, 40, 10, 2, 0.0000226, 0.0577), // 900 a source; q = 0.2
	}
	got := apartWhy([2]cfFigure{figDisagree, figNoFalsePos}, pts, nil)
	for _, want := range []string{
		"timeout none, q = 0.80 and 100 requests let through a source: 0.003% takes about 120 sources let through, none of them refused wrongly with a probability of about (1−q)^120 = under 0.01%",
		"timeout 1h, q = 0.20 and 900 requests let through a source: 0.003% takes about 13 sources let through, none of them refused wrongly with a probability of about (1−q)^13 = 5.5%",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("got %q\nwant %q", got, want)
		}
	}
	got = apartWhy([2]cfFigure{figNoFalsePos, figSourcesOver}, pts, nil)
	if want := "timeout none, q = 0.80: 0.8%; timeout 1h, q = 0.20: 51%"; !strings.Contains(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
