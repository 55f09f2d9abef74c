package algorithms

import "math"

// The textbook limiters keep a key's state in their PerKey (and a
// replay's Block) at the size its values need, a cell, narrower than the
// state they decide on: a counter's, a fixed window's and buckets' window
// number (windows) and counts in 32 bits, a token bucket's deficit and a
// GCRA's theoretical arrival time in 64 (its remainder in 32). A limiter loads a key's state
// from its cell, decides on it exactly as before, and keeps it back
// (keep); a state that does not fit its cell (a count past 2^32-2, a
// window out of the numbers' span, a debt or a time past 2^64
// nanoseconds) is kept whole in the limiter's wide table, and its cell
// only says so. No decision depends on where a state is kept.

// wideStates holds the states of the keys whose cell cannot hold them, by
// key id. Its limit is the largest value a cell holds; the zero value is
// the cells' own (tests lower it, to see the wide table used).
type wideStates[S any] struct {
	m     map[int32]S
	limit uint64
}

// fits reports whether v fits a cell whose own limit is own.
func (w *wideStates[S]) fits(v, own uint64) bool {
	if w.limit != 0 {
		own = w.limit
	}
	return v <= own
}

// put keeps key id's state s.
func (w *wideStates[S]) put(id int32, s S) {
	if w.m == nil {
		w.m = map[int32]S{}
	}
	w.m[id] = s
}

// cellWide32 is the 32-bit value of a cell whose state is in its limiter's
// wide table; a cell's counts are below it.
const cellWide32 = math.MaxUint32

// counterCell is a Counter's state of a key, 12 bytes: the number of its
// window (Counter.win) and its counts in 32 bits. A state with a count
// past them, or a window out of the numbers' span, is in the Counter's
// wide table, curr then cellWide32.
type counterCell struct {
	win, prev, curr uint32
}

// load returns key id's cell and the state it stands for.
func (c *Counter) load(id int32) (*counterCell, CounterState) {
	k := c.st.At(id)
	if k.curr == cellWide32 {
		return k, c.wide.m[id]
	}
	return k, CounterState{Start: c.win.decode(k.win) * c.rule.W, Prev: int64(k.prev), Curr: int64(k.curr)}
}

// keep makes s key id's state, whose cell is k.
func (c *Counter) keep(id int32, k *counterCell, s CounterState) {
	if k.curr != cellWide32 && c.wide.fits(uint64(s.Prev|s.Curr), cellWide32-1) { // counts >= 0: the or is below 2^32 iff both are
		if win, ok := windowOf(&c.win, k.win, s.Start, c.rule.W); ok {
			*k = counterCell{win: win, prev: uint32(s.Prev), curr: uint32(s.Curr)}
			return
		}
	}
	c.keepWide(id, k, s)
}

// keepWide is keep's slow path: a state that leaves or enters the wide
// table, or stays there.
func (c *Counter) keepWide(id int32, k *counterCell, s CounterState) {
	if c.wide.fits(uint64(s.Prev), cellWide32-1) && c.wide.fits(uint64(s.Curr), cellWide32-1) {
		if win, ok := c.win.encode(s.Start / c.rule.W); ok {
			delete(c.wide.m, id)
			*k = counterCell{win: win, prev: uint32(s.Prev), curr: uint32(s.Curr)}
			return
		}
	}
	c.wide.put(id, s)
	*k = counterCell{curr: cellWide32}
}

// fixedCell is a Fixed's state of a key, 8 bytes: the number of its
// window (Fixed.win) and its count in 32 bits; as counterCell, curr
// cellWide32 when the state is in the wide table.
type fixedCell struct {
	win, curr uint32
}

// load returns key id's cell and the state it stands for.
func (f *Fixed) load(id int32) (*fixedCell, FixedState) {
	k := f.st.At(id)
	if k.curr == cellWide32 {
		return k, f.wide.m[id]
	}
	return k, FixedState{Start: f.win.decode(k.win) * f.rule.W, Curr: int64(k.curr)}
}

// keep makes s key id's state, whose cell is k.
func (f *Fixed) keep(id int32, k *fixedCell, s FixedState) {
	if k.curr != cellWide32 && f.wide.fits(uint64(s.Curr), cellWide32-1) {
		if win, ok := windowOf(&f.win, k.win, s.Start, f.rule.W); ok {
			*k = fixedCell{win: win, curr: uint32(s.Curr)}
			return
		}
	}
	f.keepWide(id, k, s)
}

// keepWide is keep's slow path.
func (f *Fixed) keepWide(id int32, k *fixedCell, s FixedState) {
	if f.wide.fits(uint64(s.Curr), cellWide32-1) {
		if win, ok := f.win.encode(s.Start / f.rule.W); ok {
			delete(f.wide.m, id)
			*k = fixedCell{win: win, curr: uint32(s.Curr)}
			return
		}
	}
	f.wide.put(id, s)
	*k = fixedCell{curr: cellWide32}
}

// windowOf returns the number in w of the window of W that starts at
// start, a multiple of W, given old, the number of the cell's window
// before: the same window or the next needs no division.
func windowOf(w *windows, old uint32, start, W int64) (uint32, bool) {
	k := w.decode(old)
	switch start {
	case k * W:
		return old, true
	case (k + 1) * W:
		return w.encode(k + 1)
	}
	return w.encode(start / W)
}

// tokenWide is the deficit of a token cell whose state is in its Token's
// wide table.
const tokenWide = math.MaxUint64

// tokenCell is a Token's state of a key, 16 bytes: its deficit times W in
// 64 bits (the state's X below 2^64-1) and the time of its last refill. A
// state whose deficit does not fit (a debt of many windows' tokens) is in
// the Token's wide table, x then tokenWide.
type tokenCell struct {
	x    uint64
	last int64
}

// load returns key id's cell and the state it stands for.
func (tk *Token) load(id int32) (*tokenCell, TokenState) {
	k := tk.st.At(id)
	if k.x == tokenWide {
		return k, tk.wide.m[id]
	}
	return k, TokenState{X: U128{Lo: k.x}, last: k.last}
}

// keep makes s key id's state, whose cell is k.
func (tk *Token) keep(id int32, k *tokenCell, s TokenState) {
	if k.x != tokenWide && s.X.Hi == 0 && tk.wide.fits(s.X.Lo, tokenWide-1) {
		*k = tokenCell{x: s.X.Lo, last: s.last}
		return
	}
	tk.keepWide(id, k, s)
}

// keepWide is keep's slow path.
func (tk *Token) keepWide(id int32, k *tokenCell, s TokenState) {
	if s.X.Hi == 0 && tk.wide.fits(s.X.Lo, tokenWide-1) {
		delete(tk.wide.m, id)
		*k = tokenCell{x: s.X.Lo, last: s.last}
		return
	}
	tk.wide.put(id, s)
	*k = tokenCell{x: tokenWide}
}

// tatCell is a GCRA's state of a key, 12 bytes: its TAT's whole
// nanoseconds in 64 bits (TAT.Q's high word 0), as two 32-bit halves, and
// its remainder (below L) in 32. A TAT past 2^64 ns, or a remainder past
// 2^32-2, is in the GCRA's wide table, r then cellWide32.
type tatCell struct {
	qlo, qhi, r uint32
}

// load returns key id's cell and the TAT it stands for.
func (g *GCRA) load(id int32) (*tatCell, TAT) {
	k := g.st.At(id)
	if k.r == cellWide32 {
		return k, g.wide.m[id]
	}
	return k, TAT{Q: U128{Lo: uint64(k.qhi)<<32 | uint64(k.qlo)}, R: int64(k.r)}
}

// keep makes v key id's TAT, whose cell is k.
func (g *GCRA) keep(id int32, k *tatCell, v TAT) {
	if k.r != cellWide32 && g.fits(v) {
		*k = tatCell{qlo: uint32(v.Q.Lo), qhi: uint32(v.Q.Lo >> 32), r: uint32(v.R)}
		return
	}
	g.keepWide(id, k, v)
}

// fits reports whether v fits a cell.
func (g *GCRA) fits(v TAT) bool {
	return v.Q.Hi == 0 && g.wide.fits(v.Q.Lo, math.MaxUint64) && uint64(v.R) < cellWide32
}

// keepWide is keep's slow path.
func (g *GCRA) keepWide(id int32, k *tatCell, v TAT) {
	if g.fits(v) {
		delete(g.wide.m, id)
		*k = tatCell{qlo: uint32(v.Q.Lo), qhi: uint32(v.Q.Lo >> 32), r: uint32(v.R)}
		return
	}
	g.wide.put(id, v)
	*k = tatCell{r: cellWide32}
}

// windows numbers windows (a window's start over W, a sub-window's
// index) in 32 bits for a limiter's cells: window 0, every cell's initial
// state, is 0; another window k is k - base, in [1, limit], base set by
// the first such window encoded, 2^31 windows before it, so that a
// replay's windows fit whatever their epoch. A window out of that span
// does not fit: its state goes to the wide table.
type windows struct {
	base  int64
	based bool
	limit uint32 // the largest number; 0 means 2^32-1 (tests lower it)
}

// encode returns window k's number (k >= 0), false if it has none.
func (w *windows) encode(k int64) (uint32, bool) {
	if k == 0 {
		return 0, true
	}
	if !w.based {
		w.base, w.based = k-1<<31, true
	}
	lim := int64(math.MaxUint32)
	if w.limit != 0 {
		lim = int64(w.limit)
	}
	if v := k - w.base; v >= 1 && v <= lim {
		return uint32(v), true
	}
	return 0, false
}

// decode returns the window numbered v.
func (w *windows) decode(v uint32) int64 {
	if v == 0 {
		return 0
	}
	return int64(v) + w.base
}
