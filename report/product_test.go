package report

import (
	"path/filepath"
	"strings"
	"testing"

	"ratebench/summary"
)

// A product's run shows its analysis: the sentence naming the deviation
// that explains most, the table of the twin and of each deviation off,
// negative shares signed, and the deviations explained.
func TestProductSection(t *testing.T) {
	s := readSummary(t, "small.summary.json")
	r := &s.Runs[1]
	r.Product = &summary.Product{Twin: "token", VsTwin: summary.Disagreement{Over: 30, Under: 10},
		TwinVsLog: summary.Disagreement{Over: 7, Under: 3},
		Deviations: []summary.DeviationEffect{
			{Name: "clock", About: "decides on a millisecond clock", Without: r.Algorithm + ":without=clock", VsTwin: summary.Disagreement{Over: 30, Under: 12}},
			{Name: "rate-truncation", About: "truncates the rate", Without: r.Algorithm + ":without=rate-truncation", VsTwin: summary.Disagreement{Over: 5, Under: 5}},
		}}
	r.Product.SetShares()
	if r.Product.Deviations[0].Share != -0.05 || r.Product.Deviations[1].Share != 0.75 {
		t.Fatalf("shares %v %v", r.Product.Deviations[0].Share, r.Product.Deviations[1].Share)
	}
	md := string(readFile(t, filepath.Join(write(t, s, Options{NoPNG: true}), "report.md")))
	for _, want := range []string{
		"#### Products against their textbook twins",
		"`" + r.Algorithm + "` runs `token` with other arithmetic: it decided 40 requests",
		"turning off its `rate-truncation` alone removes 75.00% of those.",
		"| `token` (twin) |",
		"| without clock: `" + r.Algorithm + ":without=clock` |",
		"| −5.00% |",
		"- `clock`: decides on a millisecond clock.",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if line := ProductLine(r); !strings.Contains(line, "against its twin token: 40 requests") || !strings.HasSuffix(line, "clock −5.00%, rate-truncation 75.00%") {
		t.Errorf("terminal line %q", line)
	}
	if ProductLine(&s.Runs[0]) != "" {
		t.Error("a line for the log")
	}
	if strings.Contains(md, "-deviations") {
		t.Error("the report says how to weigh deviations it weighed")
	}
}

// A product whose deviations were not weighed is compared with its twin
// alone, and the report and the terminal say in one line how to weigh
// them.
func TestProductSectionWithoutDeviations(t *testing.T) {
	s := readSummary(t, "small.summary.json")
	r := &s.Runs[1]
	r.Product = &summary.Product{Twin: "token", VsTwin: summary.Disagreement{Over: 30, Under: 10},
		TwinVsLog: summary.Disagreement{Over: 7, Under: 3}, DeviationsNotMeasured: true}
	md := string(readFile(t, filepath.Join(write(t, s, Options{NoPNG: true}), "report.md")))
	for _, want := range []string{
		"#### Products against their textbook twins",
		"Its twin is replayed beside it, in the same mode.\n\nEach deviation's share of a product's disagreement with its twin: rerun with `-deviations`, which replays the product once more per deviation, turned off alone.\n",
		"`" + r.Algorithm + "` runs `token` with other arithmetic: it decided 40 requests (",
		" and 10 refused that it admitted.\n",
		"| replayed | disagree with the log | over | under | otherwise than the twin | over | under |\n",
		"| `token` (twin) |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	for _, not := range []string{"a deviation's share is", "no deviation turned off alone", "| share |"} {
		if strings.Contains(md, not) {
			t.Errorf("report says %q", not)
		}
	}
	if line := ProductLine(r); !strings.HasSuffix(line, "decided otherwise; each deviation's share: rerun with -deviations") {
		t.Errorf("terminal line %q", line)
	}
	r.Product.VsTwin = summary.Disagreement{}
	if line := ProductLine(r); strings.Contains(line, "-deviations") {
		t.Errorf("terminal line %q for a product that decided as its twin", line)
	}
}
