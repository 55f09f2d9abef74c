package report

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"ratebench/internal/numfmt"
	"ratebench/report/markup"
	"ratebench/report/plotkit"
	"ratebench/summary"
)

// The first screen answers the question before any detail, in the
// verdict's section: the verdict in a sentence (on several rules, one
// that names each rule's choice; with products, also the one closest to
// the exact log), then the answer as a picture, then what details and
// qualifies it: the policy and the flags that change it, each rule's
// verdict in full with the commands it suggests, the caveats (a rule that
// hardly binds, coarse timestamps, lines skipped, a trace put in order)
// and the products' league tables. The picture, with one rule, is a
// chart in the limiter's own terms: per algorithm, the share of the log's
// refusals it lets through and of its admissions it refuses, with its
// memory per key beside them; with several rules, a rules × algorithms
// heat map of the share of requests decided otherwise than the log
// (heatmap.go).

// caveats are what qualifies the verdict, one sentence each.
func (m *model) caveats() []markup.Inline {
	out := m.warnings()
	t := m.s.Trace
	if t.Skipped > 0 {
		out = append(out, markup.Textf("%s of the trace's records were skipped as bad (-skip-bad): every figure is of the %s requests read.",
			numfmt.Count(t.Skipped), numfmt.Count(t.Requests)))
	}
	for _, a := range t.Input {
		if a.Flag == "reorder" {
			out = append(out, markup.Textf("The trace was put in time order within %s (-reorder): requests later in the file than a later one were replayed at their own time.", a.Value))
		}
	}
	var little []string
	for _, v := range m.verdict.Rules {
		if (v.HasCaveat(summary.CaveatBindsLittle) || v.HasCaveat(summary.CaveatDoesNotBind)) && !slices.Contains(little, v.Rule) {
			little = append(little, v.Rule)
		}
	}
	switch len(little) {
	case 0:
	case 1:
		out = append(out, markup.Textf("At %s the exact log refuses fewer than 0.1%% of the requests: the rule hardly binds on this trace, and the shares of the log's refusals rest on few requests.", little[0]))
	default:
		out = append(out, markup.Textf("At %s the exact log refuses fewer than 0.1%% of the requests: those rules hardly bind on this trace.", strings.Join(little, ", ")))
	}
	return out
}

// firstScreen writes the verdict's section: the verdict in short, the
// picture, then the details.
func (m *model) firstScreen(d *markup.Document, addFig func(*plotkit.Figure, string) error) error {
	d.Add(markup.Heading{Level: 2, ID: "verdict", Text: markup.Text("Verdict")})
	vs := m.verdicts()
	var details []markup.Block // what follows the picture
	// On a coarse clock, the verdict opens on what the clock cannot tell;
	// what the recorded clock would have said follows the picture.
	if lead := m.clockLead(); lead != nil {
		d.Add(markup.Para{Text: lead})
	}
	details = append(details, markup.Para{Text: m.policyLine(m.clockContrast())})
	if len(vs) == 1 {
		v := vs[0]
		d.Add(markup.Para{Text: append(v.label.T(" "), v.lines[len(v.lines)-1]...)})
		if more := v.lines[:len(v.lines)-1]; len(more) > 0 {
			details = append(details, markup.Bullets{Items: more})
		}
	} else if len(vs) > 1 {
		d.Add(markup.Para{Text: m.shortVerdict()})
		for _, v := range vs {
			details = append(details, markup.Para{Text: v.label}, markup.Bullets{Items: v.lines})
		}
	}
	leagues := m.leagues()
	for _, l := range leagues {
		d.Add(markup.Para{Text: m.leagueLine(l.g, l.ranked)})
	}
	if err := m.answerPicture(addFig); err != nil {
		return err
	}
	d.Add(details...)
	if cs := m.caveats(); len(cs) > 0 {
		d.Add(markup.Para{Text: markup.Inline{}.B("Caveats.")}, markup.Bullets{Items: cs})
	}
	for _, l := range leagues {
		d.Add(m.leagueTable(l.g, l.ranked))
	}
	return nil
}

// answerPicture adds the first screen's picture: the heat map with
// several rules, the answer chart of the rule's first basis with one.
func (m *model) answerPicture(addFig func(*plotkit.Figure, string) error) error {
	if len(m.rules) > 1 {
		return addFig(m.heatmapFig())
	}
	if len(m.rules) == 1 {
		if bases, _ := m.decisionBases(m.rules[0]); len(bases) > 0 {
			return addFig(m.answerFig(bases[0]))
		}
	}
	return nil
}

// shortVerdict is the verdict on several bases in one sentence: which
// algorithm to choose where ("Under count accepted, in independent mode:
// choose the exact log at 2/10s and 5/10s; fixed at 20/10s."), and
// where none is, or none can be, chosen. What the bases share (a rule, a
// count policy, a mode) is said once, first.
func (m *model) shortVerdict() markup.Inline {
	var bases []*summary.RuleVerdict
	for _, rule := range m.rules {
		gs, _ := m.decisionBases(rule)
		for _, g := range gs {
			if v := m.ruleVerdict(g); v != nil {
				bases = append(bases, v)
			}
		}
	}
	if len(bases) == 0 {
		return nil
	}
	same := func(f func(*summary.RuleVerdict) string) bool {
		return !slices.ContainsFunc(bases, func(v *summary.RuleVerdict) bool { return f(v) != f(bases[0]) })
	}
	oneRule := same(func(v *summary.RuleVerdict) string { return v.Rule })
	oneCount := same(func(v *summary.RuleVerdict) string { return v.Count })
	oneMode := same(func(v *summary.RuleVerdict) string { return v.Mode })
	var shared []string
	if oneRule {
		shared = append(shared, "at "+bases[0].Rule)
	}
	if oneCount {
		shared = append(shared, "under count "+bases[0].Count)
	}
	if oneMode {
		shared = append(shared, "in "+bases[0].Mode+" mode")
	}
	// where names a basis by what varies between them, after a preposition.
	where := func(v *summary.RuleVerdict) string {
		var parts []string
		if !oneRule {
			parts = append(parts, v.Rule)
		}
		if !oneCount {
			parts = append(parts, "count "+v.Count)
		}
		if !oneMode {
			parts = append(parts, v.Mode+" mode")
		}
		return strings.Join(parts, ", ")
	}
	prep := "in"
	switch {
	case !oneRule:
		prep = "at"
	case !oneCount:
		prep = "under"
	}
	// Each outcome with the bases it is the outcome of, in order.
	type outcome struct {
		choice, none string
		at           []string
	}
	var outs []*outcome
	find := func(choice, none string) *outcome {
		for _, o := range outs {
			if o.choice == choice && o.none == none {
				return o
			}
		}
		o := &outcome{choice: choice, none: none}
		outs = append(outs, o)
		return o
	}
	for _, v := range bases {
		var o *outcome
		switch v.Outcome {
		case summary.OutcomeChoice:
			o = find(algName(v.Choice), "")
		case summary.OutcomeNone:
			none := "no algorithm is within the default tolerances of the exact log"
			if m.hasBudget() {
				none = "no algorithm meets the budget"
			}
			o = find("", none)
		case summary.OutcomeLogOnly:
			o = find("", "only the exact log was run")
		default:
			o = find("", "the trace held no requests")
		}
		o.at = append(o.at, where(v))
	}
	out := markup.Inline{}
	if len(shared) > 0 {
		lead := strings.Join(shared, ", ")
		out = out.T(strings.ToUpper(lead[:1]) + lead[1:] + ": ")
	}
	verb := "Choose "
	if len(shared) > 0 {
		verb = "choose "
	}
	chose := false
	for _, o := range outs {
		if o.choice == "" {
			continue
		}
		if chose {
			out = out.T("; ")
		} else {
			out = out.T(verb)
		}
		out = out.B(o.choice).T(" " + prep + " " + joinAnd(o.at))
		chose = true
	}
	for _, o := range outs {
		if o.none == "" {
			continue
		}
		p := prep
		switch {
		case chose:
			out = out.T("; ")
		case len(shared) == 0:
			p = strings.ToUpper(p[:1]) + p[1:]
		}
		out = out.T(p + " " + joinAnd(o.at) + ", " + o.none)
		chose = true
	}
	return out.T(".")
}

// answerFig is the chart of the first screen for one rule's decision
// basis g: per candidate, the share of the log's refusals it lets through
// and of its admissions it refuses, and beside them its memory per key;
// the cheapest first, or, where g holds a league of products, in the
// league's order, the closest to the exact log first.
func (m *model) answerFig(g *group) (*plotkit.Figure, string) {
	order, orderText := summary.Ranked(g.runs), "per algorithm from the cheapest"
	if len(league(g)) >= leagueMin {
		order, orderText = closestFirst(g.runs), "per algorithm from the closest to the exact log (the products' league order)"
	}
	var cands []*summary.Run
	for _, r := range order {
		if r.Algorithm != "log" && r.LogRefused != nil {
			cands = append(cands, r)
		}
	}
	if len(cands) == 0 || g.requests() == 0 {
		return nil, ""
	}
	var log *summary.Run
	for _, r := range g.runs {
		if r.Algorithm == "log" {
			log = r
		}
	}
	names := make([]string, len(cands))
	over, under, mem := make([]float64, len(cands)), make([]float64, len(cands)), make([]float64, len(cands))
	hi := 0.0
	for i, r := range cands {
		names[i] = r.Algorithm
		// The median over the placements, on a coarse clock; else the
		// run's own share.
		if g := r.RangeOf(summary.PolicyBound{Figure: summary.FigureOverOfRefused}.Value); g.OK {
			over[i] = 100 * plotkit.Finite(g.Median)
		}
		if g := r.RangeOf(summary.PolicyBound{Figure: summary.FigureUnderOfAdmitted}.Value); g.OK {
			under[i] = 100 * plotkit.Finite(g.Median)
		}
		mem[i] = float64(r.Memory.PeakPerKey)
		hi = math.Max(hi, math.Max(over[i], under[i]))
	}
	left := plotkit.NewPanel("", "% of the log's decisions", "")
	overBars := &plotkit.HBars{Vals: over, Offset: 0.19, Width: 0.36, Color: plotkit.OverColor}
	underBars := &plotkit.HBars{Vals: under, Offset: -0.19, Width: 0.36, Color: plotkit.UnderColor}
	overT, underT := make([]string, len(cands)), make([]string, len(cands))
	for i, r := range cands {
		overT[i], underT[i] = shareRange(summary.FigureOverOfRefused, r), shareRange(summary.FigureUnderOfAdmitted, r)
	}
	left.Add(overBars, underBars, &barLabels{vals: over, labels: overT, offset: 0.19, size: 7.5}, &barLabels{vals: under, labels: underT, offset: -0.19, size: 7.5})
	plotkit.CategoryAxis(&left.Y, names)
	room := 1.25 // for the labels beside the longest bar
	if m.s.Trace.Placements != nil {
		room = 1.6 // for a range
	}
	left.X.Min, left.X.Max = 0, math.Max(hi*room, 1)
	right := plotkit.NewPanel("", "bytes per key (peak)", "")
	memBars := &plotkit.HBars{Vals: mem, Width: 0.6, Color: memoryColor}
	memText := make([]string, len(cands))
	for i, r := range cands {
		memText[i] = bytesPerKey(r.Memory.PeakPerKey)
	}
	right.Add(memBars, &barLabels{vals: mem, labels: memText, size: 8.5})
	plotkit.CategoryAxis(&right.Y, names)
	memHi := 0.0
	for _, v := range mem {
		memHi = math.Max(memHi, v)
	}
	if log != nil {
		memHi = math.Max(memHi, float64(log.Memory.PeakPerKey))
	}
	right.X.Min, right.X.Max = 0, math.Max(memHi*1.25, 1)
	right.X.Tick.Marker = plot.ConstantTicks([]plot.Tick{{Value: 0, Label: "0"}}) // each bar prints its value
	blank := make([]plot.Tick, len(names))                                        // the names are the left panel's
	for i := range blank {
		blank[i] = plot.Tick{Value: float64(i)}
	}
	right.Y.Tick.Marker = plot.ConstantTicks(blank)
	caption := markup.Textf("At %s (count %s, %s mode, %s requests), %s: the share of the requests the exact log refuses that it lets through, and of those the log admits that it refuses; on the right, the most one key held.",
		g.rule, g.count, g.mode, numfmt.Count(g.requests()), orderText)
	if lr := cands[0].LogRefused; lr != nil && *lr == 0 {
		caption = caption.T(" The log refuses no request here, so there is no refusal to let through.")
	}
	if log != nil {
		caption = caption.Tf(" The exact log needs %s per key.", bytesPerKey(log.Memory.PeakPerKey))
	}
	if pl := m.s.Trace.Placements; pl != nil {
		caption = caption.Tf(" Each bar is the median over the %d placements of the requests inside their %s, its label the range where they differ.", pl.Count, m.s.Trace.Resolution())
	}
	h := vg.Length(1.4)*vg.Inch + vg.Length(len(cands))*0.42*vg.Inch
	return &plotkit.Figure{
		Name:    "answer",
		Title:   fmt.Sprintf("What each algorithm gives up, in the log's own terms\nrule %s, count %s, mode %s", g.rule, g.count, g.mode),
		Alt:     "per algorithm, the share of the log's refusals let through and of its admissions refused, and memory per key, " + g.title(),
		Caption: caption,
		Panels:  [][]*plot.Plot{{left, right}},
		Legend: []plotkit.LegendEntry{
			{Name: "let through: of the log's refusals", Thumbs: []plot.Thumbnailer{&plotkit.HBars{Color: plotkit.OverColor}}},
			{Name: "refused: of the log's admissions", Thumbs: []plot.Thumbnailer{&plotkit.HBars{Color: plotkit.UnderColor}}},
			{Name: "memory per key", Thumbs: []plot.Thumbnailer{&plotkit.HBars{Color: memoryColor}}},
		},
		W: figWidth, H: max(h, 3*vg.Inch),
	}, ""
}

// memoryColor is the colour of memory bars.
var memoryColor = color.RGBA{0x59, 0xa1, 0x4f, 0xff}

// barLabels writes a label at the end of each horizontal bar (HBars'
// layout: the first on top).
type barLabels struct {
	vals   []float64
	labels []string
	offset float64 // in category units, as HBars.Offset
	size   vg.Length
	// zeros labels the bars of no length too (those of HBars are marked
	// "0" by it).
	zeros bool
}

// valueLabels labels each bar with its value, two decimals.
func valueLabels(vals []float64) *barLabels {
	labels := make([]string, len(vals))
	for i, v := range vals {
		labels[i] = strconv.FormatFloat(v, 'f', 2, 64)
	}
	return &barLabels{vals: vals, labels: labels, size: 8.5, zeros: true}
}

func (b *barLabels) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	sty := plotkit.TextStyle(max(b.size, 7))
	sty.YAlign = draw.YCenter
	n := len(b.vals)
	for i, v := range b.vals {
		if !(v > 0) && !b.zeros {
			continue // HBars marks a zero bar "0" itself
		}
		x := math.Min(math.Max(v, p.X.Min), p.X.Max)
		c.FillText(sty, vg.Point{X: trX(x) + vg.Points(3), Y: trY(float64(n-1-i) + b.offset)}, b.labels[i])
	}
}
