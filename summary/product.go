package summary

import (
	"fmt"
	"strings"
)

// Product is what a product's run adds (a deployed limiter, such as nginx's
// limit_req, modelled from its source as a textbook algorithm, its twin,
// plus deviations). The harness replays, beside the product and in the same
// mode, its twin and, when asked to weigh the deviations (compare
// -deviations), the product with each deviation turned off in turn, and
// compares their decisions request by request with the twin's: what a
// deviation explains of the product's disagreement with its twin is what
// that disagreement loses when the deviation alone is turned off.
type Product struct {
	// Twin is the spec of the textbook algorithm.
	Twin string `json:"twin"`
	// TwinVsLog is the twin's disagreement with the log (over: the twin
	// admitted, the log refused).
	TwinVsLog Disagreement `json:"twin_vs_log"`
	// VsTwin is the product's disagreement with its twin (over: the
	// product admitted, the twin refused).
	VsTwin     Disagreement      `json:"vs_twin"`
	Deviations []DeviationEffect `json:"deviations"`
	// DeviationsNotMeasured says that the product has deviations that were
	// not weighed (a compare without -deviations; schema 1.9): Deviations
	// is then empty. Absent where they were, each listed, or where the
	// product has none on (every one turned off by its spec,
	// PRODUCT:without=NAME).
	DeviationsNotMeasured bool `json:"deviations_not_measured,omitempty"`
}

// notWeighed is the reason a product's figures give no deviation's share,
// for the merge's and the validation's messages.
const notWeighed = "its deviations are weighed only by compare -deviations"

// deviationsNotMeasured tells whether a product of s has deviations that
// were not weighed (Product.DeviationsNotMeasured).
func (s *Summary) deviationsNotMeasured() bool {
	for i := range s.Runs {
		if p := s.Runs[i].Product; p != nil && p.DeviationsNotMeasured {
			return true
		}
	}
	return false
}

// weighedOtherwise is the error of a merge whose part differs from part 0
// in weighing the products' deviations, which part 0 did not if
// notMeasured0.
func weighedOtherwise(part int, notMeasured0 bool) error {
	with := map[bool]string{false: "with", true: "without"}
	return fmt.Errorf("part 0 was replayed %s -deviations, part %d %s: the products' deviations are weighed in every part or in none, so merge the parts of one replay",
		with[notMeasured0], part, with[!notMeasured0])
}

// DeviationEffect is one deviation of a product, and the product's
// decisions with that deviation alone turned off.
type DeviationEffect struct {
	Name  string `json:"name"`
	About string `json:"about"`
	// Without is the spec of the product with the deviation off.
	Without string `json:"without"`
	// VsLog and VsTwin are that product's disagreements with the log and
	// with the twin.
	VsLog  Disagreement `json:"vs_log"`
	VsTwin Disagreement `json:"vs_twin"`
	// Share is the part of the product's disagreement with its twin that
	// turning the deviation off removes: (D - D')/D, D and D' the
	// disagreements with the twin with the deviation on and off; 0 when
	// the product agrees with its twin. Deviations interact, so the shares
	// need not add up to 1, and one may be negative (turning it off alone
	// makes the product stray further).
	Share float64 `json:"share"`
}

// SetShares computes every deviation's Share from the counts.
func (p *Product) SetShares() {
	d := p.VsTwin.Total()
	for i := range p.Deviations {
		e := &p.Deviations[i]
		e.Share = 0
		if d > 0 {
			e.Share = float64(d-e.VsTwin.Total()) / float64(d)
		}
	}
}

// merge adds the parts' disagreements, for the same twin and
// deviations, and draws the shares again.
func (p *Product) merge(o *Product, m *merging) (*Product, error) {
	if p == nil {
		c := *o
		c.Deviations = append([]DeviationEffect(nil), o.Deviations...)
		return &c, nil
	}
	if p.DeviationsNotMeasured != o.DeviationsNotMeasured {
		return nil, weighedOtherwise(m.part, p.DeviationsNotMeasured)
	}
	if p.Twin != o.Twin || len(p.Deviations) != len(o.Deviations) {
		return nil, fmt.Errorf("the product's twin or deviations differ between parts")
	}
	m.sums.addDisagreement(m.field("twin_vs_log"), &p.TwinVsLog, o.TwinVsLog)
	m.sums.addDisagreement(m.field("vs_twin"), &p.VsTwin, o.VsTwin)
	for i := range p.Deviations {
		if p.Deviations[i].Without != o.Deviations[i].Without {
			return nil, fmt.Errorf("the product's deviations differ between parts")
		}
		field := m.field(fmt.Sprintf("deviations[%d]", i))
		m.sums.addDisagreement(field+".vs_log", &p.Deviations[i].VsLog, o.Deviations[i].VsLog)
		m.sums.addDisagreement(field+".vs_twin", &p.Deviations[i].VsTwin, o.Deviations[i].VsTwin)
	}
	p.SetShares()
	return p, nil
}

// validate checks a product's analysis: disagreements among the run's
// requests, shares that are numbers, deviations listed if and only if they
// were measured. A product has at least one deviation, so one whose
// deviations were measured and lists none must have turned every one off
// (its spec has ":without=").
func (p *Product) validate(v *validator, path string, in *runIn) {
	requests := in.run.Requests
	if p.Twin == "" {
		v.fail(path+".twin", "missing")
	}
	v.disagreement(path+".twin_vs_log", p.TwinVsLog, requests)
	v.disagreement(path+".vs_twin", p.VsTwin, requests)
	switch {
	case p.DeviationsNotMeasured && len(p.Deviations) > 0:
		v.fail(path+".deviations", "%d listed, but deviations_not_measured says none was measured", len(p.Deviations))
	case !p.DeviationsNotMeasured && len(p.Deviations) == 0 && !strings.Contains(in.run.Algorithm, ":without="):
		v.fail(path+".deviations", "none listed for %s, which turns none off: want its deviations, or deviations_not_measured (%s)", in.run.Algorithm, notWeighed)
	}
	for i := range p.Deviations {
		d := &p.Deviations[i]
		dp := fmt.Sprintf("%s.deviations[%d]", path, i)
		v.disagreement(dp+".vs_log", d.VsLog, requests)
		v.disagreement(dp+".vs_twin", d.VsTwin, requests)
		v.finite(dp+".share", d.Share, false)
	}
}
