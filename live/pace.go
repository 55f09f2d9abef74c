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
// clock: the first request is due at once, and a request at trace time t
// (first the first request's) is due (t - first)/speed after it.
type Pacer struct {
	speed *big.Rat
	start time.Time
	first int64
	begun bool
}

// NewPacer returns a Pacer at speed s (nil: 1).
func NewPacer(s *big.Rat) *Pacer {
	if s == nil {
		s = big.NewRat(1, 1)
	}
	return &Pacer{speed: s}
}

// Due is how long after the start trace time t is due, in ns.
func (p *Pacer) Due(t int64) int64 {
	d := new(big.Rat).Quo(new(big.Rat).SetInt64(t-p.first), p.speed)
	q := new(big.Int).Quo(d.Num(), d.Denom())
	return q.Int64()
}

// Wait sleeps until trace time t is due (the first call starts the clock)
// and returns when it is due, in ns since the start.
func (p *Pacer) Wait(ctx context.Context, t int64) (int64, error) {
	if !p.begun {
		p.begun, p.start, p.first = true, time.Now(), t
		return 0, nil
	}
	due := p.Due(t)
	if d := time.Until(p.start.Add(time.Duration(due))); d > 0 {
		tm := time.NewTimer(d)
		select {
		case <-ctx.Done():
			tm.Stop()
			return 0, ctx.Err()
		case <-tm.C:
		}
	}
	return due, ctx.Err()
}

// Since is the time since the start in ns (on the monotonic clock).
func (p *Pacer) Since() int64 { return int64(time.Since(p.start)) }
