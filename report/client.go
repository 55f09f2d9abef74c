package report

import (
	"fmt"
	"strings"

	"ratebench/internal/numfmt"
	"ratebench/report/markup"
	"ratebench/summary"
)

// clientTable adds what a group's runs mean to the clients: the truthful
// Retry-After at each rejection, what whole seconds change, how long a key
// stays refused once it is, and a queue's delays.
func (m *model) clientTable(d *markup.Document, g *group) {
	t := markup.Table{
		Head: []string{"algorithm", "Retry-After p50", "p99", "max", "never", "whole s: mean extra wait", "not whole s",
			"recovery p50", "p99", "max", "still refused", "until left queue p50", "p99", "max"},
		Right: []bool{false, true, true, true, true, true, true, true, true, true, true, true, true, true},
	}
	for _, r := range g.runs {
		c := r.Client
		if c == nil {
			continue
		}
		row := []markup.Inline{markup.Inline{}.C(r.Algorithm)}
		row = append(row, distCells(c.RetryAfter)...)
		row = append(row, markup.Text(numfmt.Count(c.Never)))
		if c.SecondsExtra != nil && c.RetryAfter != nil && c.RetryAfter.Samples > 0 {
			row = append(row, markup.Text(numfmt.ShortDuration(int64(c.SecondsExtra.MeanNS))), markup.Text(numfmt.Rate(float64(c.FloorEarly)/float64(c.RetryAfter.Samples))))
		} else {
			row = append(row, markup.Text("—"), markup.Text("—"))
		}
		row = append(row, distCells(c.Recovery)...)
		row = append(row, markup.Text(numfmt.Count(c.Unrecovered)))
		row = append(row, distCells(c.Delay)...)
		t.Rows = append(t.Rows, row)
	}
	if len(t.Rows) == 0 {
		return
	}
	var same []string
	for _, r := range g.runs {
		if v := r.VsToken; v != nil {
			same = append(same, fmt.Sprintf("%s decided otherwise than token on %s requests (%s let through, %s refused)",
				r.Algorithm, numfmt.Count(v.Over+v.Under), numfmt.Count(v.Over), numfmt.Count(v.Under)))
		}
	}
	d.Add(markup.Heading{Level: 4, Text: markup.Text("Client experience")})
	d.Add(markup.Para{Text: markup.Text("Retry-After is the exact wait, at each rejection, until the same request would be admitted if nothing else " +
		"arrived (never: a cost no wait admits). HTTP sends it in whole seconds, rounded up: the mean extra wait that costs, and " +
		"the share of rejections whose wait is not a whole number of seconds, where rounding down would send the client back " +
		"too early. Recovery is, per key, from the first rejection of a run of rejections to the next admission: how long a " +
		"client that keeps sending is refused (still refused: keys refused at the end). The leaky bucket admits into a queue: " +
		"its delay is the time from an admitted request's arrival until it has left the queue (the queue ahead of it drained, " +
		"then its own cost), so never 0.")}, t)
	if len(same) > 0 {
		d.Add(markup.Para{Text: markup.Text("A leaky bucket admits what a token bucket of the same capacity admits, and delays it: " + strings.Join(same, "; ") + ".")})
	}
}

// distCells returns p50, p99 and max of a distribution, or dashes.
func distCells(x *summary.Distribution) []markup.Inline {
	if x == nil || x.Samples == 0 {
		return []markup.Inline{markup.Text("—"), markup.Text("—"), markup.Text("—")}
	}
	return []markup.Inline{markup.Text(numfmt.ShortDuration(x.P50NS)), markup.Text(numfmt.ShortDuration(x.P99NS)), markup.Text(numfmt.ShortDuration(x.MaxNS))}
}

// closedLoop adds the closed-loop replays: clients that re-send what they
// are refused, by policy.
func (m *model) closedLoop(d *markup.Document) {
	if len(m.s.Clients) == 0 {
		return
	}
	d.Add(markup.Heading{Level: 2, ID: "clients", Text: markup.Text("Clients that retry")})
	d.Add(markup.Para{Text: markup.Text("Each algorithm replays the trace again with clients that re-send every refused request by a policy: " +
		"immediate (a retry loop), backoff (exponential with full jitter) or honor (waits for the Retry-After the limiter " +
		"gives, in whole seconds). Amplification is attempts sent ÷ the trace's requests; extra rejections are first attempts " +
		"refused that the open loop (no retries) admits, because retries took their place; time to success runs from a " +
		"request's first attempt to the admission of the one that got through (0 for those admitted at once).")})
	t := markup.Table{
		Head:  []string{"rule", "algorithm", "policy", "amplification", "extra rejections", "gave up", "admitted at first retry", "time to success p50", "p99", "max"},
		Right: []bool{false, false, false, true, true, true, true, true, true, true},
	}
	for _, r := range m.s.Clients {
		first := "—"
		if r.Retried > 0 {
			first = numfmt.Rate(float64(r.FirstRetryAdmitted) / float64(r.Retried))
		}
		tts := r.TimeToSuccess
		t.Rows = append(t.Rows, []markup.Inline{markup.Text(r.Rule), markup.Inline{}.C(r.Algorithm), markup.Inline{}.C(r.Policy), markup.Text(num(r.Amplification)),
			markup.Text(numfmt.Count(r.ExtraRejections)), markup.Text(numfmt.Count(r.GaveUp)), markup.Text(first), markup.Text(numfmt.ShortDuration(tts.P50NS)), markup.Text(numfmt.ShortDuration(tts.P99NS)), markup.Text(numfmt.ShortDuration(tts.MaxNS))})
	}
	d.Add(t)
}
