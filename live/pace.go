package live

import (
	"context"
	"fmt"
	"math/big"
	"time"

	"ratebench/algorithms"
)

// ScaleRule is rule r at speed s: the same L in W/s, which must be a whole
// number of ns.
func ScaleRule(r algorithms.Rule, s *big.Rat) (algorithms.Rule, error) {
	if s == nil || s.Cmp(big.NewRat(1, 1)) == 0 {
		return r, nil
	}
	w := new(big.Rat).Quo(new(big.Rat).SetInt64(r.W), s)
	if !w.IsInt() || !w.Num().IsInt64() || w.Num().Int64() < 1 {
		return algorithms.Rule{}, fmt.Errorf("rule %s at speed %s: the window would be %s ns, not a whole number of ns", r, s.RatString(), w.RatString())
	}
	return algorithms.Rule{L: r.L, W: w.Num().Int64()}, nil
}

// Pacer sends a trace at its pace times a speed, for software on its own
// clock: a request at trace time t (first the first request's) is due
// (t - first)/speed after the start, or with a tick at the start of the
// tick it falls in, the start itself on a tick.
type Pacer struct {
	speed *big.Rat
	start time.Time
	first int64
	tick  time.Duration
}

// NewPacer returns a Pacer at speed s (nil: 1).
func NewPacer(s *big.Rat) *Pacer {
	if s == nil {
		s = big.NewRat(1, 1)
	}
	return &Pacer{speed: s}
}

// Due is how long after the start trace time t is due at the speed, in
// ns (the tick aside).
func (p *Pacer) Due(t int64) int64 {
	d := new(big.Rat).Quo(new(big.Rat).SetInt64(t-p.first), p.speed)
	q := new(big.Int).Quo(d.Num(), d.Denom())
	return q.Int64()
}

// begin starts the pace now for a trace whose first request is at first:
// at once, or with a tick, 20 ms from now at the start of a tick of
// CLOCK_MONOTONIC.
func (p *Pacer) begin(first int64, tick time.Duration) error {
	p.first, p.tick, p.start = first, tick, time.Now()
	if tick <= 0 {
		return nil
	}
	clock, err := NewMonoClock()
	if err != nil {
		return err
	}
	start := p.start.Add(20 * time.Millisecond)
	p.start = start.Add(-time.Duration(clock.At(start) % int64(tick)))
	return nil
}

// due is when trace time t is to be sent, after the start.
func (p *Pacer) due(t int64) time.Duration {
	d := time.Duration(p.Due(t))
	if p.tick > 0 {
		d = d.Truncate(p.tick)
	}
	return d
}

// spin is how long before a request's due time the pace stops sleeping
// and waits in a loop, with a tick: a timer wakes up to a millisecond
// late.
const spin = 1500 * time.Microsecond

// wait sleeps until trace time t is due, on timer.
func (p *Pacer) wait(ctx context.Context, t int64, timer *time.Timer) error {
	due := p.start.Add(p.due(t))
	lead := time.Duration(0)
	if p.tick > 0 {
		lead = spin
	}
	if d := time.Until(due) - lead; d > 0 {
		timer.Reset(d)
		select {
		case <-ctx.Done():
			timer.Stop()
			return ctx.Err()
		case <-timer.C:
		}
	}
	for lead > 0 && time.Now().Before(due) {
	}
	return ctx.Err()
}
