package algorithms

import "math/bits"

// tat is a virtual time: GCRA's theoretical arrival time and the leaky
// bucket's finishing time, q + r/L nanoseconds exactly (0 <= r < L), so
// that W/L is never rounded to whole nanoseconds. It runs ahead of the
// requests' times by the backlog recorded (cost*W/L per cost unit), so
// near the end of int64 time (2262) it lies beyond the largest int64
// nanosecond: its whole part is 128 bits wide. Saturating it there would
// forget the backlog and admit everything. It cannot wrap: that takes 2^34
// requests of MaxCost on a window of 2^63 ns with L = 1.
//
// The zero value (time 0, in the past of every request) has no backlog.
type tat struct {
	q u128
	r int64
}

// due reports whether the virtual time is at or before t: no backlog left.
func (v *tat) due(t int64) bool {
	return v.q.hi == 0 && (v.q.lo < uint64(t) || (v.q.lo == uint64(t) && v.r == 0))
}

// ahead returns the whole nanoseconds of v - t, for v > t (the fraction
// is v.r/L).
func (v *tat) ahead(t int64) u128 { return v.q.minus(u128{0, uint64(t)}) }

// fits reports whether max(v-t, 0)*L <= room*W, for room >= 0: the
// admission test of GCRA and of the leaky bucket. While v is below 2^64
// ns it has no branch on v: d = v-t and its fraction r/L, both 0 where
// v <= t (whence the borrow of q - t).
func (v *tat) fits(t, room int64, rl Rule) bool {
	if v.q.hi != 0 {
		return v.fitsWide(t, room, rl)
	}
	return v.fitsNarrow(t, room, rl)
}

// fitsNarrow is fits for v below 2^64 ns.
func (v *tat) fitsNarrow(t, room int64, rl Rule) bool {
	d, b := bits.Sub64(v.q.lo, uint64(t), 0)
	r := uint64(v.r)
	if b != 0 { // v < t: no backlog
		d, r = 0, 0
	}
	hi, lo := bits.Mul64(d, uint64(rl.L)) // (v-t)*L = d*L + r < 2^127
	lo, c := bits.Add64(lo, r, 0)
	rh, rlo := bits.Mul64(uint64(room), uint64(rl.W))
	return le128(hi+c, lo, rh, rlo)
}

// fitsWide is fits for v >= 2^64 ns (a backlog beyond 2262).
func (v *tat) fitsWide(t, room int64, rl Rule) bool {
	d := v.ahead(t)
	if d.hi == 0 { // (v-t)*L = d*L + r < 2^127
		hi, lo := bits.Mul64(d.lo, uint64(rl.L))
		return u128{hi, lo}.addInt(v.r).le(mul(room, rl.W))
	}
	// v-t >= 2^64 ns: compare with room*W/L = Q + R/L instead.
	Q, R := mul(room, rl.W).quoRemWide(rl.L)
	return d.lt(Q) || (d == Q && v.r <= R)
}

// push records cost units: v = max(v, t) + cost*W/L.
func (v *tat) push(t, cost int64, rl Rule) {
	q, r := mul(cost, rl.W).quoRemWide(rl.L)
	v.pushStep(t, q, r, rl.L)
}

// pushStep sets v = max(v, t) + q + r/L, for 0 <= r < L: push with the
// step cost*W/L already divided. While v is below 2^64 ns, max has no
// branch on v.
func (v *tat) pushStep(t int64, q u128, r, L int64) {
	if v.q.hi == 0 {
		d, b := bits.Sub64(v.q.lo, uint64(t), 0)
		if d|uint64(v.r) == 0 { // v = t exactly: due
			b = 1
		}
		lo, vr := v.q.lo, v.r
		if b != 0 {
			lo, vr = uint64(t), 0
		}
		v.q.lo, v.r = lo, vr
	}
	v.r += r
	if v.r >= L {
		v.r -= L
		q = q.addInt(1)
	}
	v.q = v.q.add(q)
}

// retryAfter returns the least x >= t with max(v-x, 0)*L <= room*W, for
// room >= 0; ok is false when x is beyond the largest int64 nanosecond.
// With room*W/L = Q + R/L, that is x >= v - Q - R/L: x = q - Q, plus 1
// when r > R.
func (v *tat) retryAfter(t, room int64, rl Rule) (int64, bool) {
	Q, R := mul(room, rl.W).quoRemWide(rl.L)
	if v.q.lt(Q) || v.q == Q && v.r <= R {
		return t, true
	}
	x := v.q.minus(Q)
	if v.r > R {
		x = x.addInt(1)
	}
	if x.hi != 0 || x.lo > 1<<63-1 {
		return 0, false
	}
	return max(int64(x.lo), t), true
}
