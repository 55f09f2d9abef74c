package compare

import (
	"ratebench/algorithms"
	"ratebench/internal/slicesx"
	"ratebench/summary"
)

// burstAcc measures the largest admitted cost in any span (t-W, t], per
// key, evaluated at each admission (the maximum over spans is reached at an
// admission time). It has three ways to know the admitted cost of the span:
//
//   - log set: a sliding log that records exactly the run's admissions (the
//     reference under count accepted) already holds it;
//   - ref set: the run's admissions differ from those of a reference log
//     (count accepted) only where they disagree, so the span holds the
//     reference's admitted cost, minus what the run refused and the log
//     admitted (under), plus what the run admitted and the log refused
//     (over). Only the disagreements are kept, per key, in one window of
//     signed costs (+ over, - under) whose sum is the difference, in the
//     key's ownExtra, made at a disagreement and dropped once every
//     disagreement has left it (most keys have none), so that a key none
//     of whose disagreements is recent reads nothing more;
//   - ref and all set: under count all the reference log records every
//     request, so while no refusal of the run is in the span, the span's
//     admissions are the reference's whole sum. From a refusal on, the
//     key's ownExtra holds the run's admissions in the span instead (made
//     at the refusal from the reference's entries before it, all of them
//     admitted), until an admission finds it holding the reference's whole
//     sum (costs are at least 1: no refusal is left in the span). A busy
//     key the run refuses thousands of times a window keeps only its
//     admissions, and refusals cost nothing;
//   - otherwise a sliding sum of the run's own admissions per key.
type burstAcc struct {
	rows *runRows // the run's: each key's peak and disagreements
	log  *algorithms.Log
	ref  *algorithms.Log
	all  bool // with ref: it records every request (count all), and a span's admissions are its sum less the run's refusals
	w    int64
	l    int64 // the rule's limit, which a key's burst is measured against

	relMax int64  // the largest peak of the keys released
	relKey string // and its key (the least name of those with it)

	win []algorithms.WindowSum // the run's admissions (neither log nor ref)
}

func (*burstAcc) place(*algorithms.Block) {} // what it keeps per key is in the run's ownRun and ownExtra, but win

func (b *burstAcc) grow(n int) {
	if b.log == nil && b.ref == nil {
		b.win = slicesx.Grow(b.win, n)
	}
}

// observe counts a request; log and ref must already have recorded it.
func (b *burstAcc) observe(req *observation) {
	h, id, t, cost, admit, ref := req.o, req.id, req.t, req.cost, req.admit, req.ref
	var span int64
	switch {
	case b.log != nil:
		if !admit {
			return
		}
		span = b.log.Sum(id)
	case b.all:
		if span = b.admittedAll(h, id, t, cost, admit); span < 0 {
			return
		}
	case b.ref != nil:
		if admit != ref {
			x, d := &b.rows.rows.extras, b.rows.needExtra(h)
			d.expire(x, t-b.w)
			if admit {
				d.add(x, t, cost)
			} else {
				d.add(x, t, -cost)
			}
		}
		if !admit {
			return
		}
		span = b.ref.Sum(id)
		if x := b.rows.extra(h); x != nil { // else no disagreement is in the span: nothing more is read
			x.expire(&b.rows.rows.extras, t-b.w)
			span += x.sum(&b.rows.rows.extras)
			b.rows.tidy(h, x)
		}
	default:
		if !admit {
			return
		}
		ws := &b.win[id]
		ws.Expire(t - b.w)
		ws.Add(t, cost)
		span = ws.Sum()
	}
	b.rows.raisePeak(h, id, span)
}

// admittedAll returns the admitted cost of key id's span (t-W, t] at an
// admission under count all, and -1 at a refusal (see burstAcc: the key's
// ownExtra holds its admissions while a refusal is in the span).
func (b *burstAcc) admittedAll(h *ownRun, id int32, t, cost int64, admit bool) int64 {
	xs := &b.rows.rows.extras
	if !admit {
		if h.extra == 0 { // every request of the span before this one was admitted: the reference's entries but its newest, this one
			x := b.rows.needExtra(h)
			n := b.ref.Len(id) - 1
			for et, ec := range b.ref.All(id) {
				if n == 0 {
					break
				}
				x.add(xs, et, ec)
				n--
			}
		}
		return -1
	}
	all := b.ref.Sum(id)
	x := b.rows.extra(h)
	if x == nil {
		return all
	}
	x.expire(xs, t-b.w)
	x.add(xs, t, cost)
	s := x.sum(xs)
	if s == all { // no refusal is left in the span
		b.rows.dropExtra(h)
	}
	return s
}

// release forgets key id's window of its own admissions, if it has one
// (its peak, saved or folded, and its disagreements are cleared with the
// run's ownRun).
func (b *burstAcc) release(id int32) {
	if b.log == nil && b.ref == nil {
		b.win[id] = algorithms.WindowSum{}
	}
}

// fold counts p, the peak of key id, released, towards the largest burst.
func (b *burstAcc) fold(p int64, id int32, keys *keyTable) {
	if p > b.relMax || (p == b.relMax && p > 0 && keys.nameBefore(id, b.relKey)) {
		b.relMax, b.relKey = p, keys.name(id)
	}
}

// passKey adds live key id's burst to out: to the keys past L, and as
// the largest (the least name of those with it).
func (b *burstAcc) passKey(out *summary.Burst, keys *keyTable, id int32) {
	p := b.rows.peak(id)
	if p > b.l {
		out.KeysOverL++
	}
	if p > 0 && p >= out.Max { // a smaller peak changes nothing: its name is not read
		if name := keys.name(id); p > out.Max || name < out.Key {
			out.Max, out.Key = p, name
		}
	}
}

// close writes the run's largest burst and how many keys passed L.
func (b *burstAcc) close(r *summary.Run, c *closing) {
	l, retained, run := b.l, c.retained, c.run
	out := c.pass.burst // the live keys' (closeKeys), from the peak of the keys released
	for _, f := range retained {
		if f.runs[run].peak > l {
			out.KeysOverL++
		}
	}
	if out.Max == 0 {
		out.Key = ""
	}
	out.Ratio = float64(out.Max) / float64(l)
	r.Burst = &out
}
