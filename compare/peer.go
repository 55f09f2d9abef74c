package compare

import (
	"ratebench/algorithms"

	"ratebench/summary"
)

// peerLimiter is a peer library's limiter that checks its own arithmetic
// against an exact twin (algorithms.XRate).
type peerLimiter interface {
	Arithmetic() algorithms.XRateArithmetic
	Capacity() int64
}

// pairPeers pairs every peer library's run, and every leaky bucket's, with
// the token run of the same capacity and mode, if the group has one: a
// peer's disagreements with it are its arithmetic's; a leaky bucket must
// admit exactly as the token bucket does (it only delays). A peer's run
// measures its arithmetic (peerAcc) and, paired, both measure their
// disagreement with the token run (vsTokenAcc), as metrics of the run.
func (g *group) pairPeers() {
	for _, c := range g.cands {
		if c.companion { // a product's companions are weighed against its twin only
			continue
		}
		p, isPeer := c.lim.(peerLimiter)
		lk, isLeaky := c.lim.(*algorithms.Leaky)
		var b int64
		switch {
		case isPeer:
			c.acc.addMetric(&peerAcc{lim: p})
			b = p.Capacity()
		case isLeaky:
			b = lk.Capacity()
		default:
			continue
		}
		for _, d := range g.cands {
			tk, ok := d.lim.(*algorithms.Token)
			if ok && !d.companion && d.mode == c.mode && tk.Capacity() == b {
				c.acc.addMetric(&vsTokenAcc{run: c, tok: d})
				break
			}
		}
	}
}

// peerAcc reads a peer library's checks of its arithmetic against its
// exact twin, which the limiter counts itself.
type peerAcc struct {
	lim peerLimiter
}

func (*peerAcc) place(*algorithms.Block) {}
func (*peerAcc) grow(int)                {}
func (*peerAcc) release(int32)           {}

func (a *peerAcc) close(r *summary.Run, _ *closing) {
	ar := a.lim.Arithmetic()
	p := &summary.Peer{Checked: ar.Checked, Flips: ar.Flips, FlipsOver: ar.Over, FlipsUnder: ar.Under, Boundary: ar.Boundary, Nanosecond: ar.Nanosecond}
	p.Drift = ar.Flips - ar.Boundary - ar.Nanosecond
	r.Peer = p
}

// vsTokenAcc counts the requests a run decided otherwise than the token
// run it is paired with: a peer's (in its Peer) or a leaky bucket's.
type vsTokenAcc struct {
	run, tok *candidate
	d        summary.Disagreement
}

func (*vsTokenAcc) place(*algorithms.Block) {}
func (*vsTokenAcc) grow(int)                {}
func (*vsTokenAcc) release(int32)           {}

func (a *vsTokenAcc) settle() { tally(&a.d, a.run.admit, a.tok.admit) }

// close writes the disagreement in the run's Peer, closed before it, or
// for a leaky bucket on its own.
func (a *vsTokenAcc) close(r *summary.Run, _ *closing) {
	v := a.d
	if r.Peer != nil {
		r.Peer.VsToken = &v
		return
	}
	r.VsToken = &v
}
