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
// admit exactly as the token bucket does (it only delays).
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
			c.acc.peer = &summary.Peer{}
			b = p.Capacity()
		case isLeaky:
			b = lk.Capacity()
		default:
			continue
		}
		for _, d := range g.cands {
			tk, ok := d.lim.(*algorithms.Token)
			if ok && !d.companion && d.mode == c.mode && tk.Capacity() == b {
				c.vsToken = d
				c.acc.vsTok = &summary.Disagreement{}
				g.peers = append(g.peers, c)
				break
			}
		}
	}
}

// vsToken counts one request a run decided admit and its token run tok.
func (a *runAcc) vsToken(admit, tok bool) {
	switch {
	case admit && !tok:
		a.vsTok.Over++
	case !admit && tok:
		a.vsTok.Under++
	}
}

// vsTokenSummary returns a leaky bucket's disagreement with its token run
// (a peer's is in its Peer).
func (a *runAcc) vsTokenSummary() *summary.Disagreement {
	if a.vsTok == nil || a.peer != nil {
		return nil
	}
	v := *a.vsTok
	return &v
}

// peerSummary returns the peer's figures, its arithmetic read from the
// limiter.
func (a *runAcc) peerSummary() *summary.Peer {
	if a.peer == nil {
		return nil
	}
	p := *a.peer
	if a.vsTok != nil {
		v := *a.vsTok
		p.VsToken = &v
	}
	ar := a.lim.(peerLimiter).Arithmetic()
	p.Checked, p.Flips, p.FlipsOver, p.FlipsUnder = ar.Checked, ar.Flips, ar.Over, ar.Under
	p.Boundary, p.Nanosecond = ar.Boundary, ar.Nanosecond
	p.Drift = ar.Flips - ar.Boundary - ar.Nanosecond
	return &p
}
