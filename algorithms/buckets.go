package algorithms

import "fmt"

// Buckets is the sliding window over N sub-windows of width W/N (docs/definitions.md §9).
// With s = floor(t*N/W) the sub-window of t and x = (t*N - s*W)/W the
// fraction of it elapsed (exact rationals: W/N is never rounded to whole
// nanoseconds), the estimate is the cost recorded in sub-windows s-N+1..s
// plus the cost of sub-window s-N weighted by (1-x). A request is admitted
// iff estimate + cost <= L, compared exactly:
//
//	(sum + cost)*W + c[s-N]*(W - (t*N - s*W)) <= L*W
//
// Buckets with N = 1 decides exactly as Counter. As N grows it approaches
// the log: it is the precision/memory trade-off between the two.
//
// Memory: N+1 counters and the current sub-window index, 8*(N+2) bytes per
// key.
type Buckets struct {
	rule Rule
	n    int64
	hdr  PerKey[bucketsHeader]
	c    PerKey[uint32]      // N+1 counters per key, narrow (cells.go); c[0] cellWide32: they are in wide
	wide wideStates[[]int64] // the counters of the keys with one past 32 bits
}

// bucketsHeader is the part of a key's state besides its counters. The zero
// value, with every counter zero, is the initial state.
type bucketsHeader struct {
	s   int64 // sub-window of the last request seen
	sum int64 // cost in sub-windows s-N+1..s
}

// MaxBuckets bounds N, so that a key's state stays small.
const MaxBuckets = 1 << 16

// NewBuckets returns the N-sub-window limiter for rule r. N must be in
// [1, MaxBuckets] and at most W in nanoseconds (so that t*N/W fits int64).
func NewBuckets(r Rule, n int64) (*Buckets, error) {
	if n < 1 || n > MaxBuckets || n > r.W {
		return nil, fmt.Errorf("buckets:%d: N must be between 1 and %d (and at most W in ns)", n, MaxBuckets)
	}
	return &Buckets{rule: r, n: n, c: NewPerKey[uint32](int(n + 1))}, nil
}

func (b *Buckets) Name() string { return "buckets:" + itoa(b.n) }

func (b *Buckets) Grow(n int) {
	b.hdr.Grow(n)
	b.c.Grow(n)
}

func (b *Buckets) Bytes(int32) int64  { return 8 * (b.n + 2) }
func (*Buckets) FixedSize() bool      { return true }
func (*Buckets) CountsRejected() bool { return true }

// SubWindow returns the sub-window s = floor(t*N/W) that time t >= 0 falls
// in and the remainder t*N - s*W in [0, W): exact, W/N never rounded.
func (b *Buckets) SubWindow(t int64) (s, rem int64) {
	s, rem, _ = DivMod(t, b.n, b.rule.W) // t < 2^63 and N <= W: fits
	return s, rem
}

// advance rolls key id's counters forward to sub-window s, returning them:
// in its cell (c), or in the wide table (wc, nil while they are in the
// cell).
func (b *Buckets) advance(id int32, s int64) (h *bucketsHeader, c []uint32, wc []int64) {
	h = b.hdr.At(id)
	c = b.c.Row(id)
	if c[0] != cellWide32 {
		advanceCounts(h, c, s, b.n)
		return h, c, nil
	}
	wc = b.wide.m[id]
	if advanceCounts(h, wc, s, b.n) && b.fitCell(wc) { // back to the cell
		for i, v := range wc {
			c[i] = uint32(v)
		}
		delete(b.wide.m, id)
		return h, c, nil
	}
	return h, c, wc
}

// fitCell reports whether the counters wc fit a cell.
func (b *Buckets) fitCell(wc []int64) bool {
	for _, v := range wc {
		if !b.wide.fits(uint64(v), cellWide32-1) {
			return false
		}
	}
	return true
}

// count returns counter i of a key's counters (see advance).
func count(c []uint32, wc []int64, i int64) int64 {
	if wc != nil {
		return wc[i]
	}
	return int64(c[i])
}

// advanceCounts rolls a key's counters c, whose header is h, forward to
// sub-window s of N, and reports whether it moved.
func advanceCounts[T uint32 | int64](h *bucketsHeader, c []T, s, n int64) bool {
	m := n + 1
	steps := s - h.s
	if steps <= 0 {
		return false
	}
	if steps > n {
		clear(c)
		h.s, h.sum = s, 0
		return true
	}
	for j := h.s + 1; j <= s; j++ {
		c[j%m] = 0                 // the slot of sub-window j-N-1 now holds j
		h.sum -= int64(c[(j+1)%m]) // sub-window j-N (≡ j+1 mod N+1) leaves the sum: it is now the weighted one
	}
	h.s = s
	return true
}

func (b *Buckets) Decide(id int32, t, cost int64) bool {
	s, rem := b.SubWindow(t)
	h, c, wc := b.advance(id, s)
	old := count(c, wc, (s+1)%(b.n+1)) // sub-window s-N, in the slot after s's
	// Admits, inlined:
	return CounterLE(old, h.sum, rem, cost, b.rule.L, b.rule.W)
}

// Admits is b's decision for a request of cost in a sub-window s with
// remainder rem (see SubWindow), given sum, the cost recorded in
// sub-windows s-N+1..s, and old, that of s-N (all >= 0): Decide on a key's
// own counts, exactly: (sum+cost)*W + old*(W-rem) <= L*W, the counter's
// rule with a sub-window for the window.
func (b *Buckets) Admits(sum, old, rem, cost int64) bool {
	return CounterLE(old, sum, rem, cost, b.rule.L, b.rule.W)
}

func (b *Buckets) Record(id int32, t, cost int64) {
	s, _ := b.SubWindow(t)
	h, c, wc := b.advance(id, s)
	i := s % (b.n + 1)
	h.sum = SatAdd(h.sum, cost)
	if wc != nil {
		wc[i] = SatAdd(wc[i], cost)
		return
	}
	if v := SatAdd(int64(c[i]), cost); b.wide.fits(uint64(v), cellWide32-1) {
		c[i] = uint32(v)
	} else { // to the wide table
		wc = make([]int64, len(c))
		for j, n := range c {
			wc[j] = int64(n)
		}
		wc[i] = v
		b.wide.put(id, wc)
		c[0] = cellWide32
	}
}

// Estimate returns sum + c[s-N]*(1-x).
func (b *Buckets) Estimate(id int32, t int64) Rational {
	s, rem := b.SubWindow(t)
	h, c, wc := b.advance(id, s)
	return weighted(h.sum, count(c, wc, (s+1)%(b.n+1)), b.rule.W-rem, b.rule.W)
}
