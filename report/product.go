package report

import (
	"fmt"
	"strings"

	"ratebench/internal/numfmt"
	"ratebench/report/markup"
	"ratebench/summary"
)

// productTables adds, for each product of a group (a deployed limiter
// modelled from its source), how it decides against the log and against
// its textbook twin, and how much of its disagreement with the twin each of
// its deviations explains, or, where they were not weighed, how to weigh
// them.
func (m *model) productTables(d *markup.Document, g *group) {
	first := true
	for _, r := range g.runs {
		p := r.Product
		if p == nil {
			continue
		}
		if first {
			d.Add(markup.Heading{Level: 4, Text: markup.Text("Products against their textbook twins")})
			intro := markup.Text("A product is modelled from its source as a textbook algorithm, its ").L("twin", readingID).T(", plus deviations. ")
			if deviationsNotMeasured(g) {
				d.Add(markup.Para{Text: intro.T("Its twin is replayed beside it, in the same mode.")})
				d.Add(markup.Para{Text: markup.Text("Each deviation's share of a product's disagreement with its twin: rerun with ").C("-deviations").
					T(", which replays the product once more per deviation, turned off alone.")})
			} else {
				d.Add(markup.Para{Text: intro.T("Its twin and the product with each deviation alone turned off are replayed beside it, in the same mode; " +
					"a deviation's share is the part of the product's disagreement with its twin that turning it off removes. " +
					"Deviations interact, so the shares need not add up to 100%.")})
			}
			first = false
		}
		n := r.Requests
		d.Add(markup.Para{Text: productSentence(r, p)})
		t := markup.Table{
			Head:  []string{"replayed", "disagree with the log", "over", "under", "otherwise than the twin", "over", "under", "share"},
			Right: []bool{false, true, true, true, true, true, true, true},
		}
		if p.DeviationsNotMeasured { // no share to give
			t.Head, t.Right = t.Head[:7], t.Right[:7]
		}
		t.Rows = append(t.Rows,
			[]markup.Inline{markup.Inline{}.C(r.Algorithm), markup.Text(numfmt.PercentOf(r.Over+r.Under, n)), markup.Text(numfmt.Count(r.Over)), markup.Text(numfmt.Count(r.Under)),
				markup.Text(numfmt.Count(p.VsTwin.Total())), markup.Text(numfmt.Count(p.VsTwin.Over)), markup.Text(numfmt.Count(p.VsTwin.Under)), markup.Text("")},
			[]markup.Inline{markup.Inline{}.C(p.Twin).T(" (twin)"), markup.Text(numfmt.PercentOf(p.TwinVsLog.Total(), n)), markup.Text(numfmt.Count(p.TwinVsLog.Over)), markup.Text(numfmt.Count(p.TwinVsLog.Under)),
				markup.Text("0"), markup.Text("0"), markup.Text("0"), markup.Text("")})
		for i := range t.Rows {
			t.Rows[i] = t.Rows[i][:len(t.Head)]
		}
		for _, e := range p.Deviations {
			share := "—"
			if p.VsTwin.Total() > 0 {
				share = numfmt.SignedPercent(e.Share)
			}
			t.Rows = append(t.Rows, []markup.Inline{markup.Inline{}.T("without " + e.Name + ": ").C(e.Without),
				markup.Text(numfmt.PercentOf(e.VsLog.Total(), n)), markup.Text(numfmt.Count(e.VsLog.Over)), markup.Text(numfmt.Count(e.VsLog.Under)),
				markup.Text(numfmt.Count(e.VsTwin.Total())), markup.Text(numfmt.Count(e.VsTwin.Over)), markup.Text(numfmt.Count(e.VsTwin.Under)), markup.Text(share)})
		}
		d.Add(t)
		var devs []markup.Inline
		for _, e := range p.Deviations {
			devs = append(devs, markup.Inline{}.C(e.Name).T(": "+e.About+"."))
		}
		if len(devs) > 0 {
			d.Add(markup.Bullets{Items: devs})
		}
	}
}

// deviationsNotMeasured tells whether a product of g has deviations that
// were not weighed (a compare without -deviations).
func deviationsNotMeasured(g *group) bool {
	for _, r := range g.runs {
		if r.Product != nil && r.Product.DeviationsNotMeasured {
			return true
		}
	}
	return false
}

// productSentence says in a line how far the product is from its twin and
// which deviation explains most of it, where they were weighed.
func productSentence(r *summary.Run, p *summary.Product) markup.Inline {
	dt := p.VsTwin.Total()
	s := markup.Inline{}.C(r.Algorithm).T(" runs ").C(p.Twin)
	if dt == 0 {
		return s.T(" with other arithmetic; on this trace it decided every request as its twin did (none of its deviations showed).")
	}
	s = s.T(fmt.Sprintf(" with other arithmetic: it decided %s requests (%s) otherwise than its twin, %s admitted that the twin refused and %s refused that it admitted",
		numfmt.Count(dt), numfmt.PercentOf(dt, r.Requests), numfmt.Count(p.VsTwin.Over), numfmt.Count(p.VsTwin.Under)))
	if p.DeviationsNotMeasured {
		return s.T(".")
	}
	best := -1
	for i, e := range p.Deviations {
		if e.Share > 0 && (best < 0 || e.Share > p.Deviations[best].Share) {
			best = i
		}
	}
	if best < 0 {
		return s.T("; no deviation turned off alone brings it closer.")
	}
	e := p.Deviations[best]
	return s.T("; turning off its ").C(e.Name).T(fmt.Sprintf(" alone removes %s of those.", numfmt.SignedPercent(e.Share)))
}

// ProductLine says in one line of plain text how a product's run decided
// against its twin and what each deviation explains (or how to weigh
// them), for the terminal; "" for a run without a product analysis.
func ProductLine(r *summary.Run) string {
	p := r.Product
	if p == nil {
		return ""
	}
	dt := p.VsTwin.Total()
	s := fmt.Sprintf("%s against its twin %s: %s requests (%s) decided otherwise", r.Algorithm, p.Twin, numfmt.Count(dt), numfmt.PercentOf(dt, r.Requests))
	switch {
	case dt == 0:
		return s
	case p.DeviationsNotMeasured:
		return s + "; each deviation's share: rerun with -deviations"
	case len(p.Deviations) == 0:
		return s
	}
	var parts []string
	for _, e := range p.Deviations {
		parts = append(parts, e.Name+" "+numfmt.SignedPercent(e.Share))
	}
	return s + "; each deviation's share: " + strings.Join(parts, ", ")
}
