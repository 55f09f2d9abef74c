package algorithms

import "math/bits"

// CounterState is one key's pair of fixed-window counts. The zero value is
// the initial state: both windows empty.
type CounterState struct {
	Start int64 // w(t)*W for the last request seen: the start of the window curr counts
	Prev  int64 // cost recorded in the window before
	Curr  int64 // cost recorded in the window starting at start
}

// Advance rolls the state forward to the window w(t) = floor(t/W) and
// returns e = t - w(t)*W, the time elapsed in it. The window is kept by its
// start time, so that a request in the same window as the key's last one,
// or in the next, needs no division: t is in window start/W iff
// 0 <= t-start < W.
func (s *CounterState) Advance(t, W int64) int64 {
	e := t - s.Start
	if e >= 0 {
		if e < W {
			return e
		}
		if e -= W; e < W { // the next window
			s.Prev, s.Curr, s.Start = s.Curr, 0, s.Start+W
			return e
		}
	}
	return s.jump(t, W)
}

// jump is advance's slow path: t is neither in the key's window nor in the
// next one (it is later, or earlier), so both counts start over.
func (s *CounterState) jump(t, W int64) int64 {
	s.Prev, s.Curr, s.Start = 0, 0, t/W*W
	return t - s.Start
}

// Idle reports whether the state at t, no earlier than the window of the
// key's last request, is the initial one: the two counts that advance(t)
// would leave are both 0. The counts are those recorded, so a request
// refused and not recorded (it only moved start) holds nothing: the key is
// Idle once the window after the last one with a recorded cost has passed,
// not two windows after its last request. It reads the state without
// advancing it.
func (s CounterState) Idle(t, W int64) bool {
	switch d := t - s.Start; {
	case s.Prev == 0 && s.Curr == 0:
		return true
	case d < W: // the same window (or, against the contract, an earlier one)
		return false
	case d-W < W: // the next window: curr becomes the previous count
		return s.Curr == 0
	}
	return true // both windows read at t are later than start's
}

// FixedState is one key's fixed-window count, kept as counterState's
// without prev. The zero value is the initial state.
type FixedState struct {
	Start int64 // w(t)*W for the last request seen
	Curr  int64 // cost recorded in the window starting at start
}

// Advance rolls the state forward to the window of t, as counterState's.
func (s *FixedState) Advance(t, W int64) {
	if e := t - s.Start; e >= 0 && e < W {
		return
	}
	s.Curr, s.Start = 0, t/W*W
}

// Idle reports whether the state at t, no earlier than the window of the
// key's last request, is the initial one: t is in a later window than
// start's, or nothing is recorded in start's.
func (s FixedState) Idle(t, W int64) bool { return s.Curr == 0 || t-s.Start >= W }

// admitRule is how a sliding-window counter variant compares its estimate
// with the limit. e is the time elapsed in the current window.
type admitRule int

const (
	// admitLE is docs/definitions.md §5: prev*(W-e)/W + curr + cost <= L.
	admitLE admitRule = iota
	// admitLT is §5.1 (a common Redis snippet): prev*(W-e)/W + curr < L,
	// whatever the cost.
	admitLT
	// admitFloor is §5.2 (Upstash): floor(prev*(W-e)/W) + curr + cost <= L.
	admitFloor
)

// Counter is the sliding window counter and its variants found in real
// libraries (docs/definitions.md §5): two fixed-window counts, the previous one
// weighted by the part of it still inside the sliding window,
// E = prev*(W-e)/W + curr. The variants differ only in how E is compared
// with L.
//
// Memory: the two counts and the window index, 24 bytes per key.
type Counter struct {
	rule  Rule
	admit admitRule
	st    PerKey[counterCell] // each key's CounterState, narrow (cells.go)
	win   windows             // the numbers of its cells' windows
	wide  wideStates[CounterState]
}

// NewCounter returns the sliding window counter, admitting iff E+cost <= L.
func NewCounter(r Rule) *Counter { return &Counter{rule: r, admit: admitLE} }

// NewCounterLT returns the variant admitting iff E < L.
func NewCounterLT(r Rule) *Counter { return &Counter{rule: r, admit: admitLT} }

// NewCounterFloor returns the variant admitting iff floor(prev*(W-e)/W) +
// curr + cost <= L.
func NewCounterFloor(r Rule) *Counter { return &Counter{rule: r, admit: admitFloor} }

func (c *Counter) Name() string {
	switch c.admit {
	case admitLT:
		return "counter-lt"
	case admitFloor:
		return "counter-floor"
	}
	return "counter"
}

func (c *Counter) Grow(n int)         { c.st.Grow(n) }
func (*Counter) Bytes(int32) int64    { return 24 }
func (*Counter) FixedSize() bool      { return true }
func (*Counter) CountsRejected() bool { return true }

func (c *Counter) Decide(id int32, t, cost int64) bool {
	W, L := c.rule.W, c.rule.L
	k, s := c.load(id)
	e := s.Advance(t, W)
	c.keep(id, k, s)
	switch c.admit { // as Admits, with the rules inlined
	case admitLT:
		return CounterLT(s.Prev, s.Curr, e, L, W)
	case admitFloor:
		return CounterFloor(s.Prev, s.Curr, e, cost, L, W)
	}
	return CounterLE(s.Prev, s.Curr, e, cost, L, W)
}

// Admits is c's decision for a request of cost at time e into its fixed
// window (0 <= e < W), given the cost recorded in the previous window, prev,
// and in the current one, curr (all >= 0): Decide on a key's own counts,
// exactly. A simulation that keeps the two counts elsewhere (package
// distributed, the non-atomic Redis counter) decides by it.
func (c *Counter) Admits(prev, curr, e, cost int64) bool {
	W, L := c.rule.W, c.rule.L
	switch c.admit {
	case admitLT:
		return CounterLT(prev, curr, e, L, W)
	case admitFloor:
		return CounterFloor(prev, curr, e, cost, L, W)
	}
	return CounterLE(prev, curr, e, cost, L, W)
}

// The three admission rules of the counter, exact in 128 bits. They are
// written with math/bits rather than u128 to stay within the inliner's
// budget: Decide (and Buckets.Decide) inline them.

// CounterLE is docs/definitions.md §5: prev*(W-e) + (curr+cost)*W <= L*W. curr+cost is
// below 2^64 (both are below 2^63), so every sum is exact.
func CounterLE(prev, curr, e, cost, L, W int64) bool {
	ph, pl := bits.Mul64(uint64(prev), uint64(W-e))
	ch, cl := bits.Mul64(uint64(curr)+uint64(cost), uint64(W))
	lo, c := bits.Add64(pl, cl, 0)
	hi := ph + ch + c
	lh, ll := bits.Mul64(uint64(L), uint64(W))
	return hi < lh || hi == lh && lo <= ll
}

// CounterLT is docs/definitions.md §5.1: prev*(W-e) + curr*W < L*W, whatever the cost.
func CounterLT(prev, curr, e, L, W int64) bool {
	ph, pl := bits.Mul64(uint64(prev), uint64(W-e))
	ch, cl := bits.Mul64(uint64(curr), uint64(W))
	lo, c := bits.Add64(pl, cl, 0)
	hi := ph + ch + c
	lh, ll := bits.Mul64(uint64(L), uint64(W))
	return hi < lh || hi == lh && lo < ll
}

// CounterFloor is docs/definitions.md §5.2: floor(prev*(W-e)/W) + curr + cost <= L.
func CounterFloor(prev, curr, e, cost, L, W int64) bool {
	q, _, _ := DivMod(prev, W-e, W) // <= prev: always fits
	return cost <= L && q <= L-cost && curr <= L-cost-q
}

func (c *Counter) Record(id int32, t, cost int64) {
	k, s := c.load(id)
	s.Advance(t, c.rule.W)
	s.Curr = SatAdd(s.Curr, cost)
	c.keep(id, k, s)
}

// Estimate returns E = prev*(W-e)/W + curr (for counter-floor, with the
// weighted part rounded down, as it decides).
func (c *Counter) Estimate(id int32, t int64) Rational {
	W := c.rule.W
	_, s := c.load(id)
	e := t - s.Start
	E := weighted(s.Curr, s.Prev, W-e, W)
	if c.admit == admitFloor {
		E.Frac, E.Den = 0, 1
	}
	return E
}

// Fixed is the fixed window (docs/definitions.md §6): admit iff curr+cost <= L, where curr
// is the cost recorded in w(t).
//
// Memory: the count and the window index, 16 bytes per key.
type Fixed struct {
	rule Rule
	st   PerKey[fixedCell] // each key's FixedState, narrow (cells.go)
	win  windows           // the numbers of its cells' windows
	wide wideStates[FixedState]
}

// NewFixed returns the fixed window limiter for rule r.
func NewFixed(r Rule) *Fixed { return &Fixed{rule: r} }

func (*Fixed) Name() string         { return "fixed" }
func (f *Fixed) Grow(n int)         { f.st.Grow(n) }
func (*Fixed) Bytes(int32) int64    { return 16 }
func (*Fixed) FixedSize() bool      { return true }
func (*Fixed) CountsRejected() bool { return true }

func (f *Fixed) Decide(id int32, t, cost int64) bool {
	k, s := f.load(id)
	s.Advance(t, f.rule.W)
	f.keep(id, k, s)
	return f.Admits(s.Curr, cost)
}

// Admits is f's decision for a request of cost given the cost recorded in
// its fixed window, curr (>= 0): Decide on a key's own count.
func (f *Fixed) Admits(curr, cost int64) bool { return cost <= f.rule.L-curr }

func (f *Fixed) Record(id int32, t, cost int64) {
	k, s := f.load(id)
	s.Advance(t, f.rule.W)
	s.Curr = SatAdd(s.Curr, cost)
	f.keep(id, k, s)
}

// Estimate returns curr, the fixed window's view of the window's cost.
func (f *Fixed) Estimate(id int32, _ int64) Rational {
	_, s := f.load(id)
	return Whole(s.Curr)
}
