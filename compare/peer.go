package compare

import "ratebench/algorithms"

// peerLimiter is a peer library's limiter that checks its own arithmetic
// against an exact twin (algorithms.XRate).
type peerLimiter interface {
	Arithmetic() algorithms.XRateArithmetic
	Capacity() int64
}

// pairPeers pairs every peer library's run with the token run of the same
// capacity and mode, if the group has one.
func (g *group) pairPeers() {
	for _, c := range g.cands {
		p, ok := c.lim.(peerLimiter)
		if !ok {
			continue
		}
		c.acc.peer = &Peer{}
		for _, d := range g.cands {
			tk, ok := d.lim.(*algorithms.Token)
			if ok && d.mode == c.mode && tk.Capacity() == p.Capacity() {
				c.vsToken = d
				c.acc.peer.VsToken = &Disagreement{}
				g.peers = append(g.peers, c)
				break
			}
		}
	}
}

// vsToken counts one request a peer decided admit and its token run tok.
func (a *runAcc) vsToken(admit, tok bool) {
	switch {
	case admit && !tok:
		a.peer.VsToken.Over++
	case !admit && tok:
		a.peer.VsToken.Under++
	}
}

// peerSummary returns the peer's figures, its arithmetic read from the
// limiter.
func (a *runAcc) peerSummary() *Peer {
	if a.peer == nil {
		return nil
	}
	p := *a.peer
	if a.peer.VsToken != nil {
		v := *a.peer.VsToken
		p.VsToken = &v
	}
	ar := a.lim.(peerLimiter).Arithmetic()
	p.Checked, p.Flips, p.FlipsOver, p.FlipsUnder = ar.Checked, ar.Flips, ar.Over, ar.Under
	p.Boundary, p.Nanosecond = ar.Boundary, ar.Nanosecond
	p.Drift = ar.Flips - ar.Boundary - ar.Nanosecond
	return &p
}

// mergePeer adds o into p (nil when the runs are not a peer's).
func mergePeer(p, o *Peer) *Peer {
	if o == nil {
		return p
	}
	if p == nil {
		p = &Peer{}
		if o.VsToken != nil {
			p.VsToken = &Disagreement{}
		}
	}
	p.Checked += o.Checked
	p.Flips += o.Flips
	p.FlipsOver += o.FlipsOver
	p.FlipsUnder += o.FlipsUnder
	p.Boundary += o.Boundary
	p.Nanosecond += o.Nanosecond
	p.Drift += o.Drift
	if o.VsToken != nil && p.VsToken != nil {
		p.VsToken.Over += o.VsToken.Over
		p.VsToken.Under += o.VsToken.Under
	}
	return p
}
