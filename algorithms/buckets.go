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
	st   PerKey[uint32] // N+3 values per key, narrow (cells.go): its sub-window's number (win), its sum and its N+1 counters; sum cellWide32: the state is in wide
	win  windows
	wide wideStates[*bucketsWide]
}

// bucketsHeader is the part of a key's state besides its counters. The zero
// value, with every counter zero, is the initial state.
type bucketsHeader struct {
	s   int64 // sub-window of the last request seen
	sum int64 // cost in sub-windows s-N+1..s
}

// bucketsWide is a key's state that does not fit its cell.
type bucketsWide struct {
	h bucketsHeader
	c []int64
}

// bucketsKey is a key's state as Buckets' methods work on it (load, then
// keep): its header, and its counters in its cell or in the wide table.
type bucketsKey struct {
	h   bucketsHeader
	row []uint32     // the key's cell: [0] its sub-window's number, [1] its sum, then its counters
	w   *bucketsWide // its state in the wide table; nil while it is in the cell
}

// count returns the key's counter i.
func (k *bucketsKey) count(i int64) int64 {
	if k.w != nil {
		return k.w.c[i]
	}
	return int64(k.row[2+i])
}

// MaxBuckets bounds N, so that a key's state stays small.
const MaxBuckets = 1 << 16

// NewBuckets returns the N-sub-window limiter for rule r. N must be in
// [1, MaxBuckets] and at most W in nanoseconds (so that t*N/W fits int64).
func NewBuckets(r Rule, n int64) (*Buckets, error) {
	if n < 1 || n > MaxBuckets || n > r.W {
		return nil, fmt.Errorf("buckets:%d: N must be between 1 and %d (and at most W in ns)", n, MaxBuckets)
	}
	return &Buckets{rule: r, n: n, st: NewPerKey[uint32](int(n + 3))}, nil
}

func (b *Buckets) Name() string { return "buckets:" + itoa(b.n) }

func (b *Buckets) Grow(n int) { b.st.Grow(n) }

func (b *Buckets) Bytes(int32) int64  { return 8 * (b.n + 2) }
func (*Buckets) FixedSize() bool      { return true }
func (*Buckets) CountsRejected() bool { return true }

// SubWindow returns the sub-window s = floor(t*N/W) that time t >= 0 falls
// in and the remainder t*N - s*W in [0, W): exact, W/N never rounded.
func (b *Buckets) SubWindow(t int64) (s, rem int64) {
	s, rem, _ = DivMod(t, b.n, b.rule.W) // t < 2^63 and N <= W: fits
	return s, rem
}

// load returns key id's state.
func (b *Buckets) load(id int32) bucketsKey {
	row := b.st.Row(id)
	if row[1] == cellWide32 {
		w := b.wide.m[id]
		return bucketsKey{h: w.h, row: row, w: w}
	}
	return bucketsKey{h: bucketsHeader{s: b.win.decode(row[0]), sum: int64(row[1])}, row: row}
}

// advance rolls k's counters forward to sub-window s.
func (b *Buckets) advance(k *bucketsKey, s int64) {
	if k.w != nil {
		advanceCounts(&k.h, k.w.c, s, b.n)
		return
	}
	advanceCounts(&k.h, k.row[2:], s, b.n)
}

// add adds cost to k's counter i and sum.
func (b *Buckets) add(id int32, k *bucketsKey, i, cost int64) {
	k.h.sum = SatAdd(k.h.sum, cost)
	if k.w == nil {
		if v := SatAdd(int64(k.row[2+i]), cost); b.wide.fits(uint64(v), cellWide32-1) {
			k.row[2+i] = uint32(v)
			return
		}
		b.toWide(id, k)
	}
	k.w.c[i] = SatAdd(k.w.c[i], cost)
}

// keep makes k's header key id's, in its cell if it fits there.
func (b *Buckets) keep(id int32, k *bucketsKey) {
	if k.w == nil {
		if v, ok := b.win.encode(k.h.s); ok && b.wide.fits(uint64(k.h.sum), cellWide32-1) {
			k.row[0], k.row[1] = v, uint32(k.h.sum)
			return
		}
		b.toWide(id, k)
	}
	k.w.h = k.h
	b.toCell(id, k)
}

// toWide moves key id's state, k, from its cell to the wide table.
func (b *Buckets) toWide(id int32, k *bucketsKey) {
	k.w = &bucketsWide{h: k.h, c: make([]int64, b.n+1)}
	for i, v := range k.row[2:] {
		k.w.c[i] = int64(v)
	}
	b.wide.put(id, k.w)
	k.row[1] = cellWide32
}

// toCell moves key id's state, k, from the wide table to its cell if it
// fits there now.
func (b *Buckets) toCell(id int32, k *bucketsKey) {
	v, ok := b.win.encode(k.h.s)
	if !ok || !b.wide.fits(uint64(k.h.sum), cellWide32-1) {
		return
	}
	for _, c := range k.w.c {
		if !b.wide.fits(uint64(c), cellWide32-1) {
			return
		}
	}
	for i, c := range k.w.c {
		k.row[2+i] = uint32(c)
	}
	k.row[0], k.row[1] = v, uint32(k.h.sum)
	delete(b.wide.m, id)
	k.w = nil
}

// advanceCounts rolls a key's counters c, whose header is h, forward to
// sub-window s of N.
func advanceCounts[T uint32 | int64](h *bucketsHeader, c []T, s, n int64) {
	m := n + 1
	steps := s - h.s
	if steps <= 0 {
		return
	}
	if steps > n {
		clear(c)
		h.s, h.sum = s, 0
		return
	}
	for j := h.s + 1; j <= s; j++ {
		c[j%m] = 0                 // the slot of sub-window j-N-1 now holds j
		h.sum -= int64(c[(j+1)%m]) // sub-window j-N (≡ j+1 mod N+1) leaves the sum: it is now the weighted one
	}
	h.s = s
}

func (b *Buckets) Decide(id int32, t, cost int64) bool {
	s, rem := b.SubWindow(t)
	k := b.load(id)
	b.advance(&k, s)
	b.keep(id, &k)
	old := k.count((s + 1) % (b.n + 1)) // sub-window s-N, in the slot after s's
	// Admits, inlined:
	return CounterLE(old, k.h.sum, rem, cost, b.rule.L, b.rule.W)
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
	k := b.load(id)
	b.advance(&k, s)
	b.add(id, &k, s%(b.n+1), cost)
	b.keep(id, &k)
}

// Estimate returns sum + c[s-N]*(1-x).
func (b *Buckets) Estimate(id int32, t int64) Rational {
	s, rem := b.SubWindow(t)
	k := b.load(id)
	b.advance(&k, s)
	b.keep(id, &k)
	return weighted(k.h.sum, k.count((s+1)%(b.n+1)), b.rule.W-rem, b.rule.W)
}
