package redisreplay

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"ratebench/algorithms"
)

// liveRule is the rule a live replay at the given speed runs: the same
// limit over the window divided by the speed, which must divide it exactly
// (times are whole ns).
func liveRule(r algorithms.Rule, speed int64) (algorithms.Rule, error) {
	if speed < 1 || r.W%speed != 0 || r.W/speed < 1 {
		return r, fmt.Errorf("speed %d: a live replay divides the window %s by the speed, which must divide it into whole nanoseconds", speed, algorithms.FormatWindow(r.W))
	}
	return algorithms.Rule{L: r.L, W: r.W / speed}, nil
}

// productTTL is the shortest lifetime a product gives its keys on the
// server's clock (0: not a product replayed on trace time), and the number
// of windows a key is read in (the sliding window reads the previous one).
func productTTL(name string, r algorithms.Rule) (time.Duration, int) {
	switch name {
	case "upstash-fixed", "envoy", "kong":
		return time.Duration(r.W), 1
	case "upstash":
		return 2*time.Duration(r.W) + time.Second, 2
	case "tyk": // EXPIRE per on every request: the key must outlive each gap shorter than W
		return time.Duration(r.W), 2
	}
	return 0, 0
}

// keyLife measures the longest a product's window key has to live on the
// server's clock: from the first request of its window to the last request
// that reads it (in its window, or in the next for a key read in two), as
// the requests are handed to the clients. Windows come in time order.
type keyLife struct {
	w, reads int64
	win      [2]int64 // the current window, the one before
	start    [2]time.Time
	n        int
	max      time.Duration
}

func (l *keyLife) see(t int64, now time.Time) {
	w := t / l.w
	if l.n == 0 || w != l.win[0] {
		l.win[1], l.start[1] = l.win[0], l.start[0]
		l.win[0], l.start[0] = w, now
		l.n++
	}
	from := l.start[0]
	if l.reads == 2 && l.n > 1 && l.win[1] == w-1 {
		from = l.start[1]
	}
	l.max = max(l.max, now.Sub(from))
}

// decision is one answer of a live replay: the request, the time Redis
// ran it at (TIME, which orders the answers) and the time its script's
// clock read (what the model is fed).
type decision struct {
	seq, t, at, cost int64
	id               int32
	ok               bool
}

// livePass replays the trace through a script that reads Redis's clock
// (redis_rate's, rate-limit-redis's) at the trace's
// pace scaled by Config.Speed: request i is sent (t_i - t_0)/speed after the
// start, to the first free one of the clients, and the script decides on
// Redis's clock. The model (the rule scaled by the speed) is then driven
// with the times the script read, in the order Redis decided (by TIME, then
// trace order: Redis runs one script at a time), and compared decision by
// decision. With one client that is the trace's order, and they must agree
// exactly; a late send changes the times, not the agreement.
func (rp *replay) livePass(ctx context.Context, a algorithm, o liveOp, clients int) (Pass, PassTiming, error) {
	speed := rp.cfg.Speed
	rule, err := liveRule(rp.cfg.Rule, speed)
	if err != nil {
		return Pass{}, PassTiming{}, err
	}
	o.setRule(rule)
	prefix, rkeys, model, done, err := rp.begin(ctx, a, clients, rule)
	if err != nil {
		return Pass{}, PassTiming{}, err
	}
	defer done()

	got := make([][]decision, clients)
	pool, lat := rp.startClients(ctx, clients, clients, func(ctx context.Context, w int, j *job) error {
		ok, t, at, err := o.allow(ctx, rp.client, j.key, j.cost)
		if err != nil {
			return err
		}
		got[w] = append(got[w], decision{seq: j.seq, t: t, at: at, cost: j.cost, id: j.id, ok: ok})
		return nil
	})
	began := pool.Began()
	var lagMax time.Duration
	timer := time.NewTimer(0)
	defer timer.Stop()
	err = rp.sp.scan(func(seq, t int64, id int32, cost int64) (bool, error) {
		due := began.Add(time.Duration((t - rp.sp.first) / speed))
		if d := time.Until(due); d > 0 {
			timer.Reset(d)
			select {
			case <-timer.C:
			case <-pool.Context().Done():
				return false, nil
			}
		}
		if !pool.Send(job{seq: seq, abs: t, id: id, cost: cost, key: rkeys[id]}) {
			return false, nil
		}
		lagMax = max(lagMax, time.Since(due))
		return true, nil
	})
	elapsed, err := pool.Finish(err)
	if err != nil {
		return Pass{}, PassTiming{}, err
	}

	all := slices.Concat(got...)
	slices.SortFunc(all, func(x, y decision) int {
		if x.t != y.t {
			return cmp.Compare(x.t, y.t)
		}
		return cmp.Compare(x.seq, y.seq)
	})
	var st stats
	every := algorithms.CountsEvery(model)
	for _, d := range all {
		admit := model.Decide(d.id, d.at, d.cost)
		if admit || every {
			model.Record(d.id, d.at, d.cost)
		}
		st.tally(d.ok, admit)
	}
	run, tim, err := rp.result(ctx, a, o, model, prefix, []stats{st}, clients, elapsed, lat)
	if err != nil {
		return Pass{}, PassTiming{}, err
	}
	run.Model = model.Name() + " at " + rule.String()
	tim.Live = &LiveTiming{Speed: speed, Rule: rule.String(), TraceSeconds: time.Duration(rp.sp.last - rp.sp.first).Seconds(),
		LagMaxNS: int64(lagMax)}
	tim.Live.RequestedSeconds = tim.Live.TraceSeconds / float64(speed)
	return run, tim, nil
}
