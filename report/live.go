package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"ratebench/summary"
)

// LiveFile is the live replay's result (ratebench live nginx) that a
// results folder may hold beside summary.json; the report shows it when
// present.
const LiveFile = "live.json"

// ReadLive reads dir's live.json, nil when there is none.
func ReadLive(dir string) (*summary.LiveNginx, error) {
	data, err := os.ReadFile(filepath.Join(dir, LiveFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
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
	d := &document{title: "Live replay through a real nginx"}
	addLive(d, r, 2)
	_, err := w.Write(d.markdown())
	return err
}

// liveSection adds, at the end of the report, the live replay through a
// real nginx when the results folder holds one.
func (m *model) liveSection(d *document) {
	if m.opt.Live == nil {
		return
	}
	d.add(heading{2, "live-nginx", txt("Live replay through a real nginx")})
	addLive(d, m.opt.Live, 3)
}

// addLive adds the blocks of a live replay's result, its subsections at
// heading level sub.
func addLive(d *document, r *summary.LiveNginx, sub int) {
	s := r.Setup
	cfg := inline{}.T(fmt.Sprintf("Trace %s (%s): %s requests, %s keys. Rule %s at speed %s, %d client connection(s): %s was configured with ",
		r.Trace.Path, r.Trace.Format, count(r.Trace.Requests), count(int64(r.Trace.Keys)), s.Rule, s.Speed, s.Clients, s.Nginx)).
		C("rate=" + s.NginxRate).T(", ").C(fmt.Sprintf("burst=%d", s.Burst))
	switch {
	case s.NoDelay:
		cfg = cfg.T(", ").C("nodelay")
	case s.Delay > 0:
		cfg = cfg.T(", ").C(fmt.Sprintf("delay=%d", s.Delay))
	}
	d.add(para{cfg.T(fmt.Sprintf(". It admitted %s and refused %s (429).", count(r.Admitted), count(r.Refused)))})
	t := table{head: []string{"nginx against", "fed", "agree", "%", "nginx only admits", "other only admits"},
		right: []bool{false, false, true, true, true, true}}
	for _, a := range []summary.LiveAgreement{r.Model, r.ModelWall, r.Intended, r.Log} {
		t.rows = append(t.rows, []inline{inline{}.C(a.Against), txt(a.Times), txt(count(a.Agree)), txt(livePct(a)),
			txt(count(a.NginxOnly)), txt(count(a.OtherOnly))})
	}
	d.add(t)
	for _, a := range []struct {
		title string
		a     summary.LiveAgreement
	}{{"its model on nginx's clock", r.Model}, {"its model on the trace's times", r.Intended}, {"the exact log", r.Log}} {
		if len(a.a.Classes) == 0 {
			continue
		}
		d.add(para{txt("Why nginx and " + a.title + " disagree:")})
		ct := table{head: []string{"cause", "requests", "first", "meaning"}, right: []bool{false, true, true, false}}
		for _, c := range a.a.Classes {
			ct.rows = append(ct.rows, []inline{txt(c.Name), txt(count(c.Count)), txt(fmt.Sprint(c.First)), txt(c.Meaning)})
		}
		d.add(ct)
	}
	c := r.Clock
	d.add(para{txtf("nginx's clock: %d connection(s); %s request(s) decided outside their send-to-answer milliseconds; %s reordered within their key; %s whose gap to their key's previous request moved off the trace's whole milliseconds.",
		c.NginxConnections, count(c.OutsideBracket), count(c.Reordered), count(c.Moved))})
	tm := r.Timing
	d.add(heading{sub, "", txt("Timing (varies from run to run)")})
	d.add(para{txtf("Duration %s; send rate %.1f/s achieved against %.1f/s requested.", liveDur(tm.DurationNS), tm.AchievedPerS, tm.RequestedPerS)})
	pt := table{head: []string{"", "p50", "p90", "p99", "max"}, right: []bool{false, true, true, true, true}}
	for _, p := range []struct {
		name string
		p    summary.DurationSummary
	}{{"sent late by", tm.Late}, {"latency", tm.Latency}} {
		pt.rows = append(pt.rows, []inline{txt(p.name), txt(liveDur(p.p.P50NS)), txt(liveDur(p.p.P90NS)), txt(liveDur(p.p.P99NS)), txt(liveDur(p.p.MaxNS))})
	}
	d.add(pt)
}

// livePct is an agreement in percent, 100% only when exact.
func livePct(a summary.LiveAgreement) string {
	if a.Disagree() == 0 {
		return "100%"
	}
	return fmt.Sprintf("%.3f%%", min(a.Percent(), 99.999))
}

// liveDur rounds a duration to what its size makes readable.
func liveDur(ns int64) string {
	d := time.Duration(ns)
	switch {
	case d >= time.Second:
		return d.Round(time.Millisecond).String()
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond).String()
	}
	return d.Round(time.Microsecond).String()
}
