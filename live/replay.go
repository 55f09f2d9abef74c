package live

import (
	"context"
	"fmt"
	"time"

	"ratebench/summary"
)

// replayed is what the harness saw of a replay: each request's decision
// and when it went to its client, in ns since the replay began.
type replayed struct {
	d      []Decision
	sent   []int64
	timing summary.LiveTiming
	// scaled is each request's trace time at the speed, from the first
	// request's (nil when the clock is driven).
	scaled []int64
}

// replay sends each request of tr to s from o's clients: on the trace's
// clock as fast as they answer, or on the software's own when it is due
// at the trace's pace times o.Speed (Pacer). Each client takes the next
// request once it has its answer; one client sends them serially, in the
// trace's order.
func replay(ctx context.Context, target Target, s Session, tr *Trace, o Options) (*replayed, error) {
	n := len(tr.T)
	rp := &replayed{d: make([]Decision, n), sent: make([]int64, n)}
	answered := make([]int64, n)
	var p *Pacer
	start := time.Now()
	if !target.Driven {
		p = NewPacer(o.Speed)
		if err := p.begin(tr.T[0], target.Tick); err != nil {
			return nil, err
		}
		start = p.start
	}
	clients, buf := o.clients(), 0
	if p == nil {
		buf = 2 * clients // no pace to keep: a request waits for the first free client
	}
	c := startClients(ctx, clients, buf, func(ctx context.Context, w, i int) error {
		q := Request{Index: i, Client: w, Key: KeyName(tr.Key[i]), ID: tr.Key[i], T: tr.T[i], Cost: tr.CostOf(i)}
		rp.sent[i] = int64(time.Since(start))
		d, err := s.Decide(ctx, q)
		answered[i] = int64(time.Since(start))
		if err != nil {
			return fmt.Errorf("live %s: request %d (key %s at %d ns): %w", target.Name, i+1, q.Key, q.T, err)
		}
		if target.Driven && d.At != q.T {
			return fmt.Errorf("live %s: request %d: the software's clock is driven, yet it says it decided at %d ns, not the request's %d ns", target.Name, i+1, d.At, q.T)
		}
		if clients == 1 && i > 0 && d.At < rp.d[i-1].At {
			return fmt.Errorf("live %s: request %d: decided at %d ns, before the previous request's %d ns", target.Name, i+1, d.At, rp.d[i-1].At)
		}
		rp.d[i] = d
		return nil
	})
	timer := time.NewTimer(0)
	defer timer.Stop()
	var feedErr error
	for i, t := range tr.T {
		if p != nil {
			if feedErr = p.wait(c.ctx, t, timer); feedErr != nil {
				break
			}
		}
		if !c.send(i) {
			break
		}
	}
	if err := c.finish(feedErr); err != nil {
		return nil, err
	}
	rp.timing = timing(tr, rp.sent, answered, p)
	if p != nil {
		rp.scaled = make([]int64, n)
		for i, t := range tr.T {
			rp.scaled[i] = p.Due(t)
		}
		if span := rp.scaled[n-1]; n > 1 && span > 0 {
			rp.timing.RequestedPerS = float64(n-1) / (float64(span) / 1e9)
		}
	}
	return rp, nil
}

// timing sums how late the requests of tr were sent (against p's due
// times, when paced) and how long their answers took, and the rate sent.
func timing(tr *Trace, sent, answered []int64, p *Pacer) summary.LiveTiming {
	var late, lat summary.Durations
	last := int64(0)
	for i := range sent {
		if p != nil {
			late.Add(max(sent[i]-int64(p.due(tr.T[i])), 0))
		}
		lat.Add(max(answered[i]-sent[i], 0))
		last = max(last, answered[i])
	}
	n := len(sent)
	tm := summary.LiveTiming{DurationNS: last - sent[0], Late: late.Summary(), Latency: lat.Summary()}
	if span := sent[n-1] - sent[0]; n > 1 && span > 0 {
		tm.AchievedPerS = float64(n-1) / (float64(span) / 1e9)
	}
	return tm
}
