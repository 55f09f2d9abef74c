package algorithms

import "time"

// RetryAfterer is implemented by the limiters that can tell a refused client
// when to come back: the value of an HTTP Retry-After header, exact to the
// nanosecond.
//
// Every limiter of this package is monotone: with nothing more recorded for
// a key, a request admitted at time r is admitted at every later time (the
// log's entries only expire, a counter's estimate only decays, a bucket only
// refills). The earliest admission time is therefore a threshold: retrying
// exactly at r is admitted, retrying 1 ns earlier is refused.
type RetryAfterer interface {
	// RetryAfter returns the earliest time r >= t at which a request of the
	// given cost by key id would be admitted if nothing else arrived (no
	// other request recorded for the key), after Decide(id, t, cost)
	// refused it. ok is false when no such time exists (cost > L, or > B),
	// or when it lies beyond the largest int64 nanosecond.
	//
	// It only reads the state: it may be called whether Decide admitted (r
	// is then t) or refused, and with t later than the key's last Decide,
	// and it changes no later decision.
	RetryAfter(id int32, t, cost int64) (r int64, ok bool)
}

// RoundUpSeconds returns the delay from t to r in whole seconds, rounded up:
// the delay-seconds value of an HTTP Retry-After header (RFC 9110, 10.2.3),
// which cannot carry nanoseconds. Rounding up keeps the header safe: since
// the limiters are monotone, a client retrying at t + RoundUpSeconds(t, r)
// seconds is admitted, whereas rounding down or to nearest may send it back
// before r, to be refused again. It is 0 when r <= t.
func RoundUpSeconds(t, r int64) int64 {
	if r <= t {
		return 0
	}
	const second = 1_000_000_000
	return (r-t-1)/second + 1
}

// addTime returns a+b for a, b >= 0; ok is false when the sum overflows.
func addTime(a, b int64) (int64, bool) {
	s := a + b
	return s, s >= a
}

// mulAddTime returns a*b+c for a, b, c >= 0; ok is false when it overflows.
func mulAddTime(a, b, c int64) (int64, bool) {
	p := Mul(a, b).AddInt(c)
	if p.Hi != 0 || p.Lo > 1<<63-1 {
		return 0, false
	}
	return int64(p.Lo), true
}

// minElapsed returns the smallest e in [0, W] with p*(W-e) <= k*W, or with
// p*(W-e) < k*W when strict, for p, k >= 0. A result of W (or more, when
// strict) means no e in [0, W) satisfies it.
func minElapsed(p, k, W int64, strict bool) int64 {
	if p == 0 {
		if strict && k == 0 {
			return W + 1
		}
		return 0
	}
	// W-e <= floor(k*W/p), or W-e <= ceil(k*W/p) - 1 when strict.
	q, rem, ok := DivMod(k, W, p)
	if !ok {
		return 0
	}
	if strict {
		if rem > 0 {
			q++
		}
		q--
	}
	if q >= W {
		return 0
	}
	return W - q
}

// RetryAfter returns the time the oldest entries have expired enough for
// cost to fit: an entry at time ts leaves the window (r-W, r] at r = ts+W.
func (l *Log) RetryAfter(id int32, t, cost int64) (int64, bool) {
	if cost > l.rule.L {
		return 0, false
	}
	e := l.e.Key(id)
	excess := e.Sum() - (l.rule.L - cost)
	if excess <= 0 {
		return t, true
	}
	ts, ok := e.coveredAt(excess)
	if !ok {
		return 0, false // unreachable: the entries hold Sum > excess
	}
	r, ok := addTime(ts, l.rule.W)
	return max(r, t), ok
}

// coveredAt returns the time of the oldest entry such that the entries up
// to and including it hold at least need cost; ok is false when all of them
// hold less.
func (w *WindowSum) coveredAt(need int64) (int64, bool) {
	mask := len(w.ts) - 1
	if w.costs == nil { // every cost is 1: the need-th oldest entry
		switch {
		case w.n == 0 || need > int64(w.n):
			return 0, false
		case need < 1:
			need = 1
		}
		return w.ts[(w.head+int(need)-1)&mask], true
	}
	var acc int64
	for i := 0; i < w.n; i++ {
		j := (w.head + i) & mask
		c := int64(1)
		if w.costs != nil {
			c = w.costs[j]
		}
		acc += c
		if acc >= need {
			return w.ts[j], true
		}
	}
	return 0, false
}

// countsIn returns the (prev, curr) counts the state would have in window
// k >= its own (start/W) if nothing more were recorded.
func (s CounterState) countsIn(k, W int64) (prev, curr int64) {
	switch k - s.Start/W {
	case 0:
		return s.Prev, s.Curr
	case 1:
		return s.Curr, 0
	}
	return 0, 0
}

// RetryAfter solves the variant's admission inequality for the elapsed time
// e, window by window: in the current window with (prev, curr), in the next
// one where the counts have shifted to (curr, 0), and in the one after,
// where both are zero.
func (c *Counter) RetryAfter(id int32, t, cost int64) (int64, bool) {
	W, L := c.rule.W, c.rule.L
	if cost > L && c.admit != admitLT {
		return 0, false // counter-lt ignores the cost: E < L eventually holds
	}
	_, s := c.load(id)
	wt := t / W
	last := max(wt, s.Start/W+2) // from its window+2 on, both counts are zero
	for k := wt; k <= last; k++ {
		prev, curr := s.countsIn(k, W)
		var e int64
		switch c.admit {
		case admitLT: // prev*(W-e) < (L-curr)*W
			if curr >= L {
				continue
			}
			e = minElapsed(prev, L-curr, W, true)
		case admitFloor: // floor(prev*(W-e)/W) <= L-cost-curr, i.e. prev*(W-e) < (L-cost-curr+1)*W
			if curr > L-cost {
				continue
			}
			e = minElapsed(prev, L-cost-curr+1, W, true)
		default: // prev*(W-e) <= (L-cost-curr)*W
			if curr > L-cost {
				continue
			}
			e = minElapsed(prev, L-cost-curr, W, false)
		}
		if k == wt {
			e = max(e, t-wt*W)
		}
		if e < W {
			return mulAddTime(k, W, e)
		}
	}
	return 0, false // unreachable: with both counts zero every variant admits at e = 0
}

// RetryAfter is t if the request fits in the current window, else the start
// of the next one.
func (f *Fixed) RetryAfter(id int32, t, cost int64) (int64, bool) {
	W, L := f.rule.W, f.rule.L
	if cost > L {
		return 0, false
	}
	_, s := f.load(id)
	wt := t / W
	if wt != s.Start/W || s.Curr <= L-cost { // a later window counts nothing yet
		return t, true
	}
	return mulAddTime(wt+1, W, 0)
}

// RetryAfter returns the time the bucket has refilled to cost tokens. With
// the deficit D = B - tokens at the last refill, that is the least r with
// D*W - (r-last)*L <= (B-cost)*W: r = last + ceil(((D-(B-cost))*W)/L).
func (tk *Token) RetryAfter(id int32, t, cost int64) (int64, bool) {
	if cost > tk.b {
		return 0, false
	}
	_, s := tk.load(id)
	if s.Fits(tk.b, cost, tk.rule) {
		return t, true
	}
	need := s.X.Minus(Mul(tk.b-cost, tk.rule.W)) // D >= B-cost >= 0
	dt, ok := need.QuoCeil(tk.rule.L)
	if !ok {
		return 0, false
	}
	r, ok := addTime(s.last, dt)
	return max(r, t), ok
}

// RetryAfter returns the least r with max(TAT-r, 0)*L <= (B-cost)*W.
func (g *GCRA) RetryAfter(id int32, t, cost int64) (int64, bool) {
	if cost > g.b {
		return 0, false
	}
	_, v := g.load(id)
	return v.retryAfter(t, g.b-cost, g.rule)
}

// RetryAfter walks the sub-windows from the key's current one: in each, the
// counts shift as they would with nothing more recorded, the inequality
// (sum + cost)*W + old*(W - rem) <= L*W is solved for rem = t*N - s*W, and
// the first time whose rem reaches the bound is the answer. After N+1
// sub-windows every count is zero.
func (b *Buckets) RetryAfter(id int32, t, cost int64) (int64, bool) {
	W, L, N := b.rule.W, b.rule.L, b.n
	if cost > L {
		return 0, false
	}
	m := N + 1
	key := b.load(id)
	h := key.h
	st, _ := b.SubWindow(t)
	sum := h.sum
	for k := int64(0); k <= N+1; k++ {
		sp := h.s + k
		var old int64 // cost of sub-window sp-N, weighted by 1-x
		if k <= N {
			old = key.count((h.s + 1 + k) % m) // sub-window h.s+k-N ≡ h.s+k+1 (mod N+1)
		}
		if k > 0 {
			sum -= old // sub-window sp-N left the full sum, now weighted
		}
		if sp < st || sum > L-cost {
			continue
		}
		rem := minElapsed(old, L-cost-sum, W, false)
		if rem >= W {
			continue
		}
		// The least x with x*N >= sp*W + rem, if it is still in sp.
		x, ok := Mul(sp, W).AddInt(rem).QuoCeil(N)
		if !ok {
			return 0, false
		}
		x = max(x, t)
		if xs, _ := b.SubWindow(x); xs == sp {
			return x, true
		}
	}
	return t, true // t is more than N+1 sub-windows past the state: all counts are zero
}

// RetryAfter returns the earliest time the library would admit the
// request if nothing else arrived: its own answer, float64 arithmetic and
// all (the exact one is Token's). The library's admission only grows with
// time while nothing is recorded (its tokens refill), so the boundary is
// found by doubling a bound from t, then bisecting: about 2·log2(wait)
// evaluations of its admission test, none of which changes its state.
func (x *XRate) RetryAfter(id int32, t, cost int64) (int64, bool) {
	if cost > x.b {
		return 0, false
	}
	k := &x.keys[id]
	admits := func(at int64) bool { return allowsN(&k.lim, x.limit, time.Unix(0, at), cost, x.b) }
	if admits(t) {
		return t, true
	}
	lo, step := t, int64(1) // lo is refused
	hi := t + step
	for !admits(hi) {
		lo = hi
		if step > (1<<62)/2 || hi > 1<<62 {
			return 0, false
		}
		step *= 2
		hi = t + step
	}
	for hi-lo > 1 { // lo refused, hi admitted
		mid := lo + (hi-lo)/2
		if admits(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi, true
}
