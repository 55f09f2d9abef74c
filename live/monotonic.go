package live

import "time"

// MonoClock maps Go's time (whose monotonic reading is CLOCK_MONOTONIC)
// onto CLOCK_MONOTONIC's ns, anchored once: the clock nginx's
// ngx_current_msec is read from on Linux (ngx_monotonic_time), so that a
// replay can start on its milliseconds and place a request's send and
// answer among them.
type MonoClock struct {
	t0 time.Time
	m0 int64
}

// NewMonoClock anchors a MonoClock now.
func NewMonoClock() (MonoClock, error) {
	a := time.Now()
	m, err := monotonicNS()
	b := time.Now()
	if err != nil {
		return MonoClock{}, err
	}
	return MonoClock{t0: a.Add(b.Sub(a) / 2), m0: m}, nil
}

// At is CLOCK_MONOTONIC at t, in ns.
func (c MonoClock) At(t time.Time) int64 { return c.m0 + int64(t.Sub(c.t0)) }

// Now is CLOCK_MONOTONIC now, in ns.
func (c MonoClock) Now() int64 { return c.At(time.Now()) }
