package report

import (
	"bytes"
	"strings"
	"testing"

	"ratebench/summary"
)

func testSearch() *summary.CloudflareSearch {
	pt := func(max float64, block string, over, under, keysOver, keysUnder int64, rate, gap float64) summary.SearchPoint {
		return summary.SearchPoint{Rule: "100/1m", Algorithm: "counter", Rate: 0.5, Alpha: 8, Max: max, Block: block,
			PairResult: summary.PairResult{Requests: 1_000_000, Keys: 1000, Over: over, Under: under, KeysOver: keysOver, KeysUnder: keysUnder,
				KeysBoth: keysUnder, Disagree: over + under, DisagreeRate: rate, MeanGap: gap, NearShare: max / 100, BurstRatio: 1.03}}
	}
	return &summary.CloudflareSearch{Command: "ratebench cloudflare -search 'max=2,3'", Requests: 1_000_000, Sources: 1000, Scale: 270, Count: "all",
		Points: []summary.SearchPoint{
			pt(2, "", 0, 0, 0, 0, 0, 0.058),
			pt(3, "", 10, 10, 2, 2, 0.00002, 0.058),
			pt(3, "1h", 28, 0, 1, 0, 0.000028, 0.058),
		}}
}

// The closest point is the one with all four figures nearest: here the
// one behind the timeout, with no false positive.
func TestCloudflareSearchClosest(t *testing.T) {
	s := testSearch()
	if got := closest(s); got != 2 {
		t.Errorf("closest point %d, want 2", got)
	}
	var b bytes.Buffer
	if err := CloudflareSearchREADME(&b, s, ""); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"`ratebench cloudflare -rule 100/1m -rate 0.5 -alpha 8 -max 3 -block 1h`",
		"| refused, the log admitted (false positives) | 0 | 0 requests, 0 sources | ≈0 requests, ≈0 sources |",
		"| sources let through | 3, slightly above | 1 (worst burst 1.03× L) | ≈270 |",
		"Without a timeout the search let 2 sources through and refused 2 wrongly (2 of them also let through): with a share q = 1.00",
		"Timeout 1h: 28 requests let through and 0 refused wrongly, 1 sources let through and 0 refused.",
		"1 of the 3 points decided nothing differently",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

// The plot is the same bytes every time.
func TestCloudflareSearchPlotDeterministic(t *testing.T) {
	a, err := CloudflareSearchPlots(testSearch())
	if err != nil {
		t.Fatal(err)
	}
	b, _ := CloudflareSearchPlots(testSearch())
	if len(a) != 1 || a[0].Name != "disagreement.svg" || !bytes.Equal(a[0].Data, b[0].Data) || !bytes.Contains(a[0].Data, []byte("Cloudflare")) {
		t.Error("plot differs between two renderings, or is not the search's")
	}
}

// The closest point rerun with more sources shows beside it, scaled by its
// own factor; a rerun of another point does not.
func TestCloudflareSearchCheckColumn(t *testing.T) {
	s := testSearch()
	check := s.Points[2]
	check.Requests, check.Keys, check.Under, check.KeysUnder, check.KeysOver, check.DisagreeRate = 10_000_000, 10_000, 40, 2, 9, 0.0002
	s.Check = &summary.CloudflareSearch{Requests: 10_000_000, Sources: 10_000, Scale: 27, Count: "all", Points: []summary.SearchPoint{check}}
	var b bytes.Buffer
	if err := CloudflareSearchREADME(&b, s, ""); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| rerun: 10,000,000 requests, 10,000 sources | at 270,000 sources (×27) |",
		"| refused, the log admitted (false positives) | 0 | 0 requests, 0 sources | ≈0 requests, ≈0 sources | 40 requests, 2 sources | ≈1,080 requests, ≈54 sources |",
		"| sources let through | 3, slightly above | 1 (worst burst 1.03× L) | ≈270 | 9 (worst burst 1.03× L) | ≈243 |",
		"The rerun holds 10 times the sources of a point",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("page lacks %q", want)
		}
	}
	s.Check.Points[0].Max = 2
	b.Reset()
	if err := CloudflareSearchREADME(&b, s, ""); err != nil || strings.Contains(b.String(), "rerun") {
		t.Errorf("a rerun of another point shown: %v", err)
	}
}

// The closest point at full scale gets a section of its own, saying which
// published figures hold; a full-scale run of another point gets none.
func TestCloudflareSearchFullScale(t *testing.T) {
	s := testSearch()
	full := s.Points[2]
	full.Requests, full.Keys, full.Under, full.KeysUnder, full.KeysOver, full.DisagreeRate, full.MeanGap = 400_000_000, 270_000, 0, 0, 40, 0.00004, 0.0575
	s.Full = []*summary.CloudflareSearch{{Requests: 400_000_000, Sources: 270_000, Scale: 1, Count: "all", Points: []summary.SearchPoint{full}}}
	var b bytes.Buffer
	if err := CloudflareSearchREADME(&b, s, ""); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"## At full scale",
		"400,000,000 requests from 270,000 sources",
		"| requests decided differently | 0.0030% | 0.0040% | yes |",
		"| refused, the log admitted (false positives) | none | none | yes |",
		"| sources let through | 3, slightly above | 40 (worst burst 1.03× L) | no |",
		"| mean gap, approximate vs real rate | 6.00% | 5.75% | yes |",
		"these do not: sources let through.",
		"The search's point 1, from 1/270 of the sources, decided 0.0028% of its requests differently, with 0 false positives from 0 sources, against 0.0040% and 0 from 0 sources at full scale: the few of its sources near the threshold read about what the whole population holds.",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("page lacks %q", want)
		}
	}
	s.Full[0].Points[0].DisagreeRate = 0.0004 // 14 times the point's
	b.Reset()
	if err := CloudflareSearchREADME(&b, s, ""); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "near the threshold under-read what the whole population holds") {
		t.Error("a full scale far above the point does not say the point under-read it")
	}
	s.Full[0].Points[0].Max++
	b.Reset()
	if err := CloudflareSearchREADME(&b, s, ""); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "At full scale") {
		t.Error("a full-scale run of another point is shown as the closest point's")
	}
}
