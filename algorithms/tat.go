package algorithms

import "math/bits"

// TAT is a virtual time: GCRA's theoretical arrival time and the leaky
// bucket's finishing time, q + r/L nanoseconds exactly (0 <= r < L), so
// that W/L is never rounded to whole nanoseconds. It runs ahead of the
// requests' times by the backlog recorded (cost*W/L per cost unit), so
// near the end of int64 time (2262) it lies beyond the largest int64
// nanosecond: its whole part is 128 bits wide. Saturating it there would
// forget the backlog and admit everything. It cannot wrap: that takes 2^34
// requests of MaxCost on a window of 2^63 ns with L = 1.
//
// The zero value (time 0, in the past of every request) has no backlog.
type TAT struct {
	Q U128
	R int64
}

// Due reports whether the virtual time is at or before t: no backlog left.
func (v *TAT) Due(t int64) bool {
	return v.Q.Hi == 0 && (v.Q.Lo < uint64(t) || (v.Q.Lo == uint64(t) && v.R == 0))
}

// Ahead returns the whole nanoseconds of v - t, for v > t (the fraction
// is v.r/L).
func (v *TAT) Ahead(t int64) U128 { return v.Q.Minus(U128{0, uint64(t)}) }

// Fits reports whether max(v-t, 0)*L <= room*W, for room >= 0: the
// admission test of GCRA and of the leaky bucket. While v is below 2^64
// ns it has no branch on v: d = v-t and its fraction r/L, both 0 where
// v <= t (whence the borrow of q - t).
func (v *TAT) Fits(t, room int64, rl Rule) bool {
	if v.Q.Hi != 0 {
		return v.fitsWide(t, room, rl)
	}
	return v.fitsNarrow(t, room, rl)
}

// fitsNarrow is fits for v below 2^64 ns.
func (v *TAT) fitsNarrow(t, room int64, rl Rule) bool {
	d, b := bits.Sub64(v.Q.Lo, uint64(t), 0)
	r := uint64(v.R)
	if b != 0 { // v < t: no backlog
		d, r = 0, 0
	}
	hi, lo := bits.Mul64(d, uint64(rl.L)) // (v-t)*L = d*L + r < 2^127
	lo, c := bits.Add64(lo, r, 0)
	rh, rlo := bits.Mul64(uint64(room), uint64(rl.W))
	return le128(hi+c, lo, rh, rlo)
}

// fitsWide is fits for v >= 2^64 ns (a backlog beyond 2262).
func (v *TAT) fitsWide(t, room int64, rl Rule) bool {
	d := v.Ahead(t)
	if d.Hi == 0 { // (v-t)*L = d*L + r < 2^127
		hi, lo := bits.Mul64(d.Lo, uint64(rl.L))
		return U128{hi, lo}.AddInt(v.R).Le(Mul(room, rl.W))
	}
	// v-t >= 2^64 ns: compare with room*W/L = Q + R/L instead.
	Q, R := Mul(room, rl.W).QuoRemWide(rl.L)
	return d.Lt(Q) || (d == Q && v.R <= R)
}

// Push records cost units: v = max(v, t) + cost*W/L.
func (v *TAT) Push(t, cost int64, rl Rule) {
	q, r := Mul(cost, rl.W).QuoRemWide(rl.L)
	v.pushStep(t, q, r, rl.L)
}

// pushStep sets v = max(v, t) + q + r/L, for 0 <= r < L: push with the
// step cost*W/L already divided. While v is below 2^64 ns, max has no
// branch on v.
func (v *TAT) pushStep(t int64, q U128, r, L int64) {
	if v.Q.Hi == 0 {
		d, b := bits.Sub64(v.Q.Lo, uint64(t), 0)
		if d|uint64(v.R) == 0 { // v = t exactly: due
			b = 1
		}
		lo, vr := v.Q.Lo, v.R
		if b != 0 {
			lo, vr = uint64(t), 0
		}
		v.Q.Lo, v.R = lo, vr
	}
	v.R += r
	if v.R >= L {
		v.R -= L
		q = q.AddInt(1)
	}
	v.Q = v.Q.Add(q)
}

// retryAfter returns the least x >= t with max(v-x, 0)*L <= room*W, for
// room >= 0; ok is false when x is beyond the largest int64 nanosecond.
// With room*W/L = Q + R/L, that is x >= v - Q - R/L: x = q - Q, plus 1
// when r > R.
func (v *TAT) retryAfter(t, room int64, rl Rule) (int64, bool) {
	Q, R := Mul(room, rl.W).QuoRemWide(rl.L)
	if v.Q.Lt(Q) || v.Q == Q && v.R <= R {
		return t, true
	}
	x := v.Q.Minus(Q)
	if v.R > R {
		x = x.AddInt(1)
	}
	if x.Hi != 0 || x.Lo > 1<<63-1 {
		return 0, false
	}
	return max(int64(x.Lo), t), true
}
