package compare

import (
	"ratebench/algorithms"

	"ratebench/summary"
)

// productLink is what a product's run keeps to compare it with its twin
// and weigh its deviations: its twin's run and, when the deviations are
// measured (Config.Deviations), for each deviation the run of the product
// with that deviation alone off (companions the group replays beside it,
// in the same mode, that the summary does not list), and the requests each
// decided otherwise than the twin.
type productLink struct {
	run     *candidate // the product's
	twin    *candidate
	vsTwin  summary.Disagreement
	devs    []algorithms.Deviation
	without []*candidate
	devTwin []summary.Disagreement // without[i] against the twin
	// notMeasured: the product has deviations on, and none was replayed
	// off (no Config.Deviations).
	notMeasured bool
}

// tally counts a decision against the twin's.
func tally(d *summary.Disagreement, admit, twin bool) {
	switch {
	case admit && !twin:
		d.Over++
	case !admit && twin:
		d.Under++
	}
}

func (*productLink) place(*algorithms.Block) {}
func (*productLink) grow(int)                {}
func (*productLink) release(int32)           {}

// settle compares the last request's decisions with the twin's.
func (p *productLink) settle() {
	tw := p.twin.admit
	tally(&p.vsTwin, p.run.admit, tw)
	for i, w := range p.without {
		tally(&p.devTwin[i], w.admit, tw)
	}
}

func (p *productLink) close(r *summary.Run, _ *closing) { r.Product = p.summary() }

// summary returns the product's analysis from the counts.
func (p *productLink) summary() *summary.Product {
	out := &summary.Product{Twin: p.twin.lim.Name(), VsTwin: p.vsTwin,
		TwinVsLog:             summary.Disagreement{Over: p.twin.acc.over, Under: p.twin.acc.under},
		DeviationsNotMeasured: p.notMeasured}
	for i, d := range p.devs {
		w := p.without[i]
		out.Deviations = append(out.Deviations, summary.DeviationEffect{Name: d.Name, About: d.About,
			Without: w.lim.Name(), VsTwin: p.devTwin[i],
			VsLog: summary.Disagreement{Over: w.acc.over, Under: w.acc.under}})
	}
	out.SetShares()
	return out
}

// addCompanions adds, for every candidate of mode m that is a product with
// a twin, the twin's run (unless one is listed) and, if deviations is set
// (Config.Deviations), the product's with each deviation off, built by
// newCand; listed are the group's candidates of mode m as configured. A
// layered rule has no companions: a product's twin and deviations are
// those of one rule. A twin that is the exact log shares the reference's
// where it can (refTwin), unless ownTwin.
func (g *group) addCompanions(listed []*candidate, deviations, ownTwin bool, newCand func(algorithms.Limiter) *candidate) error {
	if len(g.layers) > 1 {
		return nil
	}
	byName := map[string]*candidate{}
	for _, c := range listed {
		byName[c.lim.Name()] = c
	}
	companion := func(spec string) (c *candidate, err error) {
		if c, ok := byName[spec]; ok {
			return c, nil
		}
		var lim algorithms.Limiter
		if t := g.newRefTwin(ownTwin); spec == "log" && t != nil {
			lim = t
		} else if lim, err = algorithms.New(spec, g.rule); err != nil {
			return nil, err
		}
		c = newCand(lim)
		c.companion = true
		byName[spec] = c
		g.cands = append(g.cands, c)
		return c, nil
	}
	for _, c := range listed {
		p, ok := c.lim.(algorithms.Product)
		if !ok || p.Twin() == "" {
			continue
		}
		twin, err := companion(p.Twin())
		if err != nil {
			return err
		}
		link := &productLink{run: c, twin: twin}
		for _, d := range p.Deviations() {
			if p.Off(d.Name) {
				continue
			}
			if !deviations {
				link.notMeasured = true
				continue
			}
			w, err := companion(p.Name() + ":without=" + d.Name)
			if err != nil {
				return err
			}
			link.devs = append(link.devs, d)
			link.without = append(link.without, w)
		}
		link.devTwin = make([]summary.Disagreement, len(link.devs))
		c.acc.addMetric(link)
	}
	return nil
}
