package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"ratebench/internal/numfmt"
	"ratebench/report/markup"
	"ratebench/summary"
)

// LiveFile is a live replay's result (ratebench live TARGET) that a
// results folder may hold beside summary.json; the report shows nginx's
// when present.
const LiveFile = "live.json"

// ReadLive reads dir's live.json: nil when there is none, or when it is a
// live replay through another target than nginx, which the comparison's
// report does not show.
func ReadLive(dir string) (*summary.Live, error) {
	path := filepath.Join(dir, LiveFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var which struct {
		Schema  int    `json:"schema"`
		Target  string `json:"target"`
		Product string `json:"product"` // schema 1's replays of a product other than nginx
	}
	if err := json.Unmarshal(data, &which); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if which.Product != "" {
		return nil, nil
	}
	if which.Schema != summary.LiveSchemaVersion {
		return nil, fmt.Errorf("%s: schema %d, want %d (replay it again with ratebench live)", path, which.Schema, summary.LiveSchemaVersion)
	}
	if which.Target != "nginx" && !strings.HasPrefix(which.Target, "nginx:") {
		return nil, nil
	}
	var r summary.Live
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return &r, nil
}

// LiveMarkdown writes a live replay's result as live.md holds it.
func LiveMarkdown(w io.Writer, r *summary.Live) error {
	d := &markup.Document{Title: "Live replay through " + r.Software}
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
	d.Add(markup.Heading{Level: 2, ID: "live", Text: markup.Text("Live replay through " + m.opt.Live.Software)})
	addLive(d, m.opt.Live, 3)
}

// addLive adds the blocks of a live replay's result, its subsections at
// heading level sub.
func addLive(d *markup.Document, r *summary.Live, sub int) {
	d.Add(markup.Para{Text: liveSetup(r)})
	rows := []summary.LiveAgreement{r.Model}
	rows = append(rows, r.Views...)
	if r.Intended != nil {
		rows = append(rows, *r.Intended)
	}
	rows = append(rows, r.Log)
	t := markup.Table{Head: []string{r.Target + " against", "fed", "agree", "%", r.Target + " only admits", "other only admits"},
		Right: []bool{false, false, true, true, true, true}}
	for _, a := range rows {
		t.Rows = append(t.Rows, []markup.Inline{markup.Inline{}.C(a.Against), markup.Text(a.Times), markup.Text(numfmt.Count(a.Agree)),
			markup.Text(numfmt.Agreement(a.Disagree() == 0, a.Percent())), markup.Text(numfmt.Count(a.SoftwareOnly)), markup.Text(numfmt.Count(a.OtherOnly))})
	}
	d.Add(t)
	for _, a := range rows {
		if len(a.Classes) == 0 {
			continue
		}
		d.Add(markup.Para{Text: markup.Inline{}.T(fmt.Sprintf("Why %s and ", r.Target)).C(a.Against).T(" on " + a.Times + " disagree:")})
		ct := markup.Table{Head: []string{"cause", "requests", "first", "meaning"}, Right: []bool{false, true, true, false}}
		for _, c := range a.Classes {
			ct.Rows = append(ct.Rows, []markup.Inline{markup.Text(c.Name), markup.Text(numfmt.Count(c.Count)), markup.Text(fmt.Sprint(c.First)), markup.Text(c.Meaning)})
		}
		d.Add(ct)
	}
	if c := r.DecisionClock; c != nil {
		d.Add(markup.Para{Text: markup.Textf("The clock %s decided on, reconstructed: %d connection(s); %s request(s) decided outside their send-to-answer milliseconds; %s reordered within their key; %s whose gap to their key's previous request moved off the trace's whole milliseconds.",
			r.Target, c.Connections, numfmt.Count(c.OutsideBracket), numfmt.Count(c.Reordered), numfmt.Count(c.Moved))})
	}
	if len(r.Differences) > 0 {
		d.Add(markup.Para{Text: markup.Text(fmt.Sprintf("The first requests %s and its model decide differently:", r.Target))})
		dt := markup.Table{Head: []string{"request", "key", "trace time", "decided at", r.Target, "model"}, Right: []bool{true, false, true, true, false, false}}
		for _, x := range r.Differences {
			dt.Rows = append(dt.Rows, []markup.Inline{markup.Text(fmt.Sprint(x.Request)), markup.Text(x.Key), markup.Text(fmt.Sprintf("%d ns", x.TraceNS)),
				markup.Text(fmt.Sprintf("%d ns", x.AtNS)), markup.Text(admits(x.Software)), markup.Text(admits(x.Model))})
		}
		d.Add(dt)
	}
	if r.Memory != nil {
		addLiveMemory(d, r.Memory)
	}
	if len(r.Notes) > 0 {
		var items []markup.Inline
		for _, n := range r.Notes {
			items = append(items, markup.Text(n))
		}
		d.Add(markup.Para{Text: markup.Text("Notes:")}, markup.Bullets{Items: items})
	}
	tm := r.Timing
	d.Add(markup.Heading{Level: sub, Text: markup.Text("Timing (varies from run to run)")})
	pace := fmt.Sprintf("%.1f/s sent", tm.AchievedPerS)
	if tm.RequestedPerS > 0 {
		pace = fmt.Sprintf("send rate %.1f/s achieved against %.1f/s requested", tm.AchievedPerS, tm.RequestedPerS)
	}
	d.Add(markup.Para{Text: markup.Textf("Duration %s; %s.", numfmt.Latency(tm.DurationNS), pace)})
	pt := markup.Table{Head: []string{"", "p50", "p90", "p99", "max"}, Right: []bool{false, true, true, true, true}}
	for _, p := range []struct {
		name string
		p    summary.DurationSummary
	}{{"sent late by", tm.Late}, {"latency", tm.Latency}} {
		if p.p.Samples == 0 {
			continue
		}
		pt.Rows = append(pt.Rows, []markup.Inline{markup.Text(p.name), markup.Text(numfmt.Latency(p.p.P50NS)), markup.Text(numfmt.Latency(p.p.P90NS)), markup.Text(numfmt.Latency(p.p.P99NS)), markup.Text(numfmt.Latency(p.p.MaxNS))})
	}
	d.Add(pt)
}

// liveSetup says what was replayed through what, and what it answered.
func liveSetup(r *summary.Live) markup.Inline {
	clock := "with its clock driven by the trace's times"
	if r.Clock == "real" {
		clock = "on its own clock, replayed at speed " + r.Speed
		if r.ModelRule != r.Rule {
			clock += " with the rule " + r.ModelRule
		}
	}
	if r.Clients > 1 {
		clock += fmt.Sprintf(", from %d clients at once", r.Clients)
	}
	in := markup.Inline{}.T(fmt.Sprintf("Trace: %s (%s), %s requests, %s keys. Rule %s; %s ran %s",
		r.Trace.Path, r.Trace.Format, numfmt.Count(r.Trace.Requests), numfmt.Count(int64(r.Trace.Keys)), r.Rule, r.Software, clock))
	for i, s := range r.Setup {
		if i == 0 {
			in = in.T(", configured with ")
		} else {
			in = in.T(", ")
		}
		in = in.C(s)
	}
	return in.T(", and is set beside its model ").C(r.ModelSpec).
		T(fmt.Sprintf(". It admitted %s and refused %s.", numfmt.Count(r.Admitted), numfmt.Count(r.Refused)))
}

// addLiveMemory adds what the software's keys hold beside the model's
// analytic size.
func addLiveMemory(d *markup.Document, m *summary.LiveMemory) {
	d.Add(markup.Para{Text: markup.Text("Memory: MEMORY USAGE key SAMPLES 0 after the replay (key name and object overhead included), " +
		"beside the analytic model (bytes a compact implementation keeps per client).")})
	var enc []string
	marginal := "-"
	for _, e := range m.Encodings {
		enc = append(enc, fmt.Sprintf("%s %d", e.Encoding, e.Keys))
		if e.MarginalBytesPerEntry != nil {
			if marginal == "-" {
				marginal = ""
			} else {
				marginal += ", "
			}
			marginal += fmt.Sprintf("%.1f (%s)", *e.MarginalBytesPerEntry, e.Encoding)
		}
	}
	entries, perEntry, modelEntry := "-", "-", "-"
	if m.Entries > 0 {
		entries = fmt.Sprintf("%d (member %.1f B)", m.Entries, m.MemberBytes)
		perEntry, modelEntry = fmt.Sprintf("%.1f", m.BytesPerEntry), fmt.Sprintf("%.0f", m.ModelBytesPerEntry)
	}
	d.Add(markup.Table{Head: []string{"Redis keys", "sampled", "encodings", "bytes/key", "keys/client", "bytes/client", "model bytes/client", "entries", "bytes/entry", "marginal bytes/entry", "model bytes/entry"},
		Right: []bool{true, true, false, true, true, true, true, true, true, true, true},
		Rows: [][]markup.Inline{{markup.Text(numfmt.Count(m.RedisKeys)), markup.Text(fmt.Sprint(m.SampledKeys)), markup.Text(strings.Join(enc, ", ")),
			markup.Textf("%.1f", m.BytesPerKey), markup.Text(fmt.Sprint(m.KeysPerClient)), markup.Textf("%.1f", m.BytesPerClient), markup.Textf("%.1f", m.ModelBytesPerClient),
			markup.Text(entries), markup.Text(perEntry), markup.Text(marginal), markup.Text(modelEntry)}}})
}

func admits(a bool) string {
	if a {
		return "admits"
	}
	return "refuses"
}
