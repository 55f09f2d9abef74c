package summary

import (
	"bytes"
	"strings"
	"testing"
)

// productSummary is a validSummary of n requests with, beside the log's
// run, one of a product named alg that decided as the log, its analysis
// p.
func productSummary(n int64, alg string, p Product) *Summary {
	s := validSummary(n)
	s.Config.Algorithms = append(s.Config.Algorithms, alg)
	r := s.Runs[0]
	r.Algorithm, r.Product = alg, &p
	s.Runs = append(s.Runs, r)
	return s
}

// A product whose deviations were not weighed says so (schema 1.9) and
// lists none; one that lists none without saying so claims figures it
// does not hold, unless its spec turns every deviation off, and one that
// says so and lists some contradicts itself: both are refused.
func TestProductDeviationsMeasuredOrSaidNotToBe(t *testing.T) {
	effect := DeviationEffect{Name: "clock", About: "a clock", Without: "aqua:without=clock"}
	for _, c := range []struct {
		alg  string
		p    Product
		want string // the error, "" if valid
	}{
		{"aqua", Product{Twin: "token", DeviationsNotMeasured: true}, ""},
		{"aqua", Product{Twin: "token", Deviations: []DeviationEffect{effect}}, ""},
		{"aqua:without=clock", Product{Twin: "token"}, ""},
		{"aqua", Product{Twin: "token"}, "runs[1].product.deviations: none listed for aqua, which turns none off: want its deviations, or deviations_not_measured (its deviations are weighed only by compare -deviations)"},
		{"aqua", Product{Twin: "token", DeviationsNotMeasured: true, Deviations: []DeviationEffect{effect}}, "runs[1].product.deviations: 1 listed, but deviations_not_measured says none was measured"},
	} {
		s := productSummary(3, c.alg, c.p)
		data, err := s.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		back, err := ReadSummary(bytes.NewReader(data))
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s %+v: %v", c.alg, c.p, err)
		case c.want != "" && (err == nil || !strings.HasSuffix(err.Error(), c.want)):
			t.Errorf("%s %+v: %v, want %q", c.alg, c.p, err, c.want)
		case err == nil && c.p.DeviationsNotMeasured != (back.Schema == SchemaV1_9):
			t.Errorf("%s %+v: schema %s", c.alg, c.p, back.Schema)
		case err == nil && c.p.DeviationsNotMeasured != strings.Contains(string(data), `"deviations_not_measured": true`):
			t.Errorf("%s %+v: written\n%s", c.alg, c.p, data)
		}
	}
}

// A product's analysis does not merge with one that weighed its deviations
// otherwise, even where the parts' summaries alone do not tell.
func TestProductMergeRefusesDeviationsWeighedOtherwise(t *testing.T) {
	a := productSummary(3, "aqua", Product{Twin: "token", DeviationsNotMeasured: true})
	b := productSummary(3, "aqua", Product{Twin: "token", Deviations: []DeviationEffect{{Name: "clock", Without: "aqua:without=clock"}}})
	for want, parts := range map[string][]*Summary{"without -deviations, part 1 with:": {a, b}, "with -deviations, part 1 without:": {b, a}} {
		_, err := MergeDisjoint(parts)
		if err == nil || !strings.Contains(err.Error(), "part 0 was replayed "+want) {
			t.Errorf("merged: %v, want %q", err, want)
		}
	}
	// Both parts hold a product not weighed, but the run of aqua was weighed in one.
	c := productSummary(3, "aqua", Product{Twin: "token", Deviations: []DeviationEffect{{Name: "clock", Without: "aqua:without=clock"}}})
	c.Runs = append(c.Runs, c.Runs[1])
	c.Runs[2].Algorithm, c.Runs[2].Product = "bluu", &Product{Twin: "token", DeviationsNotMeasured: true}
	d := productSummary(3, "aqua", Product{Twin: "token", DeviationsNotMeasured: true})
	d.Runs = append(d.Runs, c.Runs[2])
	_, err := MergeDisjoint([]*Summary{c, d})
	if want := "merge: runs[1] (aqua 5/30s count=accepted mode=independent): part 0 was replayed with -deviations, part 1 without:"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("merged runs weighed otherwise: %v, want %q", err, want)
	}
}
