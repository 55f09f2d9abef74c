package algorithms

import (
	"time"

	"golang.org/x/time/rate"
)

// Releaser is a limiter that can tell when a key's state has returned to
// its initial value, and forget it. A replay of a trace with many keys that
// come and go (ten million clients seen once each) then keeps state only
// for the keys that are active, not for every key ever seen.
type Releaser interface {
	// Idle reports whether key id's state at time t, no earlier than the
	// key's last request, is the initial state: from t on, the key decides
	// exactly as a key never seen. It may advance the state to t.
	Idle(id int32, t int64) bool
	// Release resets key id to the initial state and frees what it holds,
	// so that the id can serve another key.
	Release(id int32)
}

// Idle: every entry has left the window (t-W, t].
func (l *Log) Idle(id int32, t int64) bool {
	e := l.e.Key(id)
	return e.Len() == 0 || e.Newest() <= t-l.rule.W
}

// Release frees the key's entries; its largest size stays counted in
// Memory until Restore hands it back.
func (l *Log) Release(id int32) {
	e := l.e.Key(id)
	p := *e.Peak()
	l.relPeakMax = max(l.relPeakMax, p)
	l.relPeakSum += p
	e.Drop()
}

// SizeAt returns the analytic size key id holds at t, at or after its last
// request and no later than its next: its entries in (t-W, t] and their
// sum, 0 when it holds none. It drops the entries that have left the window
// by t, as the key's next Decide would.
func (l *Log) SizeAt(id int32, t int64) int64 {
	e := l.e.Key(id)
	e.Expire(t - l.rule.W)
	if e.Len() == 0 {
		return 0
	}
	return e.Bytes()
}

// KeyPeak returns the largest analytic size key id has had.
func (l *Log) KeyPeak(id int32) int64 { return *l.e.Key(id).Peak() }

// Restore gives a released key that returns (now under id) the largest
// size it had before its release, so that Memory counts it once.
func (l *Log) Restore(id int32, peak int64) {
	e := l.e.Key(id)
	*e.Peak() = max(peak, e.Bytes())
	l.relPeakSum -= peak
}

// Idle: both windows the counter reads at t are empty.
func (c *Counter) Idle(id int32, t int64) bool {
	_, s := c.load(id)
	return s.Idle(t, c.rule.W)
}

func (c *Counter) Release(id int32) { c.keep(id, c.st.At(id), CounterState{}) }

// Idle: the window the limiter reads at t is empty.
func (f *Fixed) Idle(id int32, t int64) bool {
	_, s := f.load(id)
	return s.Idle(t, f.rule.W)
}

func (f *Fixed) Release(id int32) { f.keep(id, f.st.At(id), FixedState{}) }

// Idle: the bucket is full again.
func (tk *Token) Idle(id int32, t int64) bool {
	k, s := tk.load(id)
	s.Refill(t, tk.rule)
	tk.keep(id, k, s)
	return s.X == U128{}
}

func (tk *Token) Release(id int32) { tk.keep(id, tk.st.At(id), TokenState{}) }

// Idle: the theoretical arrival time is not after t.
func (g *GCRA) Idle(id int32, t int64) bool {
	_, v := g.load(id)
	return v.Due(t)
}

func (g *GCRA) Release(id int32) { g.keep(id, g.st.At(id), TAT{}) }

// Idle: every counter still in the window is zero.
func (b *Buckets) Idle(id int32, t int64) bool {
	s, _ := b.SubWindow(t)
	k := b.load(id)
	b.advance(&k, s)
	b.keep(id, &k)
	return k.h.sum == 0 && k.count((s+1)%(b.n+1)) == 0
}

func (b *Buckets) Release(id int32) {
	clear(b.st.Row(id))
	delete(b.wide.m, id)
}

// Idle: the queue has drained.
func (lk *Leaky) Idle(id int32, t int64) bool { return lk.st.At(id).f.Due(t) }

func (lk *Leaky) Release(id int32) { *lk.st.At(id) = leakyState{} }

// Idle: the library's bucket and its exact twin are both full: from then
// on both hold B whatever their past, as a new key's do.
func (x *XRate) Idle(id int32, t int64) bool {
	k := &x.keys[id]
	k.twin.Refill(t, x.rule)
	return k.twin.X == U128{} && k.lim.TokensAt(time.Unix(0, t)) >= float64(x.b)
}

func (x *XRate) Release(id int32) {
	k := &x.keys[id]
	k.lim = rate.Limiter{}
	initLimiter(&k.lim, x.limit, int(x.b))
	k.twin = TokenState{}
}

// Idle: every layer is idle (a layer that cannot tell never is).
func (ly *Layered) Idle(id int32, t int64) bool {
	idle := true
	for _, l := range ly.layers {
		r, ok := l.(Releaser)
		idle = idle && ok && r.Idle(id, t) // every layer advances to t
	}
	return idle
}

func (ly *Layered) Release(id int32) {
	for _, l := range ly.layers {
		l.(Releaser).Release(id)
	}
}
