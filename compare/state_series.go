package compare

import (
	"math"

	"ratebench/algorithms"
	"ratebench/internal/slicesx"
	"ratebench/summary"
)

// The state all keys hold together is counted, for each group (rule ×
// count), in every window of the rule's length W aligned to t = 0
// (windowGrid), whatever the width of the timeline's bins: each key at the
// largest state it held at any instant of the window. The state of a key
// changes only at its requests and only decays between them, so that
// largest is its state at the window's start or just after one of its
// requests in it; counting it there, and nowhere else, misses no state,
// however briefly held (a token bucket refilled in a second, a log entry
// of a request an hour after the last). The count is a sum over keys, so
// workers and shards add theirs exactly; the timeline's memory is, per
// bin, the largest of its windows (summary.MemoryWindows).
//
//   - The exact log holds the entries recorded in (s-W, s] (8 bytes each,
//     16 when the cost is not 1) and an 8-byte running sum, at the start s
//     of a window (algorithms.Log.SizeAt, before the key's first request
//     there) and after each request it records. A window's start sees at
//     most the entries of the window before: an entry is W old at the start
//     of the next window but one.
//   - A candidate, of fixed size, holds its bytes in each window where the
//     key has a request or where its state is not back to its initial value
//     at the start (algorithms.Releaser's Idle: a compact implementation
//     drops the key then). The windows since a key's last request are
//     settled when the next comes (group.settle), or before it is released,
//     or at the end of the replay; a token bucket that takes many windows to
//     refill is counted in each of them.
//
// keyRun.stateEnd of each run's row is the mark of the last window the key
// was counted in, so that it counts once per window; the group's statePeak
// is the log's size counted there.
type windowGrid struct {
	w      int64
	lo     int64     // the start of the last window a request was in (start), so that
	hi     int64     // a request in the same window as the last skips the division
	loMark uint32    // and lo's mark
	cycle  uint32    // the marks' cycle (mark); 0 means markCycle
	first  int64     // the window index of Memory[0] and each Held[c][0]
	n      int       // the windows covered: first .. first+n-1
	Memory []int64   // the log's bytes per window
	Held   [][]int64 // per candidate, the keys holding state per window
	// over says the requests span more than summary.MaxMemoryWindows
	// windows: the series are dropped and nothing more is counted.
	over bool
}

// index returns the index of the window that starts at s, extending the
// windows covered to hold it; -1 once they span too many (over).
func (g *windowGrid) index(s int64) int {
	b := s / g.w
	if g.over {
		return -1
	}
	if g.n > 0 && max(b, g.first+int64(g.n)-1)-min(b, g.first) >= summary.MaxMemoryWindows {
		g.over, g.Memory, g.n = true, nil, 0
		clear(g.Held)
		return -1
	}
	if g.n == 0 {
		g.first, g.n = b, 1
		return 0
	}
	if b < g.first { // a request earlier than any so far (another key's)
		pad := int(g.first - b)
		prepend := func(s []int64) []int64 {
			if len(s) == 0 {
				return s
			}
			return append(make([]int64, pad), s...)
		}
		g.Memory = prepend(g.Memory)
		for i := range g.Held {
			g.Held[i] = prepend(g.Held[i])
		}
		g.first, g.n = b, g.n+pad
	}
	i := int(b - g.first)
	g.n = max(g.n, i+1)
	return i
}

// add adds v to series in the window that starts at s.
func (g *windowGrid) add(series *[]int64, s, v int64) {
	i := g.index(s)
	if i < 0 {
		return
	}
	if i >= len(*series) {
		*series = slicesx.Grow(*series, i+1)
	}
	(*series)[i] += v
}

// cover extends the windows to the one holding t (see timelineAcc.cover).
func (g *windowGrid) cover(t int64) {
	if g.n > 0 {
		g.index(t / g.w * g.w)
	}
}

// lastStart returns the start of the last window covered.
func (g *windowGrid) lastStart() int64 { return (g.first + int64(g.n) - 1) * g.w }

// start returns the start of the window that holds t.
func (g *windowGrid) start(t int64) int64 {
	if t >= g.lo && t < g.hi {
		return g.lo
	}
	g.lo = windowStart(t, g.w)
	g.hi = g.lo + g.w
	if g.hi < g.lo { // the last window of int64 time
		g.hi = math.MaxInt64
	}
	g.loMark = g.mark(g.lo)
	return g.lo
}

// A window's mark is what a key's row keeps of the last window its state
// was counted in (keyRun.stateEnd), in markBits bits rather than the
// window's 64-bit start: its index modulo the cycle, plus one (0 is no
// window). Two windows share a mark only a whole cycle apart, markCycle
// windows, far more than summary.MaxMemoryWindows. A key seen again a
// cycle after its mark's window is taken as counted already, and this
// changes no figure: where its row's mark was set with a count (every
// candidate's, and the log's when the log held something), the grid
// covers that window and, at the latest when it closes, the current one,
// so that it spans more than MaxMemoryWindows and counts nothing; where
// the log's mark was set on an empty log, the key has had no request
// since, and its log is empty again, as the size kept for the window says.
// Tests lower the cycle (tuning.markCycle) to see it.
const markCycle = 1<<markBits - 1

// The marks' cycle must exceed the windows a grid counts.
const _ = uint(markCycle - summary.MaxMemoryWindows - 1)

// mark returns the mark of the window that starts at s.
func (g *windowGrid) mark(s int64) uint32 {
	c := g.cycle
	if c == 0 {
		c = markCycle
	}
	return uint32(uint64(s/g.w)%uint64(c)) + 1
}

// nextMark returns the mark of the window after the one marked m.
func (g *windowGrid) nextMark(m uint32) uint32 {
	if c := g.cycle; m == c || c == 0 && m == markCycle {
		return 1
	}
	return m + 1
}

// windowStart returns the start of the window that holds t.
func windowStart(t, w int64) int64 { return t / w * w }

// nextStart returns the first window start at or after t, false when there
// is none before the end of int64 time.
func nextStart(t, w int64) (int64, bool) {
	s := windowStart(t, w)
	if s == t {
		return s, true
	}
	if s > math.MaxInt64-w {
		return 0, false
	}
	return s + w, true
}

// countLog counts, before a request of key id in the window that starts at
// s, marked m, is decided, the log's size at s, the first time the key is
// seen there.
func (g *group) countLog(h *keyRun, peak *int64, id int32, s int64, m uint32) {
	if h.stateEnd() == m {
		return
	}
	h.setStateEnd(m)
	*peak = g.ref.SizeAt(id, s)
	if *peak > 0 {
		g.win.add(&g.win.Memory, s, *peak)
	}
}

// held counts candidate i's key, whose row is h, in the window that starts
// at s, marked m, where it has a request, unless it is already.
func (g *group) held(h *keyRun, i int, s int64, m uint32) {
	if h.stateEnd() != m {
		h.setStateEnd(m)
		g.win.add(&g.win.Held[i], s, 1)
	}
}

// recorded counts the log's size after it recorded a request at t of key
// id (counted in t's window by countLog, which set peak).
func (g *group) recorded(peak *int64, id int32, t int64) {
	if size := g.ref.Bytes(id); size > *peak {
		g.win.add(&g.win.Memory, windowStart(t, g.win.w), size-*peak)
		*peak = size
	}
}

// settle counts, for key id, the state of the log and of each candidate at
// the starts of the windows in [from, until]: from is after the key's last
// request (or its last settle) and until before the window of its next, so
// its state only decays in between, and a run idle at one start is idle at
// every later one. It must run before the runs see a request of id after
// from, as SizeAt and Idle advance their state to the instant asked.
func (g *group) settle(row []keyRun, id int32, from, until int64) {
	w := g.win.w
	if g.win.over {
		return
	}
	first, ok := nextStart(from, w)
	if !ok || first > until {
		return
	}
	firstMark := g.win.mark(first)
	if h := &row[0]; h.stateEnd() != firstMark { // the log holds no entry past the first start: they are older than W there
		if size := g.ref.SizeAt(id, first); size > 0 {
			h.setStateEnd(firstMark)
			*g.statePeak.At(id) = size
			g.win.add(&g.win.Memory, first, size)
		}
	}
	for i, c := range g.cands {
		h := &g.scratch // a companion's state is not counted, but is brought to the same starts
		if c.slot >= 0 {
			h = &row[c.slot]
		}
		src := c.of // the run whose limiter's idle tests this run reads, nil for its own
		if c.sharesState(row) {
			src = c.lazyOf
		}
		c.idleAt = math.MaxInt64
		for s, m := first, firstMark; ; s, m = s+w, g.win.nextMark(m) {
			if src != nil && s == src.idleAt || src == nil && c.rel != nil && c.rel.Idle(id, s) {
				c.idleAt = s // a run sharing this one's limiter reads it here rather than ask again
				break
			}
			if c.slot >= 0 && h.stateEnd() != m {
				h.setStateEnd(m)
				g.win.add(&g.win.Held[i], s, 1)
			}
			if s > until-w { // the next start is after until (and s+w cannot overflow)
				break
			}
		}
	}
}

// settle counts key id's state at the window starts up to until in every
// group, and notes that it has been (keyState.from).
func (w *worker) settle(id int32, until int64) {
	st := w.keys.at(id)
	row := w.rows.row(id)
	for _, g := range w.groups {
		g.settle(row[g.base:], id, st.from, until)
	}
	st.from = max(st.from, until+1)
}

// closeState ends the state counts at the end of the replay: every
// timeline and window grid of a group covers offeredEnd, the latest request
// offered to the engine (other workers' and shards' keys included, so that
// their counts cover the same windows as one replay's), and the keys still
// live are settled up to the start of the last window. It runs once;
// nothing may be added after it.
func (w *worker) closeState(offeredEnd int64) {
	if w.stateClosed {
		return
	}
	w.stateClosed = true
	for _, g := range w.groups {
		g.requests.cover(offeredEnd) // the runs' timelines are its bins and their disagreements
		g.win.cover(offeredEnd)
	}
	for id := range w.keys.size() {
		st := w.keys.at(int32(id))
		if !st.live {
			continue
		}
		row := w.rows.row(int32(id))
		for _, g := range w.groups {
			if g.win.n > 0 {
				g.settle(row[g.base:], int32(id), st.from, g.win.lastStart())
			}
		}
		st.from = 1<<63 - 1
	}
}

// releaserOf returns lim's idle test, nil if it has none (its keys are
// then counted as holding state at every window start after their first
// request).
func releaserOf(lim algorithms.Limiter) algorithms.Releaser {
	r, _ := lim.(algorithms.Releaser)
	return r
}
