package compare

import "ratebench/algorithms"

// The state all keys hold together is sampled, for each group (rule ×
// count), at the last instant of each bin of the reference's timeline (its
// end), so that the peak total memory is additive over keys and merges
// exactly across workers and shards. Sampling where a bin ends, not where
// it starts, sees the window algorithms' state at its largest: a fixed
// window's count, or a counter's previous window, is dropped as the next
// window starts, and bins are aligned to the windows.
//
//   - The exact log holds, at instant s, the entries recorded in (s-W, s]
//     (8 bytes each, 16 when the cost is not 1) and an 8-byte running sum
//     per key with at least one of them (stateSeries). Bins are at least W
//     wide, so an entry is in the window of at most one end: its own bin's.
//   - A candidate, of fixed size, holds its bytes for every key whose state
//     is not back to its initial value at s (algorithms.Releaser's Idle:
//     a compact implementation drops the key then). A key's state changes
//     only at its requests and only decays between them, so the ends since
//     its last request are settled when the next comes (group.settle), or
//     when it is released, or at the end of the replay; a token bucket that
//     takes many windows to refill is counted at each of them.
//
// stateSeries is the log's part: each key keeps the last end it was
// counted at (keyRun.stateEnd of the reference's run), so that its running
// sum counts once per end.
type stateSeries struct {
	w int64
}

// add samples a request at t (just added to tl) of a key whose row in the
// reference's run is h; recorded says whether the log recorded it.
func (s *stateSeries) add(tl *timelineAcc, h *keyRun, t, cost int64, recorded bool) {
	if !recorded {
		return
	}
	e, ok := tl.end(t, s.w)
	if !ok {
		return
	}
	size := int64(8)
	if cost != 1 {
		size = 16
	}
	if h.stateEnd != e+1 {
		h.stateEnd = e + 1
		size += 8
	}
	tl.sample(&tl.Memory, e, size)
}

// settle counts, for key id, each candidate that holds state at the ends
// of bins in [from, until]: from is after the key's last request (or its
// last settle) and until before its next, so its state only decays in
// between, and a candidate idle at one end is idle at every later one. It
// must run before the candidates see a request of id after from, as Idle
// advances their state to the instant asked.
func (g *group) settle(id int32, from, until int64) {
	tl := &g.refAcc.timeline
	w := tl.Width
	first := binEnd(from, w)
	if first > until {
		return
	}
	for i, c := range g.cands {
		for s := first; ; s += w {
			if c.rel != nil && c.rel.Idle(id, s) {
				break
			}
			tl.sample(&tl.Held[i], s, 1)
			if s > until-w { // the next end is after until (and s+w cannot overflow)
				break
			}
		}
	}
}

// settle counts key id's state at the ends of bins up to until in every
// group, and notes that it has been (keyState.from).
func (e *worker) settle(id int32, until int64) {
	st := &e.keys.state[id]
	for _, g := range e.groups {
		g.settle(id, st.from, until)
	}
	st.from = max(st.from, until+1)
}

// closeState ends the state samples at the end of the replay: every
// timeline of a group covers offeredEnd, the latest request offered to
// the engine (other workers' and shards' keys included, so that their
// samples cover the same ends as one replay's), and the keys still live
// are settled up to the end of the last bin. It runs once; nothing may be
// added after it.
func (e *worker) closeState(offeredEnd int64) {
	if e.stateClosed {
		return
	}
	e.stateClosed = true
	for _, g := range e.groups {
		g.refAcc.timeline.cover(offeredEnd)
		for _, c := range g.cands {
			c.acc.timeline.cover(offeredEnd)
		}
	}
	for id := range e.keys.size() {
		st := &e.keys.state[id]
		if !st.live {
			continue
		}
		for _, g := range e.groups {
			if tl := &g.refAcc.timeline; len(tl.Requests) > 0 {
				g.settle(int32(id), st.from, tl.lastEnd())
			}
		}
		st.from = 1<<63 - 1
	}
}

// releaserOf returns lim's idle test, nil if it has none (its keys are
// then counted as holding state at every end after their first request).
func releaserOf(lim algorithms.Limiter) algorithms.Releaser {
	r, _ := lim.(algorithms.Releaser)
	return r
}
