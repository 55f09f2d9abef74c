package livenginx

import "time"

// monoClock maps Go's time (whose monotonic reading is CLOCK_MONOTONIC)
// onto CLOCK_MONOTONIC's ns, anchored once.
type monoClock struct {
	t0 time.Time
	m0 int64
}

func newMonoClock() (monoClock, error) {
	a := time.Now()
	m, err := monotonicNS()
	b := time.Now()
	if err != nil {
		return monoClock{}, err
	}
	return monoClock{t0: a.Add(b.Sub(a) / 2), m0: m}, nil
}

func (c monoClock) at(t time.Time) int64 { return c.m0 + int64(t.Sub(c.t0)) }
func (c monoClock) now() int64           { return c.at(time.Now()) }
