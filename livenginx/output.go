package livenginx

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// WriteFiles writes dir/live.json and dir/live.md.
func (r *Result) WriteFiles(dir string) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "live.json"), append(data, '\n'), 0o644); err != nil {
		return err
	}
	var b strings.Builder
	if err := r.WriteMarkdown(&b); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "live.md"), []byte(b.String()), 0o644)
}

// WriteMarkdown writes the result as live.md holds it.
func (r *Result) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	s := r.Setup
	fmt.Fprintf(&b, "# Live replay through a real nginx\n\n")
	fmt.Fprintf(&b, "Trace `%s` (%s): %d requests, %d keys. Rule %s at speed %s, %d client connection(s): %s was configured with `rate=%s`, `burst=%d`",
		r.Trace.Path, r.Trace.Format, r.Trace.Requests, r.Trace.Keys, s.Rule, s.Speed, s.Clients, s.Nginx, s.NginxRate, s.Burst)
	switch {
	case s.NoDelay:
		b.WriteString(", `nodelay`")
	case s.Delay > 0:
		fmt.Fprintf(&b, ", `delay=%d`", s.Delay)
	}
	fmt.Fprintf(&b, ". It admitted %d and refused %d (429).\n\n", r.Admitted, r.Refused)
	b.WriteString("| nginx against | fed | agree | % | nginx only admits | other only admits |\n|---|---|---:|---:|---:|---:|\n")
	for _, a := range []Agreement{r.Model, r.ModelWall, r.Intended, r.Log} {
		fmt.Fprintf(&b, "| `%s` | %s | %d | %s | %d | %d |\n", a.Against, a.Times, a.Agree, pct(a), a.NginxOnly, a.OtherOnly)
	}
	for _, a := range []struct {
		title string
		a     Agreement
	}{{"its model on nginx's clock", r.Model}, {"its model on the trace's times", r.Intended}, {"the exact log", r.Log}} {
		if len(a.a.Classes) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\nWhy nginx and %s disagree:\n\n| cause | requests | first | meaning |\n|---|---:|---:|---|\n", a.title)
		for _, c := range a.a.Classes {
			fmt.Fprintf(&b, "| %s | %d | %d | %s |\n", c.Name, c.Count, c.First, c.Meaning)
		}
	}
	c := r.Clock
	fmt.Fprintf(&b, "\nnginx's clock: %d connection(s); %d request(s) decided outside their send-to-answer milliseconds; %d reordered within their key; %d whose gap to their key's previous request moved off the trace's whole milliseconds.\n", c.NginxConnections, c.OutsideBracket, c.Reordered, c.Moved)
	t := r.Timing
	fmt.Fprintf(&b, "\n## Timing (varies from run to run)\n\nDuration %s; send rate %.1f/s achieved against %.1f/s requested.\n\n", dur(t.DurationNS), t.AchievedPerS, t.RequestedPerS)
	b.WriteString("| | p50 | p90 | p99 | max |\n|---|---:|---:|---:|---:|\n")
	for _, p := range []struct {
		name string
		p    Percentiles
	}{{"sent late by", t.Late}, {"latency", t.Latency}} {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", p.name, dur(p.p.P50NS), dur(p.p.P90NS), dur(p.p.P99NS), dur(p.p.MaxNS))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func pct(a Agreement) string {
	if a.Disagree() == 0 {
		return "100%"
	}
	return fmt.Sprintf("%.3f%%", min(a.Percent(), 99.999))
}

func dur(ns int64) string {
	d := time.Duration(ns)
	switch {
	case d >= time.Second:
		return d.Round(time.Millisecond).String()
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond).String()
	}
	return d.Round(time.Microsecond).String()
}
