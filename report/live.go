package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"ratebench/internal/numfmt"
	"ratebench/report/markup"
	"ratebench/summary"
)

// LiveFile is the live replay's result (ratebench live nginx) that a
// results folder may hold beside summary.json; the report shows it when
// present.
const LiveFile = "live.json"

// ReadLive reads dir's live.json, nil when there is none or when it is
// a live replay through another product's software (ratebench live
// PRODUCT), which the comparison's report does not show.
func ReadLive(dir string) (*summary.LiveNginx, error) {
	data, err := os.ReadFile(filepath.Join(dir, LiveFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var which struct {
		Product string `json:"product"`
	}
	if json.Unmarshal(data, &which) == nil && which.Product != "" {
		return nil, nil // a live replay through another product's software: not nginx's
	}
	var r summary.LiveNginx
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s: %v", filepath.Join(dir, LiveFile), err)
	}
	if r.Schema != summary.LiveSchemaVersion {
		return nil, fmt.Errorf("%s: schema %d, want %d", filepath.Join(dir, LiveFile), r.Schema, summary.LiveSchemaVersion)
	}
	return &r, nil
}

// LiveMarkdown writes a live replay's result as live.md holds it.
func LiveMarkdown(w io.Writer, r *summary.LiveNginx) error {
	d := &markup.Document{Title: "Live replay through a real nginx"}
	addLive(d, r, 2)
	_, err := w.Write(d.Markdown())
	return err
}

// liveSection adds, at the end of the report, the live replay through a
// real nginx when the results folder holds one.
func (m *model) liveSection(d *markup.Document) {
	if m.opt.Live == nil {
		return
	}
	d.Add(markup.Heading{Level: 2, ID: "live-nginx", Text: markup.Text("Live replay through a real nginx")})
	addLive(d, m.opt.Live, 3)
}

// addLive adds the blocks of a live replay's result, its subsections at
// heading level sub.
func addLive(d *markup.Document, r *summary.LiveNginx, sub int) {
	s := r.Setup
	cfg := markup.Inline{}.T(fmt.Sprintf("Trace %s (%s): %s requests, %s keys. Rule %s at speed %s, %d client connection(s): %s was configured with ",
		r.Trace.Path, r.Trace.Format, numfmt.Count(r.Trace.Requests), numfmt.Count(int64(r.Trace.Keys)), s.Rule, s.Speed, s.Clients, s.Nginx)).
		C("rate=" + s.NginxRate).T(", ").C(fmt.Sprintf("burst=%d", s.Burst))
	switch {
	case s.NoDelay:
		cfg = cfg.T(", ").C("nodelay")
	case s.Delay > 0:
		cfg = cfg.T(", ").C(fmt.Sprintf("delay=%d", s.Delay))
	}
	d.Add(markup.Para{Text: cfg.T(fmt.Sprintf(". It admitted %s and refused %s (429).", numfmt.Count(r.Admitted), numfmt.Count(r.Refused)))})
	t := markup.Table{Head: []string{"nginx against", "fed", "agree", "%", "nginx only admits", "other only admits"},
		Right: []bool{false, false, true, true, true, true}}
	for _, a := range []summary.LiveAgreement{r.Model, r.ModelWall, r.Intended, r.Log} {
		t.Rows = append(t.Rows, []markup.Inline{markup.Inline{}.C(a.Against), markup.Text(a.Times), markup.Text(numfmt.Count(a.Agree)), markup.Text(livePct(a)),
			markup.Text(numfmt.Count(a.NginxOnly)), markup.Text(numfmt.Count(a.OtherOnly))})
	}
	d.Add(t)
	for _, a := range []struct {
		title string
		a     summary.LiveAgreement
	}{{"its model on nginx's clock", r.Model}, {"its model on the trace's times", r.Intended}, {"the exact log", r.Log}} {
		if len(a.a.Classes) == 0 {
			continue
		}
		d.Add(markup.Para{Text: markup.Text("Why nginx and " + a.title + " disagree:")})
		ct := markup.Table{Head: []string{"cause", "requests", "first", "meaning"}, Right: []bool{false, true, true, false}}
		for _, c := range a.a.Classes {
			ct.Rows = append(ct.Rows, []markup.Inline{markup.Text(c.Name), markup.Text(numfmt.Count(c.Count)), markup.Text(fmt.Sprint(c.First)), markup.Text(c.Meaning)})
		}
		d.Add(ct)
	}
	c := r.Clock
	d.Add(markup.Para{Text: markup.Textf("nginx's clock: %d connection(s); %s request(s) decided outside their send-to-answer milliseconds; %s reordered within their key; %s whose gap to their key's previous request moved off the trace's whole milliseconds.",
		c.NginxConnections, numfmt.Count(c.OutsideBracket), numfmt.Count(c.Reordered), numfmt.Count(c.Moved))})
	tm := r.Timing
	d.Add(markup.Heading{Level: sub, Text: markup.Text("Timing (varies from run to run)")})
	d.Add(markup.Para{Text: markup.Textf("Duration %s; send rate %.1f/s achieved against %.1f/s requested.", numfmt.Latency(tm.DurationNS), tm.AchievedPerS, tm.RequestedPerS)})
	pt := markup.Table{Head: []string{"", "p50", "p90", "p99", "max"}, Right: []bool{false, true, true, true, true}}
	for _, p := range []struct {
		name string
		p    summary.DurationSummary
	}{{"sent late by", tm.Late}, {"latency", tm.Latency}} {
		pt.Rows = append(pt.Rows, []markup.Inline{markup.Text(p.name), markup.Text(numfmt.Latency(p.p.P50NS)), markup.Text(numfmt.Latency(p.p.P90NS)), markup.Text(numfmt.Latency(p.p.P99NS)), markup.Text(numfmt.Latency(p.p.MaxNS))})
	}
	d.Add(pt)
}

// livePct is an agreement in percent, 100% only when exact.
func livePct(a summary.LiveAgreement) string {
	return numfmt.Agreement(a.Disagree() == 0, a.Percent())
}

// LiveProductMarkdown writes a live replay through a product's real
// software as live.md holds it.
func LiveProductMarkdown(w io.Writer, r *summary.LiveProduct) error {
	d := &markup.Document{Title: "Live replay through " + r.Software}
	clock := "with its clock driven by the trace's times"
	if r.Clock == "real" {
		clock = "on its own clock, replayed at speed " + r.Speed + " with the rule " + r.ModelRule
	}
	d.Add(markup.Para{Text: markup.Inline{}.T(fmt.Sprintf("Trace: %s (%s), %s requests, %s keys. Rule %s; %s ran %s, and is set beside its model ",
		r.Trace.Path, r.Trace.Format, numfmt.Count(r.Trace.Requests), numfmt.Count(int64(r.Trace.Keys)), r.Rule, r.Software, clock)).
		C(r.ModelSpec).T(fmt.Sprintf(". It admitted %s and refused %s.", numfmt.Count(r.Admitted), numfmt.Count(r.Refused)))})
	t := markup.Table{Head: []string{r.Product + " against", "fed", "agree", "%", r.Product + " only admits", "other only admits"},
		Right: []bool{false, false, true, true, true, true}}
	rows := []summary.ProductAgreement{r.Model}
	if r.Intended != nil {
		rows = append(rows, *r.Intended)
	}
	rows = append(rows, r.Log)
	for _, a := range rows {
		t.Rows = append(t.Rows, []markup.Inline{markup.Inline{}.C(a.Against), markup.Text(a.Times), markup.Text(numfmt.Count(a.Agree)),
			markup.Text(numfmt.Agreement(a.Disagree() == 0, a.Percent())), markup.Text(numfmt.Count(a.SoftwareOnly)), markup.Text(numfmt.Count(a.OtherOnly))})
	}
	d.Add(t)
	for _, a := range rows {
		if len(a.Classes) == 0 {
			continue
		}
		d.Add(markup.Para{Text: markup.Inline{}.T(fmt.Sprintf("Why %s and ", r.Product)).C(a.Against).T(" on " + a.Times + " disagree:")})
		ct := markup.Table{Head: []string{"cause", "requests", "first", "meaning"}, Right: []bool{false, true, true, false}}
		for _, c := range a.Classes {
			ct.Rows = append(ct.Rows, []markup.Inline{markup.Text(c.Name), markup.Text(numfmt.Count(c.Count)), markup.Text(fmt.Sprint(c.First)), markup.Text(c.Meaning)})
		}
		d.Add(ct)
	}
	if len(r.Differences) > 0 {
		d.Add(markup.Para{Text: markup.Text(fmt.Sprintf("The first requests %s and its model decide differently:", r.Product))})
		dt := markup.Table{Head: []string{"request", "key", "trace time", "decided at", r.Product, "model"}, Right: []bool{true, false, true, true, false, false}}
		for _, x := range r.Differences {
			dt.Rows = append(dt.Rows, []markup.Inline{markup.Text(fmt.Sprint(x.Request)), markup.Text(x.Key), markup.Text(fmt.Sprintf("%d ns", x.TraceNS)),
				markup.Text(fmt.Sprintf("%d ns", x.AtNS)), markup.Text(admits(x.Software)), markup.Text(admits(x.Model))})
		}
		d.Add(dt)
	}
	_, err := w.Write(d.Markdown())
	return err
}

func admits(a bool) string {
	if a {
		return "admits"
	}
	return "refuses"
}
