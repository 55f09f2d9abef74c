package report

import (
	"fmt"

	"ratebench/internal/numfmt"
	"ratebench/report/markup"
	"ratebench/summary"
)

// groupTables writes a group's tables: what its mode means, then its runs,
// bursts, top keys, rate error and memory, then the tables of the peer
// libraries, products and closed-loop clients it holds.
func (m *model) groupTables(d *markup.Document, g *group) {
	d.Add(markup.Para{Text: m.groupAbout(g)})
	runsTable(d, g)
	burstTables(d, g)
	m.topKeys(d, g)
	rateErrorTables(d, g)
	m.memoryTable(d, g)
	m.peerTable(d, g)
	m.productTables(d, g)
	m.clientTable(d, g)
}

// groupAbout says what the group's count policy and mode mean, and how
// many requests and keys it holds.
func (m *model) groupAbout(g *group) markup.Inline {
	var about string
	switch {
	case g.count == "all" && g.mode == "shadow":
		about = "Every request is counted by the window algorithms, admitted or not, so for them the independent and shadow modes coincide; " +
			"token, gcra, leaky and peer libraries count only what they admit, and here record the log's admissions (shadow mode)."
	case g.count == "all":
		about = "Every request is counted by the window algorithms, admitted or not, so for them the independent and shadow modes coincide; " +
			"token, gcra, leaky and peer libraries count only what they admit, and here record their own admissions."
	case g.mode == "shadow":
		about = "Shadow mode: each candidate records the log's admissions, so it shares the log's history; the figures isolate its decision rule's error. Bursts are not measured."
	case g.mode == "independent":
		about = "Independent mode: each algorithm records its own admissions, as a deployment would."
	}
	return markup.Textf("%s %s requests from %s keys.", about, numfmt.Count(g.requests()), numfmt.Count(firstKeys(g)))
}

// runsTable writes the group's decisions per algorithm.
func runsTable(d *markup.Document, g *group) {
	d.Add(markup.Heading{Level: 4, Text: markup.Text("Runs")})
	runs := markup.Table{
		Head:  []string{"algorithm", "admitted", "rejected", "disagree", "disagree rate", "over", "over rate", "under", "under rate", "log refused", "over ÷ log's refusals", "under ÷ log's admissions", "keys disagreeing", "keys over", "keys under"},
		Right: []bool{false, true, true, true, true, true, true, true, true, true, true, true, true, true, true},
	}
	for _, r := range g.runs {
		runs.Rows = append(runs.Rows, []markup.Inline{
			markup.Inline{}.C(r.Algorithm), markup.Text(numfmt.Count(r.Admitted)), markup.Text(numfmt.Count(r.Rejected)),
			markup.Text(numfmt.Count(r.Disagree)), markup.Text(numfmt.Rate(r.DisagreeRate)), markup.Text(numfmt.Count(r.Over)), markup.Text(numfmt.Rate(r.OverRate)),
			markup.Text(numfmt.Count(r.Under)), markup.Text(numfmt.Rate(r.UnderRate)),
			markup.Text(logRefusedText(r)), markup.Text(shareText(r.OverOfRefused)), markup.Text(shareText(r.UnderOfAdmitted)), markup.Text(numfmt.Count(r.KeysDisagree)), markup.Text(numfmt.Count(r.KeysOver)), markup.Text(numfmt.Count(r.KeysUnder)),
		})
	}
	d.Add(runs)
}

// burstTables writes the worst admitted bursts and the bucket bound, when
// a candidate measured them.
func burstTables(d *markup.Document, g *group) {
	hasBurst, hasBound := false, false
	for _, r := range g.candidates() {
		if r.Burst != nil || r.Bound != nil {
			hasBurst = true
		}
		hasBound = hasBound || r.Bound != nil
	}
	if !hasBurst {
		return
	}
	d.Add(markup.Heading{Level: 4, Text: markup.Text("Burst")})
	bt := markup.Table{
		Head:  []string{"algorithm", "worst burst (cost)", "÷ L", "keys over L", "where (key)", "capacity B", "over B + L·T/W"},
		Right: []bool{false, true, true, true, false, true, true},
	}
	for _, r := range g.runs {
		row := []markup.Inline{markup.Inline{}.C(r.Algorithm), markup.Text("—"), markup.Text("—"), markup.Text("—"), markup.Text("—"), markup.Text("—"), markup.Text("—")}
		if b := r.Burst; b != nil {
			row[1], row[2], row[3], row[4] = markup.Text(numfmt.Count(b.Max)), markup.Text(num(b.Ratio)), markup.Text(numfmt.Count(b.KeysOverL)), markup.Text(keyText(b.Key))
		}
		if b := r.Bound; b != nil {
			row[5], row[6] = markup.Text(numfmt.Count(b.B)), markup.Text(numfmt.Count(b.Violations))
		}
		bt.Rows = append(bt.Rows, row)
	}
	d.Add(bt)
	if hasBound {
		d.Add(markup.Para{Text: markup.Text("A bucket of capacity B admits at most B + L·T/W in any span of length T; " +
			"the last column counts the admissions at which some span ending there held more (0 but for a float library's flips).")})
	}
}

// topKeys writes the keys with the most disagreements per candidate and,
// under them, the command that replays one of them alone.
func (m *model) topKeys(d *markup.Document, g *group) {
	d.Add(markup.Heading{Level: 4, Text: markup.Text("Top keys")})
	limit := m.opt.TopKeys
	if limit == 0 {
		limit = 5
	}
	kt := markup.Table{
		Head:  []string{"algorithm", "key", "requests", "disagree", "over", "under", "burst"},
		Right: []bool{false, false, true, true, true, true, true},
	}
	for _, r := range g.candidates() {
		n := 0
		for _, k := range r.TopKeys {
			if k.Disagree <= 0 || (limit > 0 && n >= limit) {
				continue
			}
			n++
			burst := "—"
			if k.Burst != nil {
				burst = numfmt.Count(*k.Burst)
			}
			kt.Rows = append(kt.Rows, []markup.Inline{markup.Inline{}.C(r.Algorithm), markup.Text(keyText(k.Key)), markup.Text(numfmt.Count(k.Requests)),
				markup.Text(numfmt.Count(k.Disagree)), markup.Text(numfmt.Count(k.Over)), markup.Text(numfmt.Count(k.Under)), markup.Text(burst)})
		}
	}
	if len(kt.Rows) == 0 {
		d.Add(markup.Para{Text: markup.Text("No key saw a disagreement.")})
	} else {
		per := fmt.Sprintf("up to %d", limit)
		if limit < 0 {
			per = "all those the summary lists"
		}
		d.Add(markup.Para{Text: markup.Textf("The keys with the most disagreements, %s per algorithm (burst: the key's worst admitted cost in a window span).", per)}, kt)
		m.explainHint(d, g)
	}
}

// rateErrorTables writes the error of the estimate of the window's cost,
// for the runs that measured it.
func rateErrorTables(d *markup.Document, g *group) {
	var re []*summary.Run
	for _, r := range g.runs {
		if r.RateError != nil {
			re = append(re, r)
		}
	}
	if len(re) == 0 {
		return
	}
	d.Add(markup.Heading{Level: 4, Text: markup.Text("Rate error")})
	about := "The estimate of the cost in (t−W, t] minus the exact count, at each request, in cost units and as a fraction of L. " +
		"Bias is the mean signed error; the relative error is over requests whose exact count is positive; p50, p99 and max are of the absolute error."
	et := markup.Table{
		Head:  []string{"algorithm", "samples", "bias", "mean |error|", "÷ L", "mean relative", "p50 ÷ L", "p99 ÷ L", "max", "max ÷ L", "outside ±2L"},
		Right: []bool{false, true, true, true, true, true, true, true, true, true, true},
	}
	bounds := false
	for _, r := range re {
		e := r.RateError
		p50, b50 := errQuantile(e, e.P50Frac, e.P50AtLeast)
		p99, b99 := errQuantile(e, e.P99Frac, e.P99AtLeast)
		bounds = bounds || b50 || b99
		et.Rows = append(et.Rows, []markup.Inline{markup.Inline{}.C(r.Algorithm), markup.Text(numfmt.Count(e.Samples)), markup.Text(num(e.Mean)), markup.Text(num(e.MeanAbs)),
			markup.Text(num(e.MeanAbsFrac)), markup.Text(numfmt.Rate(e.MeanRel)), markup.Text(p50), markup.Text(p99), markup.Text(num(e.MaxAbs)), markup.Text(num(e.MaxAbsFrac)),
			markup.Text(numfmt.Count(e.Histogram.Below + e.Histogram.Above))})
	}
	if bounds {
		about += " A quantile beyond the histogram's range of ±2L is known only to lie between 2L and the maximum: it reads ≥ 2."
	}
	d.Add(markup.Para{Text: markup.Text(about)}, et)
}

// memoryTable writes the state each algorithm holds, once per rule when
// another count or mode gave the same figures.
func (m *model) memoryTable(d *markup.Document, g *group) {
	d.Add(markup.Heading{Level: 4, Text: markup.Text("Memory")})
	mt := markup.Table{
		Head:  []string{"algorithm", "model", "per key: peak", "per key: mean of peaks", "all keys: peak total"},
		Right: []bool{false, false, true, true, true},
	}
	notMeasured, ownLog := false, false
	for _, r := range g.runs {
		total := bytesPerKey(r.Memory.PeakTotal)
		switch {
		case r.Memory.TotalNotMeasured && r.Memory.Model == summary.MemoryModelOwnLog:
			total, ownLog = "not measured", true
		case r.Memory.TotalNotMeasured:
			total, notMeasured = "not measured", true
		}
		mt.Rows = append(mt.Rows, []markup.Inline{markup.Inline{}.C(r.Algorithm), markup.Text(r.Memory.Model), markup.Text(bytesPerKey(r.Memory.PeakPerKey)),
			markup.Text(num(r.Memory.MeanPerKey) + " B"), markup.Text(total)})
	}
	// The same figures under another count or mode are printed once.
	k := g.rule + "\x00" + textTable(mt)
	if first, ok := m.memory[k]; ok {
		d.Add(markup.Para{Text: markup.Textf("The same figures as for %s, above.", first)})
	} else {
		if m.memory == nil {
			m.memory = map[string]string{}
		}
		m.memory[k] = g.label()
		d.Add(mt)
	}
	if notMeasured {
		d.Add(markup.Para{Text: markup.Text(fmt.Sprintf("The peak total is not measured: the trace spans more than %s windows of the rule, too many to count the state of every window in bounded memory.", num(float64(summary.MaxMemoryWindows))))})
	}
	if ownLog {
		d.Add(markup.Para{Text: markup.Text("A product that keeps a log of its own (refused requests, its own times) has its peak per key measured, not its total: the total per window follows the exact log's entries only.")})
	}
}
