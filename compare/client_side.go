package compare

import (
	"ratebench/algorithms"
	"ratebench/compare/clients"
	"ratebench/summary"
)

func denseDistribution(d *clients.Dense) *summary.Distribution {
	h := d.Durations()
	return summary.DistributionOf(&h)
}

// clientAcc accumulates a run's ClientSide.
type clientAcc struct {
	ra       algorithms.RetryAfterer // nil where Retry-After is not measured
	dl       algorithms.Delayer      // nil but for queues
	retry    clients.Dense
	extra    clients.Dense
	never    int64
	early    int64
	recovery clients.Dense
	delay    clients.Dense
	rows     *runRows // the run's: each key's open run of rejections
}

func newClientAcc(lim algorithms.Limiter, rows *runRows) *clientAcc {
	a := &clientAcc{rows: rows}
	a.ra, _ = lim.(algorithms.RetryAfterer)
	a.dl, _ = lim.(algorithms.Delayer)
	return a
}

// observe counts a request, after the run recorded it or not.
func (a *clientAcc) observe(req *observation) {
	h, id, t, cost, admit, recorded := req.o, req.id, req.t, req.cost, req.admit, req.recorded
	if admit {
		if h.rejSince != 0 {
			a.recovery.Add(t - (h.rejSince - 1))
			h.rejSince = 0
		}
		if a.dl != nil && recorded {
			a.delay.Add(a.dl.Delay(id))
		}
		return
	}
	if h.rejSince == 0 {
		h.rejSince = t + 1
	}
	if a.ra == nil {
		return
	}
	r, ok := a.ra.RetryAfter(id, t, cost)
	if !ok {
		a.never++
		return
	}
	d := r - t
	a.retry.Add(d)
	secs := algorithms.RoundUpSeconds(t, r)
	a.extra.Add(secs*1e9 - d)
	if d%1e9 != 0 {
		a.early++
	}
}

func (*clientAcc) place(*algorithms.Block) {} // what it keeps per key is in the run's ownRun
func (*clientAcc) grow(int)                {}
func (*clientAcc) release(int32)           {} // a key's open run of rejections is in its ownRun

// close writes the run's client side.
func (a *clientAcc) close(r *summary.Run, c *closing) {
	r.Client = a.summary(c.pass, c.retained, c.run)
}

// summary closes the accumulator; retained are the records of released
// keys, run this run's index in them.
func (a *clientAcc) summary(pass *keyPass, retained []*fullRecord, run int) *summary.ClientSide {
	c := &summary.ClientSide{Never: a.never, FloorEarly: a.early, Recovery: denseDistribution(&a.recovery)}
	if a.ra != nil {
		c.RetryAfter, c.SecondsExtra = denseDistribution(&a.retry), denseDistribution(&a.extra)
	}
	if a.dl != nil {
		c.Delay = denseDistribution(&a.delay)
	}
	c.Unrecovered = pass.unrecovered // the live keys' (closeKeys)
	for _, f := range retained {
		if f.runs[run].rejSince != 0 {
			c.Unrecovered++
		}
	}
	return c
}
