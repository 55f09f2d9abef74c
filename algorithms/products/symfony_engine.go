package products

import (
	"math"
	"time"

	"ratebench/algorithms"
)

// symfonyCore is Symfony's per-key state and the policies' arithmetic on
// one representation of the time: exact nanoseconds (deviation float off)
// or microtime's float64 seconds. now is the trace's time on the clock,
// in ns (floored to whole microseconds with the deviation clock on).
type symfonyCore interface {
	// decide reports whether the request is admitted, and whether the
	// component saves it counted (a fixed window's refusal at its end
	// instant).
	decide(id int32, now, cost int64) (admit, counted bool)
	// record saves the request, counted.
	record(id int32, now, cost int64)
	idle(id int32, now int64) bool
	release(id int32)
	grow(n int)
	place(b *algorithms.Block)
	warm(id int32) uint64
}

type symfonyNum interface{ ~int64 | ~float64 }

// symfonyState is a key's serialized state in the InMemoryStorage, and
// whether it holds one (live). a is the fixed window's and the token
// bucket's timer, the sliding window's windowEndAt; n the hitCount, or
// the tokens; last the sliding window's hitCountForLastWindow; exp the
// storage's expireAt.
type symfonyState[T symfonyNum] struct {
	a, exp  T
	n, last int64
	live    bool
}

// symfonyEngine is the policies' arithmetic in T: W, the refill interval
// and the token bucket's expiration time in T's unit, and what differs
// between exact integers and float64.
type symfonyEngine[T symfonyNum] struct {
	p              *Symfony
	L, amount      int64
	w, every, keep T
	at             func(now int64) T
	floorTo        func(x, w T) T                    // x's multiple of w: the epoch's window start
	cycles         func(elapsed, every T) (int64, T) // floor(elapsed/every), and that many intervals
	trunc          func(d T) T                       // d's whole seconds, toward zero ((int) of a float)
	slide          func(v *symfonyState[T], now T, cost int64) bool
	st             algorithms.PerKey[symfonyState[T]]
}

// PHPMicrotime is PHP's microtime(true) at ns nanoseconds since the epoch:
// (double)(tv_sec + tv_usec / 1000000.00), the whole seconds plus the
// fraction divided in float64 (ns need not be whole microseconds: the
// fraction is then ns' own, for the model with the clock deviation off).
func PHPMicrotime(ns int64) float64 {
	sec := algorithms.FloorDiv(ns, int64(time.Second))
	return float64(sec) + float64(ns-sec*int64(time.Second))/1e9
}

func newSymfonyEngine[T symfonyNum](p *Symfony) *symfonyEngine[T] {
	// Rate::calculateTimeForTokens(limit): interval * ceil(limit/amount)
	keep := p.every * ((p.rule.L + p.amount - 1) / p.amount)
	return &symfonyEngine[T]{p: p, L: p.rule.L, amount: p.amount, w: T(p.sec), every: T(p.every), keep: T(keep)}
}

// newSymfonyExact works in the clock's nanoseconds, exactly.
func newSymfonyExact(p *Symfony) symfonyCore {
	e := newSymfonyEngine[int64](p)
	sec := int64(time.Second)
	e.w, e.every, e.keep = e.w*sec, e.every*sec, e.keep*sec
	e.at = func(now int64) int64 { return now }
	e.floorTo = func(x, w int64) int64 { return algorithms.FloorDiv(x, w) * w }
	e.cycles = func(el, every int64) (int64, int64) { k := el / every; return k, k * every }
	e.trunc = func(d int64) int64 { return d - d%sec }
	e.slide = func(v *symfonyState[int64], now, cost int64) bool {
		el := min(max(now-(v.a-e.w), 0), e.w) // into the window: at most W (its end instant)
		if p.on(p.iFloor) {
			return algorithms.CounterFloor(v.last, v.n, el, cost, e.L, e.w)
		}
		return algorithms.CounterLE(v.last, v.n, el, cost, e.L, e.w)
	}
	return e
}

// newSymfonyFloat works in microtime's float64 seconds, as PHP does.
func newSymfonyFloat(p *Symfony) symfonyCore {
	e := newSymfonyEngine[float64](p)
	e.at = PHPMicrotime
	e.floorTo = func(x, w float64) float64 { return math.Floor(x/w) * w }
	e.cycles = func(el, every float64) (int64, float64) {
		f := math.Floor(el / every)
		return int64(min(f, 1<<62)), float64(f * every)
	}
	e.trunc = math.Trunc
	e.slide = func(v *symfonyState[float64], now float64, cost int64) bool {
		// SlidingWindow::getHitCount: (int) floor(last * (1 - min((now -
		// (windowEndAt - interval)) / interval, 1)) + hitCount); the
		// conversions keep each operation rounded (no fused multiply-add).
		pct := min(float64(float64(now-float64(v.a-e.w))/e.w), 1)
		x := float64(float64(v.last)*float64(1-pct)) + float64(v.n)
		if p.on(p.iFloor) {
			hc := math.Floor(x) // limit - hitCount < tokens refuses
			return hc < float64(1<<62) && cost <= e.L-int64(hc)
		}
		return float64(x+float64(cost)) <= float64(e.L)
	}
	return e
}

func (e *symfonyEngine[T]) grow(n int)                { e.st.Grow(n) }
func (e *symfonyEngine[T]) place(b *algorithms.Block) { e.st.Place(b) }
func (e *symfonyEngine[T]) warm(id int32) uint64      { return uint64(e.st.At(id).n) }
func (e *symfonyEngine[T]) release(id int32)          { *e.st.At(id) = symfonyState[T]{} }

// start is where a window beginning at now starts: now (anchor), or the
// epoch's multiple of W.
func (e *symfonyEngine[T]) start(now T) T {
	if e.p.on(e.p.iAnchor) {
		return now
	}
	return e.floorTo(now, e.w)
}

func (e *symfonyEngine[T]) decide(id int32, t, cost int64) (bool, bool) {
	s, now := e.st.At(id), e.at(t)
	switch e.p.policy {
	case symfonySliding:
		v := e.slideView(*s, now)
		return e.slide(&v, now, cost), false
	case symfonyToken:
		_, avail := e.tokenView(*s, now)
		return cost <= e.L && cost <= avail, false // reserve throws above the burst
	}
	if cost > e.L { // reserve throws above the limit
		return false, false
	}
	v := e.fixedView(*s, now)
	room := e.L - v.n
	if e.fixedEnded(&v, now) {
		room = e.L
	}
	if cost <= room {
		return true, true
	}
	// waitDuration = (int) ceil(timer + interval - now); 0 adds and saves
	return false, e.p.on(e.p.iCounts) && !(v.a+e.w-now > 0)
}

func (e *symfonyEngine[T]) record(id int32, t, cost int64) {
	s, now := e.st.At(id), e.at(t)
	switch e.p.policy {
	case symfonySliding:
		v := e.slideView(*s, now)
		v.n = algorithms.SatAdd(v.n, cost)
		v.exp = now + e.trunc(v.a+e.w-now) // getExpirationTime: (int)(windowEndAt + interval - now)
		*s = v
	case symfonyToken:
		v, avail := e.tokenView(*s, now)
		v.n = max(avail-cost, -1<<62) // a debt (requests recorded beyond the tokens) kept far from overflow
		v.exp = now + e.keep
		*s = v
	default:
		v := e.fixedView(*s, now)
		if e.fixedEnded(&v, now) { // Window::add resets it
			v.a, v.n = e.start(now), 0
		}
		v.n = algorithms.SatAdd(v.n, cost)
		v.exp = now + e.w
		*s = v
	}
}

// idle: the key's next request, at now or later, finds no state or one
// that decides as none (a fixed window ended; a sliding window past the
// one after it; a token bucket the storage dropped).
func (e *symfonyEngine[T]) idle(id int32, t int64) bool {
	s, now := e.st.At(id), e.at(t)
	if !s.live {
		return true
	}
	switch e.p.policy {
	case symfonySliding:
		v := e.slideView(*s, now)
		return v.n == 0 && v.last == 0
	case symfonyToken:
		return s.exp <= now
	}
	v := e.fixedView(*s, now)
	return v.n == 0 || e.fixedEnded(&v, now)
}

// fixedView is the Window a fixed window request at now reads: the stored
// one, unless the storage drops it (expireAt <= now; it matters only at
// the end instant, with closed), else a new one begun at now.
func (e *symfonyEngine[T]) fixedView(s symfonyState[T], now T) symfonyState[T] {
	if s.live && e.p.on(e.p.iClosed) && s.exp <= now {
		s.live = false
	}
	if !s.live {
		return symfonyState[T]{live: true, a: e.start(now)}
	}
	return s
}

// fixedEnded: now - timer > interval (closed), or >= W.
func (e *symfonyEngine[T]) fixedEnded(v *symfonyState[T], now T) bool {
	if e.p.on(e.p.iClosed) {
		return now-v.a > e.w
	}
	return now-v.a >= e.w
}

// slideView is the SlidingWindow a request at now reads: the stored one;
// none if the storage dropped it (expiry); the next window (ending a W
// later, the stored count its previous) once now is past the stored
// window's end, or a new one if now is past that next window's end too.
func (e *symfonyEngine[T]) slideView(s symfonyState[T], now T) symfonyState[T] {
	if s.live && e.p.on(e.p.iExpiry) && s.exp <= now {
		s.live = false
	}
	fresh := symfonyState[T]{live: true, a: e.start(now) + e.w}
	if !s.live {
		return fresh
	}
	if now > s.a || now == s.a && !e.p.on(e.p.iClosed) { // isExpired
		if we := s.a + e.w; now < we {
			fresh.a, fresh.last = we, s.n
		}
		return fresh
	}
	return s
}

// tokenView is the TokenBucket a request at now reads (a new, full one
// when the storage dropped it) after getAvailableTokens: its timer moved
// by the whole intervals elapsed, and the tokens available.
func (e *symfonyEngine[T]) tokenView(s symfonyState[T], now T) (symfonyState[T], int64) {
	if !s.live || s.exp <= now {
		s = symfonyState[T]{live: true, a: now, n: e.L}
	}
	el := now - s.a
	if el < 0 {
		el = 0
	}
	k, span := e.cycles(el, e.every)
	if k <= 0 {
		return s, min(s.n, e.L)
	}
	s.a += span
	if need := (e.L - s.n + e.amount - 1) / e.amount; k >= need {
		return s, e.L
	}
	return s, s.n + k*e.amount
}
